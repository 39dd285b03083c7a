//! The strict YAML layer: errors with exact positions, core-schema typing,
//! spans, pointers, budgets, and a no-panic property.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::json;
use templiqx_build::yaml::{
    self, MAX_ALIAS_EXPANDED_BYTES, MAX_ALIAS_EXPANDED_NODES, MAX_DEPTH, Node, NodeValue,
};
use templiqx_contracts::{Code, Diagnostic, Number, Span};

fn parse(text: &str) -> Node {
    match yaml::parse(text) {
        Ok(node) => node,
        Err(d) => panic!("{text:?} should parse, got {d}"),
    }
}

/// Asserts that `text` fails with `TQX_PARSE_YAML`, a message containing
/// `gist`, a help line, and a span starting at `line:column`.
fn fails(text: &str, gist: &str, line: u32, column: u32) -> Diagnostic {
    let d = match yaml::parse(text) {
        Ok(node) => panic!("{text:?} should fail, parsed {:?}", node.to_json()),
        Err(d) => d,
    };
    assert_eq!(d.code, Code::ParseYaml, "{d}");
    assert!(d.message.contains(gist), "{:?} lacks {gist:?}", d.message);
    assert!(d.help.as_deref().is_some_and(|h| !h.is_empty()), "{d}");
    let span = d.span.expect("error has a span");
    assert_eq!((span.start.line, span.start.column), (line, column), "{d}");
    d
}

/// `(start line, start column, end line, end column)`.
fn lc(span: Span) -> (u32, u32, u32, u32) {
    (
        span.start.line,
        span.start.column,
        span.end.line,
        span.end.column,
    )
}

fn slice(text: &str, span: Span) -> &str {
    &text[span.bytes.0..span.bytes.1]
}

// --- errors -----------------------------------------------------------------

#[test]
fn syntax_error_points_at_the_offending_character() {
    let d = fails("a: b\n  c: d\n", "mapping values are not allowed", 2, 4);
    assert!(d.message.starts_with("invalid YAML: "));
    fails("a: [1, 2\nb: 3\n", "invalid YAML", 2, 2);
    // An unterminated quote is reported at its opening quote.
    fails("a: \"open\n", "found unexpected end of stream", 1, 4);
    fails("a: *nope\n", "unknown anchor", 1, 4);
}

#[test]
fn duplicate_keys_point_at_the_second_and_name_the_first_line() {
    let d = fails("a: 1\nb: 2\na: 3\n", "duplicate mapping key `a`", 3, 1);
    assert!(d.help.unwrap().contains("line 1"));

    let nested = "outer:\n  x: 1\n  y: 2\n  x: 3\n";
    let d = fails(nested, "duplicate mapping key `x`", 4, 3);
    assert!(d.help.unwrap().contains("line 2"));

    fails("{a: 1, a: 2}", "duplicate mapping key `a`", 1, 8);
    // Quoting does not make a different key.
    fails("a: 1\n'a': 2\n", "duplicate mapping key `a`", 2, 1);
    // The same key in different mappings is fine.
    parse("- a: 1\n- a: 2\n");
}

#[test]
fn tags_are_rejected_at_the_tag() {
    let d = fails("a: !!str x\n", "YAML tags are not allowed (`!!str`)", 1, 4);
    assert_eq!(lc(d.span.unwrap()), (1, 4, 1, 9));
    fails("a: !custom\n  b: 1\n", "`!custom`", 1, 4);
    fails("- &x !t [1]\n", "`!t`", 1, 6);
    fails("--- !t x\n", "`!t`", 1, 5);
    fails("a: ! x\n", "YAML tags are not allowed", 1, 4);
}

#[test]
fn mapping_keys_must_be_scalars() {
    fails("? [a]\n: b\n", "must be a scalar, not a sequence", 1, 3);
    fails("{[a]: b}\n", "must be a scalar, not a sequence", 1, 2);
    fails("? {k: v}\n: b\n", "must be a scalar, not a mapping", 1, 3);
    fails("a: &k x\n*k : y\n", "cannot be a mapping key", 2, 1);
}

#[test]
fn a_second_document_is_rejected() {
    let d = fails("a: 1\n---\nb: 2\n", "more than one YAML document", 2, 1);
    assert_eq!(lc(d.span.unwrap()), (2, 1, 2, 4));
    fails("a\n...\nb\n", "more than one YAML document", 3, 1);
    // One explicit document, with or without an end marker, is fine.
    parse("---\na: 1\n...\n");
}

#[test]
fn infinity_and_nan_are_rejected() {
    fails("x: .inf\n", "`.inf` is not a finite number", 1, 4);
    fails("x: [-.Inf]\n", "`-.Inf` is not a finite number", 1, 5);
    fails("x: .NaN\n", "`.NaN` is not a finite number", 1, 4);
    // Quoted, or not in the core-schema spelling, they are strings.
    assert_eq!(
        parse("[\".inf\", .Nan, inf]").to_json(),
        json!([".inf", ".Nan", "inf"])
    );
}

#[test]
fn numbers_that_do_not_fit_are_rejected_not_rounded() {
    fails(
        "n: 18446744073709551616\n",
        "`18446744073709551616` is out of range",
        1,
        4,
    );
    fails("n: -9223372036854775809\n", "out of range", 1, 4);
    fails("n: 0x10000000000000000\n", "out of range", 1, 4);
    fails("n: 1e999\n", "out of range", 1, 4);
    // The help offers the nearest double where it exists (a schema bound
    // means a number, and quoting would make it a string).
    let help = |text: &str| fails(text, "out of range", 1, 4).help.unwrap();
    assert!(help("n: 18446744073709551616\n").contains("`1.8446744073709552e19`"));
    assert!(help("n: -9223372036854775809\n").contains("`-9.223372036854776e18`"));
    assert!(help("n: 0x10000000000000000\n").contains("-2^63..=2^64-1"));
    assert!(help("n: 1e999\n").contains("f64's range"));
    let edges = parse("[18446744073709551615, -9223372036854775808, 9223372036854775807]");
    let values: Vec<_> = edges
        .as_seq()
        .unwrap()
        .iter()
        .map(|n| n.value.clone())
        .collect();
    assert_eq!(
        values,
        [
            NodeValue::Number(Number::U64(u64::MAX)),
            NodeValue::Number(Number::I64(i64::MIN)),
            NodeValue::Number(Number::I64(i64::MAX)),
        ]
    );
}

#[test]
fn alias_bomb_fails_fast() {
    let mut bomb = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for (name, prev) in ["b", "c", "d", "e", "f", "g", "h", "i"]
        .iter()
        .zip(["a", "b", "c", "d", "e", "f", "g", "h"])
    {
        let refs = vec![format!("*{prev}"); 9].join(", ");
        bomb.push_str(&format!("{name}: &{name} [{refs}]\n"));
    }
    let started = Instant::now();
    // b copies 90 nodes, c 819, d 7380: the first `*d` in `e` crosses 10000.
    let d = fails(&bomb, "alias expansion exceeds the budget of 10000", 5, 8);
    assert_eq!(slice(&bomb, d.span.unwrap()), "*d");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn aliases_within_budget_expand() {
    let text = "base: &b {role: user, text: hi}\ncopy: *b\nlist: [*b, *b]\nn: &n 7\nm: *n\n";
    let root = parse(text);
    let base = root.get("base").unwrap();
    let copy = root.get("copy").unwrap();
    assert_eq!(copy.to_json(), json!({"role": "user", "text": "hi"}));
    assert_eq!(root.pointer("/list/1").unwrap().to_json(), base.to_json());
    assert_eq!(
        root.get("m").unwrap().value,
        NodeValue::Number(Number::I64(7))
    );
    // The copy is located at the alias; what is inside it, at the original.
    assert_eq!(lc(copy.span), (2, 7, 2, 9));
    assert_eq!(
        copy.get("role").unwrap().span,
        base.get("role").unwrap().span
    );

    // An anchored key can be aliased as a value.
    assert_eq!(parse("&k a: *k\n").to_json(), json!({"a": "a"}));

    // Exactly the budget is allowed: 1 mapping + 99 entries, copied 100 times.
    let entries: Vec<String> = (0..99).map(|i| format!("k{i}: {i}")).collect();
    let refs = vec!["*x"; MAX_ALIAS_EXPANDED_NODES / 100].join(", ");
    let text = format!("x: &x {{{}}}\ny: [{refs}]\n", entries.join(", "));
    assert_eq!(
        parse(&text).pointer("/y/99/k98").unwrap().to_json(),
        json!(98)
    );
    fails(&format!("{text}z: *x\n"), "alias expansion exceeds", 3, 4);
}

#[test]
fn aliases_of_large_strings_are_bounded_by_bytes() {
    let big = "x".repeat(100_000);
    let copies = MAX_ALIAS_EXPANDED_BYTES / big.len();
    let doc = |n: usize| format!("a: &a {big}\nb: [{}]\n", vec!["*a"; n].join(", "));
    let root = parse(&doc(copies));
    assert_eq!(
        root.pointer(&format!("/b/{}", copies - 1))
            .unwrap()
            .as_str(),
        Some(&*big)
    );
    let d = fails(
        &doc(copies + 1),
        "budget of 4194304 copied bytes of text",
        2,
        5 + 4 * copies as u32,
    );
    assert_eq!(slice(&doc(copies + 1), d.span.unwrap()), "*a");
}

#[test]
fn an_alias_inside_its_own_anchor_is_rejected() {
    fails("&a [1, *a]\n", "refers to a node that contains it", 1, 8);
}

#[test]
fn nesting_is_bounded() {
    let nested = |levels: usize| -> String {
        (0..levels)
            .map(|i| format!("{}k:\n", " ".repeat(i)))
            .collect()
    };
    let mut node = &parse(&nested(MAX_DEPTH));
    for _ in 1..MAX_DEPTH {
        node = node.get("k").unwrap();
    }
    assert_eq!(node.to_json(), json!({"k": null}));

    // Deep input fails at the first collection too many, without reading on.
    fails(&nested(1_000), "nests deeper than 256 levels", 257, 257);
    // The parser caps flow nesting at 255 levels by itself.
    fails(&"[".repeat(100_000), "recursion limit exceeded", 1, 256);

    // An alias cannot smuggle in more depth either.
    let tall = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    let text = format!(
        "a: &a {tall}\nb: {}*a{}\n",
        "[".repeat(100),
        "]".repeat(100)
    );
    fails(&text, "nests deeper than 256", 2, 104);
}

// --- typing -----------------------------------------------------------------

#[test]
fn scalars_resolve_with_the_core_schema() {
    let cases: &[(&str, NodeValue)] = &[
        ("~", NodeValue::Null),
        ("null", NodeValue::Null),
        ("NULL", NodeValue::Null),
        ("", NodeValue::Null),
        ("true", NodeValue::Bool(true)),
        ("False", NodeValue::Bool(false)),
        ("TRUE", NodeValue::Bool(true)),
        ("0", NodeValue::Number(Number::I64(0))),
        ("-12", NodeValue::Number(Number::I64(-12))),
        ("+12", NodeValue::Number(Number::I64(12))),
        ("007", NodeValue::Number(Number::I64(7))),
        ("0x1f", NodeValue::Number(Number::I64(31))),
        ("0xFF", NodeValue::Number(Number::I64(255))),
        ("0o17", NodeValue::Number(Number::I64(15))),
        (
            "9223372036854775808",
            NodeValue::Number(Number::U64(1 << 63)),
        ),
        ("1.0", NodeValue::Number(Number::F64(1.0))),
        ("1.5", NodeValue::Number(Number::F64(1.5))),
        ("1.", NodeValue::Number(Number::F64(1.0))),
        (".5", NodeValue::Number(Number::F64(0.5))),
        ("+.5", NodeValue::Number(Number::F64(0.5))),
        ("1e3", NodeValue::Number(Number::F64(1000.0))),
        ("-1.5E-3", NodeValue::Number(Number::F64(-0.0015))),
        ("\"true\"", NodeValue::String("true".into())),
        ("'0x1f'", NodeValue::String("0x1f".into())),
        ("'~'", NodeValue::String("~".into())),
        ("\"\"", NodeValue::String(String::new())),
        ("'1.0'", NodeValue::String("1.0".into())),
        ("tRue", NodeValue::String("tRue".into())),
        ("yes", NodeValue::String("yes".into())),
        ("1_000", NodeValue::String("1_000".into())),
        ("0b101", NodeValue::String("0b101".into())),
        ("-0x1f", NodeValue::String("-0x1f".into())),
        ("0x", NodeValue::String("0x".into())),
        ("1e", NodeValue::String("1e".into())),
        (".", NodeValue::String(".".into())),
        ("12:30", NodeValue::String("12:30".into())),
        ("|\n  true\n", NodeValue::String("true\n".into())),
        (">-\n  1\n  2\n", NodeValue::String("1 2".into())),
    ];
    for (text, expected) in cases {
        let doc = format!("v: {text}");
        assert_eq!(&parse(&doc).get("v").unwrap().value, expected, "{doc:?}");
    }
    let empty = parse("a:\nb: ~\n");
    assert_eq!(empty.to_json(), json!({"a": null, "b": null}));
}

#[test]
fn empty_documents_are_null() {
    for text in ["", "# only a comment\n", "\n\n"] {
        let node = parse(text);
        assert_eq!(node.value, NodeValue::Null, "{text:?}");
        assert_eq!(lc(node.span), (1, 1, 1, 1));
    }
    // An explicit document without content: the empty scalar after `---`.
    let node = parse("---\n");
    assert_eq!((node.value, lc(node.span)), (NodeValue::Null, (2, 1, 2, 1)));
}

#[test]
fn helpers_report_types_and_json() {
    let root = parse("a: [1, x, true, null, {b: 2.5}]\n");
    let names: Vec<_> = root
        .pointer("/a")
        .unwrap()
        .as_seq()
        .unwrap()
        .iter()
        .map(Node::type_name)
        .collect();
    assert_eq!(names, ["number", "string", "boolean", "null", "object"]);
    assert_eq!(root.pointer("/a").unwrap().type_name(), "array");
    assert_eq!(
        root.to_json(),
        json!({"a": [1, "x", true, null, {"b": 2.5}]})
    );
    assert_eq!(root.get("missing"), None);
    assert_eq!(root.pointer("/a/0").unwrap().get("x"), None);
}

// --- spans ------------------------------------------------------------------

#[test]
fn flow_mapping_entries_have_exact_spans() {
    let text = "content: { kind: ref, path: x }\n";
    let root = parse(text);
    let content = root.get("content").unwrap();
    assert_eq!(lc(content.span), (1, 10, 1, 32));
    assert_eq!(slice(text, content.span), "{ kind: ref, path: x }");
    let entries = content.as_map().unwrap();
    let got: Vec<_> = entries
        .iter()
        .map(|(k, v)| (lc(k.span), lc(v.span)))
        .collect();
    assert_eq!(
        got,
        [
            ((1, 12, 1, 16), (1, 18, 1, 21)),
            ((1, 23, 1, 27), (1, 29, 1, 30)),
        ]
    );
    assert_eq!(slice(text, entries[1].0.span), "path");
}

#[test]
fn quoted_scalars_end_at_their_closing_quote() {
    // The scanner's end runs over the blanks and the comment after a
    // quoted scalar; the span does not.
    let text = "a: { 'k' : \"x\\\"y\"   # c\n  }\nb: [ 'it''s'  , z ]\nc: \"v\" # c\n\"d\"  : 1\n";
    let root = parse(text);
    let a = root.get("a").unwrap().as_map().unwrap();
    assert_eq!(slice(text, a[0].0.span), "'k'");
    assert_eq!(slice(text, a[0].1.span), "\"x\\\"y\"");
    assert_eq!(slice(text, root.pointer("/b/0").unwrap().span), "'it''s'");
    assert_eq!(slice(text, root.get("c").unwrap().span), "\"v\"");
    let d = &root.as_map().unwrap()[3].0;
    assert_eq!((d.text.as_str(), slice(text, d.span)), ("d", "\"d\""));
}

#[test]
fn block_collections_span_their_entries() {
    let text = "a:\n  b: 1\n  c: [2]\n\n# trailing\nd:\n  - x\n  - 'y'\n";
    let root = parse(text);
    let a = root.get("a").unwrap();
    assert_eq!(lc(a.span), (2, 3, 3, 9));
    assert_eq!(slice(text, a.span), "b: 1\n  c: [2]");
    let d = root.get("d").unwrap();
    assert_eq!(slice(text, d.span), "- x\n  - 'y'");
    assert_eq!(lc(root.span), (1, 1, 8, 8));

    let anchored = "a: &x 5\nb: &y\n  - 1\nc: &z [1]\n";
    let root = parse(anchored);
    assert_eq!(slice(anchored, root.get("a").unwrap().span), "5");
    assert_eq!(lc(root.get("b").unwrap().span), (3, 3, 3, 6));
    assert_eq!(slice(anchored, root.get("c").unwrap().span), "[1]");
}

#[test]
fn block_scalars_span_their_content() {
    let text = "t: |\n  line one\n  line two\n\nu: &a >-\n   folded\nv: \"two\n  lines\"\n";
    let root = parse(text);
    let t = root.get("t").unwrap();
    assert_eq!(lc(t.span), (2, 3, 3, 11));
    assert_eq!(slice(text, t.span), "line one\n  line two");
    assert_eq!(slice(text, root.get("u").unwrap().span), "folded");
    assert_eq!(lc(root.get("v").unwrap().span), (7, 4, 8, 9));

    // Content that looks like an anchor is content.
    let text = "a: |\n  &foo bar\nm:\n  &k key: v\n  x: *k\n";
    let root = parse(text);
    assert_eq!(slice(text, root.get("a").unwrap().span), "&foo bar");
    let m = root.get("m").unwrap();
    assert_eq!(slice(text, m.as_map().unwrap()[0].0.span), "key");
    assert_eq!(slice(text, m.span), "&k key: v\n  x: *k");
    assert_eq!(m.to_json(), json!({"key": "v", "x": "key"}));
}

#[test]
fn columns_count_characters_not_bytes() {
    let d = fails("{é: 1, é: 2}", "duplicate mapping key `é`", 1, 8);
    assert_eq!(d.span.unwrap().bytes, (8, 10));
    let d = fails("é: a: b\n", "mapping values are not allowed", 1, 5);
    assert_eq!(d.span.unwrap().bytes, (5, 6));
    let text = "naïve: 日本語\n\"ключ\": \"значение\"\n";
    let root = parse(text);
    let v = root.get("ключ").unwrap();
    assert_eq!(lc(v.span), (2, 9, 2, 19));
    assert_eq!(slice(text, v.span), "\"значение\"");
    assert_eq!(lc(root.get("naïve").unwrap().span), (1, 8, 1, 11));
}

// --- pointers ---------------------------------------------------------------

#[test]
fn pointers_unescape_tokens_and_index_sequences() {
    let text = "a/b:\n  m~n: [x, y]\n\"\": empty\n";
    let root = parse(text);
    assert_eq!(root.pointer("/a~1b/m~0n/1").unwrap().to_json(), json!("y"));
    assert_eq!(root.pointer("/").unwrap().to_json(), json!("empty"));
    assert_eq!(root.pointer("").unwrap(), &root);
    for bad in [
        "/a~1b/m~0n/01",
        "/a~1b/m~0n/-",
        "/a~1b/m~0n/2",
        "/a~2b",
        "/a~",
        "a~1b",
        "/a~1b/m~0n/0/x",
    ] {
        assert_eq!(root.pointer(bad), None, "{bad}");
    }

    let key = root.key_span("/a~1b/m~0n").unwrap();
    assert_eq!((lc(key), slice(text, key)), ((2, 3, 2, 6), "m~n"));
    assert_eq!(slice(text, root.key_span("/a~1b").unwrap()), "a/b");
    assert_eq!(
        root.key_span("/a~1b/m~0n/0"),
        None,
        "sequence items have no key"
    );
    assert_eq!(root.key_span(""), None);
    assert_eq!(root.key_span("/nope"), None);

    let seq = root.span_of("/a~1b/m~0n/5").unwrap();
    assert_eq!(slice(text, seq), "[x, y]");
    assert_eq!(slice(text, root.span_of("/a~1b/m~0n/1").unwrap()), "y");
    assert_eq!(root.span_of("/missing/deeper"), Some(root.span));
    assert_eq!(root.span_of(""), Some(root.span));
    assert_eq!(root.span_of("/a~1b/bad~escape"), root.span_of("/a~1b"));
    assert_eq!(root.span_of("no-slash"), None);
}

#[test]
fn locate_fills_spans_from_pointers() {
    let root = parse("messages:\n  - role: user\n    content: hi\n");
    let existing = root.span;
    let mut diagnostics = vec![
        Diagnostic::error(Code::UnknownVariant, "bad role")
            .in_file("c.yaml")
            .at("/messages/0/role"),
        Diagnostic::error(Code::MissingField, "no id").at("/messages/0/id"),
        Diagnostic::error(Code::RefUnknown, "other file")
            .in_file("other.yaml")
            .at("/messages"),
        Diagnostic::error(Code::InvalidValue, "already located").at("/messages"),
        Diagnostic::error(Code::Io, "no pointer"),
    ];
    diagnostics[3].span = Some(existing);
    yaml::locate(&mut diagnostics, "c.yaml", &root);

    let at = |d: &Diagnostic| d.span.map(lc);
    assert_eq!(at(&diagnostics[0]), Some((2, 11, 2, 15)));
    assert_eq!(
        at(&diagnostics[1]),
        Some((2, 5, 3, 16)),
        "lands on the parent"
    );
    assert_eq!(diagnostics[1].file.as_deref(), Some("c.yaml"));
    assert_eq!(diagnostics[2].span, None);
    assert_eq!(diagnostics[3].span, Some(existing));
    assert_eq!(diagnostics[3].file, None);
    assert_eq!(
        (diagnostics[4].span, diagnostics[4].file.as_deref()),
        (None, None)
    );
}

// --- robustness -------------------------------------------------------------

/// Spans must be ordered, in bounds and on character boundaries.
fn check_span(text: &str, span: Span) {
    let (a, b) = span.bytes;
    assert!(a <= b && b <= text.len(), "{span:?} in {text:?}");
    assert!(
        text.is_char_boundary(a) && text.is_char_boundary(b),
        "{span:?}"
    );
    assert!(span.start <= span.end && span.start.line >= 1 && span.start.column >= 1);
}

fn check_tree(text: &str, node: &Node) {
    check_span(text, node.span);
    match &node.value {
        NodeValue::Seq(items) => items.iter().for_each(|n| check_tree(text, n)),
        NodeValue::Map(entries) => entries.iter().for_each(|(k, v)| {
            check_span(text, k.span);
            check_tree(text, v);
        }),
        _ => {}
    }
}

fn never_panics(text: &str) {
    match yaml::parse(text) {
        Ok(node) => {
            check_tree(text, &node);
            let _ = node.to_json();
        }
        Err(d) => {
            assert_eq!(d.code, Code::ParseYaml);
            check_span(text, d.span.expect("errors have spans"));
            let _ = templiqx_build::report::render_human(&d, Some(text));
        }
    }
}

/// Fragments that drive the parser into its less common states.
const TOKENS: &[&str] = &[
    "- ",
    "k: ",
    "k:",
    "? ",
    ": ",
    "&a ",
    "*a",
    "*a ",
    "[",
    "]",
    "{",
    "}",
    ", ",
    "'x'",
    "\"y\"",
    "|",
    ">-",
    "|2",
    "# c",
    "---",
    "...",
    "!t ",
    "!!str ",
    "1",
    "0x1f",
    ".inf",
    "~",
    "\t",
    "é",
    "%YAML 1.2",
    "%TAG ! !x",
    "\"",
    "'",
    "\\",
    "z",
];

proptest! {
    #[test]
    fn arbitrary_strings_never_panic(text in any::<String>()) {
        never_panics(&text);
    }

    #[test]
    fn yaml_shaped_lines_never_panic(
        lines in proptest::collection::vec(
            (0..6usize, proptest::collection::vec(proptest::sample::select(TOKENS), 0..6)),
            0..12,
        )
    ) {
        let text: String = lines
            .iter()
            .map(|(indent, tokens)| format!("{}{}\n", " ".repeat(*indent), tokens.concat()))
            .collect();
        never_panics(&text);
    }

    #[test]
    fn yaml_punctuation_never_panics(
        text in "([-:{}\\[\\],&*!|>'\"?#%@`~. \t\r\n]|[a-c0-9]|é|\u{feff}){0,80}"
    ) {
        never_panics(&text);
    }
}

#[test]
fn known_hard_inputs_never_panic() {
    for text in [
        "{---",
        "[---",
        "- ---",
        "? ? ?",
        "&a &b x",
        "*",
        "&",
        "!",
        "!<",
        "%TAG ! !x\n--- !a b",
        "%YAML 1.2\n%YAML 1.2\n---",
        "a: |\n\tx",
        "\u{feff}",
        "\u{feff}a: 1",
        "'",
        "\"\\",
        "[a, b]: c",
        "- - - - -",
        ": : :",
        "\r\r\r",
        "a: 1\r\nb: 2\r\n",
        "---\n---\n",
        "...\n...",
        "? |\n  x\n: y",
        "{a: [b, {c: d}]}",
        "\0",
        "a:\u{85}b",
    ] {
        never_panics(text);
    }
}
