//! Diagnostic rendering: exact rustc-style text, and JSON.

use templiqx_build::report::{render_all, render_human, render_human_styled, render_json};
use templiqx_build::yaml;
use templiqx_contracts::{Code, Diagnostic, Position, Severity, Span};

const SOURCE: &str = "\
api_version: templiqx/v1alpha1
messages:
  - role: user
    content:
      - text: \"Hello {{ inputs.nmae }}\"
";

/// A reference diagnostic on line 5, columns 25..35 (`inputs.nmae`).
fn unknown_ref() -> Diagnostic {
    let mut d = Diagnostic::error(Code::RefUnknown, "unknown reference `inputs.nmae`")
        .in_file("contracts/greeting.yaml")
        .at("/messages/0/content/0/text")
        .help("declare `nmae` under `inputs`, or did you mean `inputs.name`?")
        .note("included from contracts/main.yaml");
    d.span = Some(Span {
        start: Position {
            line: 5,
            column: 25,
        },
        end: Position {
            line: 5,
            column: 36,
        },
        bytes: (0, 0),
    });
    d
}

#[test]
fn with_source_shows_the_line_and_underlines_the_span() {
    let expected = "\
error[TQX_REF_UNKNOWN]: unknown reference `inputs.nmae`
 --> contracts/greeting.yaml:5:25
  |
5 |       - text: \"Hello {{ inputs.nmae }}\"
  |                         ^^^^^^^^^^^
  |
  = help: declare `nmae` under `inputs`, or did you mean `inputs.name`?
  = note: included from contracts/main.yaml
  = note: at /messages/0/content/0/text";
    assert_eq!(render_human(&unknown_ref(), Some(SOURCE)), expected);
}

#[test]
fn without_source_names_the_position_only() {
    let expected = "\
error[TQX_REF_UNKNOWN]: unknown reference `inputs.nmae`
--> contracts/greeting.yaml:5:25
 = help: declare `nmae` under `inputs`, or did you mean `inputs.name`?
 = note: included from contracts/main.yaml
 = note: at /messages/0/content/0/text";
    assert_eq!(render_human(&unknown_ref(), None), expected);
}

#[test]
fn without_file_or_span() {
    let mut d = unknown_ref();
    d.file = None;
    assert_eq!(
        render_human(&d, None),
        "\
error[TQX_REF_UNKNOWN]: unknown reference `inputs.nmae`
 |
 = help: declare `nmae` under `inputs`, or did you mean `inputs.name`?
 = note: at line 5, column 25
 = note: included from contracts/main.yaml
 = note: at /messages/0/content/0/text"
    );

    let bare = Diagnostic::error(Code::Io, "cannot read `x.yaml`").in_file("x.yaml");
    assert_eq!(
        render_human(&bare, None),
        "error[TQX_IO]: cannot read `x.yaml`\n--> x.yaml"
    );
    let mut warning = Diagnostic::error(Code::ExtensionKey, "bare extension key");
    warning.severity = Severity::Warning;
    warning.json_pointer = Some(String::new());
    assert_eq!(
        render_human(&warning, None),
        "warning[TQX_EXTENSION_KEY]: bare extension key\n |\n = note: at /"
    );
}

#[test]
fn parse_errors_render_against_their_source() {
    let source = "greeting:\n  tëxt: hi\n  tëxt: again\n";
    let mut d = yaml::parse(source).unwrap_err();
    d.file = Some("g.yaml".into());
    assert_eq!(
        render_human(&d, Some(source)),
        "\
error[TQX_PARSE_YAML]: duplicate mapping key `tëxt`
 --> g.yaml:3:3
  |
3 |   tëxt: again
  |   ^^^^
  |
  = help: the first `tëxt` is on line 2; mapping keys must be unique, so remove or rename one of them"
    );
}

#[test]
fn a_span_beyond_the_source_falls_back_to_the_position() {
    assert_eq!(
        render_human(&unknown_ref(), Some("short\n")),
        render_human(&unknown_ref(), None)
    );
}

#[test]
fn colors_only_when_asked() {
    let plain = render_human_styled(&unknown_ref(), Some(SOURCE), false);
    assert!(!plain.contains('\u{1b}'));
    assert!(render_human_styled(&unknown_ref(), Some(SOURCE), true).contains('\u{1b}'));
}

#[test]
fn render_all_separates_and_summarises() {
    let source = "a: 1\na: 2\n";
    let mut parse_error = yaml::parse(source).unwrap_err();
    parse_error.file = Some("a.yaml".into());
    let mut warning = Diagnostic::error(Code::ExtensionKey, "bare extension key").in_file("a.yaml");
    warning.severity = Severity::Warning;
    let diagnostics = [parse_error, unknown_ref(), warning];

    let calls = std::cell::Cell::new(0);
    let source_for = |file: &str| {
        calls.set(calls.get() + 1);
        (file == "a.yaml").then(|| source.to_owned())
    };
    let out = render_all(&diagnostics, &source_for);
    assert_eq!(calls.get(), 2, "one read per distinct file");
    let blocks: Vec<&str> = out.split("\n\n").collect();
    assert_eq!(blocks.len(), 4, "{out}");
    assert!(
        blocks[0]
            .starts_with("error[TQX_PARSE_YAML]: duplicate mapping key `a`\n --> a.yaml:2:1\n")
    );
    assert!(blocks[1].starts_with("error[TQX_REF_UNKNOWN]"));
    assert_eq!(
        blocks[2],
        "warning[TQX_EXTENSION_KEY]: bare extension key\n--> a.yaml"
    );
    assert_eq!(blocks[3], "error: 2 errors and 1 warning found");

    let one = render_all(&diagnostics[..1], &source_for);
    assert!(one.ends_with("\n\nerror: 1 error found"), "{one}");
    let warnings = render_all(&diagnostics[2..], &|_| None);
    assert!(
        warnings.ends_with("\n\nwarning: 1 warning found"),
        "{warnings}"
    );
    assert_eq!(render_all(&[], &|_| None), "");
}

#[test]
fn json_is_an_array_of_diagnostics() {
    let json = render_json(&[unknown_ref()]);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        value,
        serde_json::json!([{
            "code": "TQX_REF_UNKNOWN",
            "severity": "error",
            "message": "unknown reference `inputs.nmae`",
            "file": "contracts/greeting.yaml",
            "json_pointer": "/messages/0/content/0/text",
            "span": {"start": {"line": 5, "column": 25}, "end": {"line": 5, "column": 36}},
            "help": "declare `nmae` under `inputs`, or did you mean `inputs.name`?",
            "notes": ["included from contracts/main.yaml"],
        }])
    );
    assert_eq!(render_json(&[]), "[]");
    let back: Vec<Diagnostic> = serde_json::from_str(&json).unwrap();
    assert_eq!(back[0].code, Code::RefUnknown);
}

#[test]
fn a_long_multi_line_span_is_folded() {
    let source: String = (0..40).map(|i| format!("k{i}: {i}\n")).collect();
    let mut d = Diagnostic::error(Code::InvalidType, "expected a sequence, found a mapping")
        .in_file("long.yaml")
        .help("write the entries as a list");
    d.span = Some(Span {
        start: Position { line: 2, column: 1 },
        end: Position {
            line: 39,
            column: 7,
        },
        bytes: (0, 0),
    });
    let out = render_human(&d, Some(&source));
    assert!(out.lines().count() < 15, "{out}");
    assert!(out.contains("  --> long.yaml:2:1\n"), "{out}");
    assert!(out.contains("\n...  |\n"), "{out}");
}

#[test]
fn lone_carriage_returns_end_lines_in_snippets() {
    // YAML 1.2 line breaks: `\r` alone, `\r\n` and `\n` (one file may mix them).
    let source = "a: 1\rb: 2\r\nc: {x: 1,\r  x: 2}\n";
    let mut d = yaml::parse(source).unwrap_err();
    d.file = Some("cr.yaml".into());
    assert_eq!(
        render_human(&d, Some(source)),
        "\
error[TQX_PARSE_YAML]: duplicate mapping key `x`
 --> cr.yaml:4:3
  |
4 |   x: 2}
  |   ^
  |
  = help: the first `x` is on line 3; mapping keys must be unique, so remove or rename one of them"
    );

    // A span over two lines shows both, with no stray `\r`.
    let mut d = Diagnostic::error(Code::InvalidType, "expected a string")
        .in_file("cr.yaml")
        .help("quote it");
    d.span = Some(Span {
        start: Position { line: 3, column: 4 },
        end: Position { line: 4, column: 8 },
        bytes: (0, 0),
    });
    let out = render_human(&d, Some(source));
    assert!(!out.contains('\r'), "{out:?}");
    assert!(out.contains("3 |   c: {x: 1,\n"), "{out}");
    assert!(out.contains("4 | |   x: 2}\n"), "{out}");
}

#[test]
fn a_leading_byte_order_mark_is_not_a_column() {
    let source = "\u{feff}{a: 1, a: 2}\n";
    let mut d = yaml::parse(source).unwrap_err();
    assert_eq!(d.span.unwrap().start.column, 8);
    d.file = Some("bom.yaml".into());
    let out = render_human(&d, Some(source));
    assert!(out.contains("1 | {a: 1, a: 2}\n  |        ^\n"), "{out}");
}

/// A source of `n` three-line entries (`  field_<i>:`, `    schema:`,
/// `      type: strin`), lines ending alternately in `\n` and `\r\n`, and
/// one error per entry spanning its three lines.
fn many(n: u32) -> (String, Vec<Diagnostic>) {
    let mut source = String::from("inputs:\n");
    for i in 0..n {
        let end = if i % 2 == 0 { "\n" } else { "\r\n" };
        source.push_str(&format!(
            "  field_{i}:{end}    schema:{end}      type: strin{end}"
        ));
    }
    let diagnostics = (0..n)
        .map(|i| {
            let line = 2 + 3 * i;
            let mut d = Diagnostic::error(Code::InvalidType, format!("entry {i}"))
                .in_file("big.yaml")
                .at(format!("/inputs/field_{i}"));
            d.span = Some(Span {
                start: Position { line, column: 3 },
                end: Position {
                    line: line + 2,
                    column: 18,
                },
                bytes: (0, 0),
            });
            d
        })
        .collect();
    (source, diagnostics)
}

#[test]
fn render_all_shows_thousands_of_multi_line_snippets_of_one_source() {
    let n = 2_000;
    let (source, diagnostics) = many(n);
    let calls = std::cell::Cell::new(0);
    let out = render_all(&diagnostics, &|file| {
        calls.set(calls.get() + 1);
        (file == "big.yaml").then(|| source.clone())
    });
    assert_eq!(calls.get(), 1, "one read for the one file");
    let blocks: Vec<&str> = out.split("\n\n").collect();
    assert_eq!(blocks.len(), 2_001);
    assert_eq!(blocks[2_000], "error: 2000 errors found");
    // Every diagnostic has its snippet, at its own lines.
    for (i, block) in blocks[..2_000].iter().enumerate() {
        let line = 2 + 3 * i;
        assert!(
            block.contains(&format!(" --> big.yaml:{line}:3\n")),
            "{block}"
        );
        assert!(block.contains(&format!(" field_{i}:\n")), "{block}");
    }
    let last = 2 + 3 * (n - 1);
    assert_eq!(
        blocks[1_999],
        format!(
            "\
error[TQX_INVALID_TYPE]: entry 1999
    --> big.yaml:{last}:3
     |
{last} | /   field_1999:
{} | |     schema:
{} | |       type: strin
     | |_________________^
     |
     = note: at /inputs/field_1999",
            last + 1,
            last + 2
        )
    );
    // The same text as rendering one on its own.
    for i in (0..diagnostics.len()).step_by(97) {
        assert_eq!(render_human(&diagnostics[i], Some(&source)), blocks[i]);
    }
}
