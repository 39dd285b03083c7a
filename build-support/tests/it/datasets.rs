//! Eval datasets (`docs/format.md`, "Datasets"): rows read from a JSONL or
//! CSV file of the package, typed and checked when the contract compiles,
//! the `case` root scope of their checks, and how the file enters the
//! fingerprints and the files read. Each test builds its package in a
//! fresh temporary directory.

use std::fs;
use std::path::Path;
use templiqx_build::{CompiledContract, Loader};
use templiqx_contracts::{CapabilityProfile, Code, Diagnostic};

const MANIFEST: &str =
    "api_version: templiqx/v1alpha1\npackage: scratch\nversion: 0.1.0\ncontracts: [main]\n";

/// A contract labelling a text, whose one eval entry is `entry`.
fn contract(entry: &str) -> String {
    format!(
        r#"api_version: templiqx/v1alpha1
id: main
version: 0.1.0
inputs:
  text: {{ schema: {{ type: string, minLength: 1 }}, required: true }}
  stars: {{ schema: {{ type: integer }}, required: false }}
capabilities: [structured_output]
messages:
  - role: user
    content:
      - {{ kind: interpolate, expression: {{ kind: ref, path: inputs.text }} }}
output_schema:
  type: object
  additionalProperties: false
  required: [label]
  properties:
    label: {{ type: string, enum: [positive, negative, neutral] }}
evals:
{entry}"#
    )
}

/// An entry reading `file`, with a `case_schema` and a check on `case`.
fn entry(file: &str, case_path: &str) -> String {
    format!(
        r#"  - id: labelled
    dataset: {file}
    case_schema:
      type: object
      additionalProperties: false
      required: [label]
      properties:
        label: {{ type: string, enum: [positive, negative, neutral] }}
        weight: {{ type: integer }}
    expect:
      - id: right-label
        check: {{ kind: equals, left: {{ kind: ref, path: output.label }}, right: {{ kind: ref, path: {case_path} }} }}
"#
    )
}

struct Pkg {
    dir: tempfile::TempDir,
}

impl Pkg {
    fn new(main: &str, files: &[(&str, &str)]) -> Pkg {
        let pkg = Pkg {
            dir: tempfile::tempdir().unwrap(),
        };
        pkg.write("templiqx.yaml", MANIFEST);
        pkg.write("contracts/main.yaml", main);
        for (path, text) in files {
            pkg.write(path, text);
        }
        pkg
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.dir.path().join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn compile(&self) -> (Loader, CompiledContract) {
        let mut loader = Loader::new(self.root());
        let target = CapabilityProfile::parse_list("structured_output");
        let mut all = loader.compile_package(self.root(), &target).unwrap();
        let c = all.remove(0);
        (loader, c)
    }
}

fn errors_of(c: &CompiledContract) -> Vec<&Diagnostic> {
    c.diagnostics.iter().filter(|d| d.is_error()).collect()
}

const GOOD_JSONL: &str = r#"{"id": "glad", "inputs": {"text": "I love it"}, "case": {"label": "positive"}, "fake_output": {"label": "positive"}}
{"inputs": {"text": "I hate it", "stars": 1}, "case": {"label": "negative"}, "fake_output": {"label": "negative"}}

{"inputs": {"text": "It is a chair"}, "case": {"label": "neutral"}}
"#;

#[test]
fn a_jsonl_dataset_compiles_and_enters_the_fingerprints_and_the_files_read() {
    let pkg = Pkg::new(
        &contract(&entry("evals/labelled.jsonl", "case.label")),
        &[("evals/labelled.jsonl", GOOD_JSONL)],
    );
    let (loader, c) = pkg.compile();
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    let interaction = c.interaction.as_ref().unwrap();
    assert!(
        loader
            .files_read
            .iter()
            .any(|p| p.ends_with("evals/labelled.jsonl")),
        "{:?}",
        loader.files_read
    );
    let dataset = c.contract.as_ref().unwrap().evals[0]
        .dataset
        .clone()
        .unwrap();
    assert_eq!(dataset.sha256.len(), 64);

    // Another byte in the file: another contract fingerprint and package
    // fingerprint; the interaction is the same.
    let before = (
        interaction.contract_fingerprint.to_string(),
        interaction.interaction_fingerprint.to_string(),
        loader.fingerprint(),
    );
    pkg.write(
        "evals/labelled.jsonl",
        &GOOD_JSONL.replace("I love it", "I love it!"),
    );
    let (loader, c) = pkg.compile();
    let interaction = c.interaction.as_ref().unwrap();
    assert_ne!(before.0, interaction.contract_fingerprint.to_string());
    assert_eq!(before.1, interaction.interaction_fingerprint.to_string());
    assert_ne!(before.2, loader.fingerprint());

    // The rows an eval runner reads: ids, else the line.
    let contract = c.contract.as_ref().unwrap();
    let rows: Vec<_> = templiqx_build::dataset::EntryRows::open(interaction, &contract.evals[0])
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["glad", "2", "4"]);
    assert_eq!(
        rows[0].case,
        Some(serde_json::json!({ "label": "positive" }))
    );
}

#[test]
fn a_bad_row_is_a_diagnostic_at_its_line_in_the_data_file_with_the_pointer() {
    let text = GOOD_JSONL.replace(
        r#"{"inputs": {"text": "I hate it", "stars": 1}"#,
        r#"{"inputs": {"text": "", "stars": "one"}"#,
    );
    let pkg = Pkg::new(
        &contract(&entry("evals/labelled.jsonl", "case.label")),
        &[("evals/labelled.jsonl", &text)],
    );
    let (_, c) = pkg.compile();
    let errors = errors_of(&c);
    assert_eq!(errors.len(), 2, "{errors:#?}");
    for d in &errors {
        assert_eq!(d.code.as_str(), "TQX_EVAL_INVALID");
        assert_eq!(d.file.as_deref(), Some("evals/labelled.jsonl"));
        assert_eq!(d.span.unwrap().start.line, 2);
        assert!(
            d.message
                .starts_with("row 2 (line 2) of `evals/labelled.jsonl` at /inputs/"),
            "{}",
            d.message
        );
    }
    let pointers: Vec<_> = errors
        .iter()
        .map(|d| d.json_pointer.as_deref().unwrap())
        .collect();
    // Members in key order.
    assert_eq!(pointers, ["/inputs/stars", "/inputs/text"]);
    // Each points at its value as written in the line (`"one"`, `""`), so
    // a snippet underlines it.
    let line = text.lines().nth(1).unwrap();
    let line_start = text.find(line).unwrap();
    for d in &errors {
        let span = d.span.unwrap();
        let written = match d.json_pointer.as_deref().unwrap() {
            "/inputs/stars" => r#""one""#,
            _ => r#""""#,
        };
        let byte = line.find(&format!(": {written}")).unwrap() + 2;
        let column = u32::try_from(line[..byte].chars().count()).unwrap() + 1;
        let width = u32::try_from(written.len()).unwrap();
        assert_eq!(
            (span.start.column, span.end.column),
            (column, column + width),
            "{d:?}"
        );
        assert_eq!(
            span.bytes,
            (line_start + byte, line_start + byte + written.len())
        );
    }

    // A line that is not JSON, a case that does not fit, a missing required
    // input, and a fake_output its check refuses: each at its own line.
    let text = "{\"id\": \"a\", \"inputs\": {\"text\": \"x\"}, \"case\": {\"label\": \"happy\"}}\nnot json\n{\"id\": \"c\", \"case\": {\"label\": \"neutral\"}}\n{\"id\": \"d\", \"inputs\": {\"text\": \"x\"}, \"case\": {\"label\": \"neutral\"}, \"fake_output\": {\"label\": \"negative\"}}\n";
    pkg.write("evals/labelled.jsonl", text);
    let (_, c) = pkg.compile();
    let found: Vec<(u32, Option<&str>)> = errors_of(&c)
        .iter()
        .map(|d| (d.span.unwrap().start.line, d.json_pointer.as_deref()))
        .collect();
    assert_eq!(
        found,
        [
            (1, Some("/case/label")),
            (2, None),
            (3, Some("/inputs")),
            (4, Some("/fake_output")),
        ],
        "{:#?}",
        c.diagnostics
    );
    let last = errors_of(&c)[3];
    assert!(
        last.message.contains("check `right-label`"),
        "{}",
        last.message
    );
    assert!(
        last.notes.iter().any(|n| n == "case.label = \"neutral\""),
        "{:?}",
        last.notes
    );
}

#[test]
fn csv_cells_are_typed_by_the_schemas_their_columns_name() {
    let csv = "id,inputs.text,inputs.stars,case.label,case.weight,fake_output.label\n\
               glad,I love it,5,positive,2,positive\n\
               sad,\"I hate it, really\",,negative,,negative\n\
               odd,It is a chair,three,neutral,1.5,neutral\n";
    let pkg = Pkg::new(
        &contract(&entry("evals/labelled.csv", "case.label")),
        &[("evals/labelled.csv", csv)],
    );
    let (_, c) = pkg.compile();
    let errors = errors_of(&c);
    let found: Vec<(u32, &str)> = errors
        .iter()
        .map(|d| {
            (
                d.span.unwrap().start.line,
                d.json_pointer.as_deref().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [(4, "/inputs/stars"), (4, "/case/weight")],
        "{errors:#?}"
    );
    assert!(
        errors[0]
            .message
            .contains("has a cell `three` (column `inputs.stars`) that is not an integer"),
        "{}",
        errors[0].message
    );

    // Fixed, the rows read typed: an empty cell leaves the value out.
    // An integer may be written `2.0`, as in a JSON Lines row.
    pkg.write(
        "evals/labelled.csv",
        &csv.replace("three", "3")
            .replace("1.5", "1")
            .replace(",2,", ",2.0,"),
    );
    let (_, c) = pkg.compile();
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    let interaction = c.interaction.as_ref().unwrap();
    let rows: Vec<_> = templiqx_build::dataset::EntryRows::open(
        interaction,
        &c.contract.as_ref().unwrap().evals[0],
    )
    .unwrap()
    .map(Result::unwrap)
    .collect();
    assert_eq!(rows[0].inputs["stars"], serde_json::json!(5));
    assert_eq!(
        rows[1].inputs["text"],
        serde_json::json!("I hate it, really")
    );
    assert!(!rows[1].inputs.contains_key("stars"));
    assert_eq!(
        rows[1].case,
        Some(serde_json::json!({ "label": "negative" }))
    );

    // A header column that names no part of a row.
    pkg.write("evals/labelled.csv", "id,input.text\nx,y\n");
    let (_, c) = pkg.compile();
    let d = errors_of(&c)[0];
    assert_eq!(d.span.unwrap().start.line, 1);
    assert!(
        d.message.contains("did you mean `inputs`?"),
        "{}",
        d.message
    );
}

#[test]
fn a_case_typo_is_ref_unknown_with_a_suggestion() {
    let pkg = Pkg::new(
        &contract(&entry("evals/labelled.jsonl", "case.lable")),
        &[("evals/labelled.jsonl", GOOD_JSONL)],
    );
    let (_, c) = pkg.compile();
    let d = errors_of(&c)[0];
    assert_eq!(d.code.as_str(), "TQX_REF_UNKNOWN");
    assert_eq!(d.help.as_deref(), Some("did you mean `case.label`?"));
    assert_eq!(d.suggestion.as_ref().unwrap().replacement, "case.label");

    // `case` outside a dataset entry is no root scope.
    let inline = r#"  - id: inline
    inputs: { text: hi }
    expect:
      - id: c
        check: { kind: equals, left: { kind: ref, path: output.label }, right: { kind: ref, path: case.label } }
"#;
    let pkg = Pkg::new(&contract(inline), &[]);
    let (_, c) = pkg.compile();
    let d = errors_of(&c)[0];
    assert_eq!(d.code.as_str(), "TQX_REF_UNKNOWN");
    assert!(
        d.help
            .as_deref()
            .unwrap()
            .contains("`dataset` and a `case_schema`"),
        "{d:?}"
    );
}

#[test]
fn a_dataset_path_is_confined_to_the_package_and_must_exist() {
    for (path, why) in [
        ("../outside.jsonl", "leaves the package root"),
        ("evals/missing.jsonl", "does not exist in the package"),
    ] {
        let pkg = Pkg::new(&contract(&entry(path, "case.label")), &[]);
        let (_, c) = pkg.compile();
        let d = errors_of(&c)[0];
        assert_eq!(d.code.as_str(), "TQX_INCLUDE_UNRESOLVED", "{d:?}");
        assert!(d.message.contains(why), "{}", d.message);
        assert_eq!(d.json_pointer.as_deref(), Some("/evals/0/dataset"));
    }
    // A directory, or a FIFO (which would block the compile until a
    // writer came), is not a data file.
    let pkg = Pkg::new(&contract(&entry("evals/dir.jsonl", "case.label")), &[]);
    std::fs::create_dir_all(pkg.root().join("evals/dir.jsonl")).unwrap();
    #[cfg(unix)]
    {
        let fifo = pkg.root().join("evals/fifo.jsonl");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            pkg.write(
                "contracts/main.yaml",
                &contract(&entry("evals/fifo.jsonl", "case.label")),
            );
            let (_, c) = pkg.compile();
            let d = errors_of(&c)[0];
            assert!(d.message.contains("is not a regular file"), "{d:?}");
            pkg.write(
                "contracts/main.yaml",
                &contract(&entry("evals/dir.jsonl", "case.label")),
            );
        }
    }
    let (_, c) = pkg.compile();
    let d = errors_of(&c)[0];
    assert_eq!(d.code.as_str(), "TQX_INCLUDE_UNRESOLVED", "{d:?}");
    assert!(d.message.contains("is not a regular file"), "{d:?}");
    // Without its package (one text), a dataset cannot be read.
    let c = templiqx_build::compile_str(
        &contract(&entry("evals/labelled.jsonl", "case.label")),
        "main.yaml",
        &CapabilityProfile::parse_list("structured_output"),
    );
    assert!(
        c.diagnostics
            .iter()
            .any(|d| d.code.as_str() == "TQX_INCLUDE_UNRESOLVED")
    );
}

/// A reader of `rows` generated JSONL rows that counts the bytes read.
struct Generated {
    rows: u64,
    next: u64,
    pending: Vec<u8>,
    read: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl std::io::Read for Generated {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pending.is_empty() && self.next < self.rows {
            self.pending = format!(
                "{{\"id\": \"r{0}\", \"inputs\": {{\"text\": \"row {0}\"}}, \"case\": {{\"label\": \"neutral\"}}}}\n",
                self.next
            )
            .into_bytes();
            self.next += 1;
        }
        let n = buf.len().min(self.pending.len());
        buf[..n].copy_from_slice(&self.pending[..n]);
        self.pending.drain(..n);
        self.read.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

#[test]
fn rows_are_read_one_at_a_time_from_a_stream() {
    use templiqx_build::dataset::{Format, Rows};
    let read = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let source = Generated {
        rows: 20_000,
        next: 0,
        pending: Vec::new(),
        read: read.clone(),
    };
    let mut rows = Rows::new(Format::Jsonl, source, "evals/generated.jsonl");
    let first = rows.next().unwrap().unwrap();
    assert_eq!(first.number, 1);
    // Only a buffer's worth of a file of ~1.4 MB was read for the first row.
    let after_first = read.load(std::sync::atomic::Ordering::Relaxed);
    assert!(after_first <= 64 * 1024, "{after_first} bytes read");
    // And every row comes, in order, to the last.
    let last = rows.last().unwrap().unwrap();
    assert_eq!(last.number, 20_000);
}

#[test]
fn a_row_id_given_twice_names_the_line_of_the_first() {
    let rows = r#"{"id": "glad", "inputs": {"text": "I love it"}, "case": {"label": "positive"}}
{"id": "sad", "inputs": {"text": "I hate it"}, "case": {"label": "negative"}}
{"id": "glad", "inputs": {"text": "Lovely"}, "case": {"label": "positive"}}
{"inputs": {"text": "A chair"}, "case": {"label": "neutral"}}
{"id": "4", "inputs": {"text": "A table"}, "case": {"label": "neutral"}}
"#;
    let pkg = Pkg::new(
        &contract(&entry("evals/labelled.jsonl", "case.label")),
        &[("evals/labelled.jsonl", rows)],
    );
    let (_, c) = pkg.compile();
    let errors = errors_of(&c);
    let messages: Vec<&str> = errors.iter().map(|d| d.message.as_str()).collect();
    // Row 4 is named by its number, `4`, which row 5 reuses as its id.
    assert_eq!(
        messages,
        [
            "row `glad` (line 3) of `evals/labelled.jsonl` reuses the id of line 1",
            "row `4` (line 5) of `evals/labelled.jsonl` reuses the id of line 4",
        ],
        "{errors:?}"
    );
    assert!(errors.iter().all(|d| d.code == Code::EvalInvalid));
}

/// The rows of a CSV file with blank lines and a quoted cell over two
/// lines, its lines ended by `eol`: the `odd` row's bad cell, the `short`
/// row's missing cells and the `late` row's bad cell, as (line, first byte
/// of the line, the line as written, message).
fn csv_problems(eol: &str) -> (String, Vec<(u32, usize, usize, String)>) {
    let lines = [
        "id,inputs.text,inputs.stars,case.label",
        "",
        "glad,I love it,5,positive",
        "",
        "",
        "odd,It is a chair,three,neutral",
        "short,x",
        "\"multi\",\"line one",
        "line two\",2,neutral",
        "late,Ünïcode,x,neutral",
    ];
    let text = lines.join(eol) + eol;
    let pkg = Pkg::new(
        &contract(&entry("evals/labelled.csv", "case.label")),
        &[("evals/labelled.csv", &text)],
    );
    let (_, c) = pkg.compile();
    let found = errors_of(&c)
        .iter()
        .map(|d| {
            let span = d.span.unwrap();
            assert_eq!(span.start.line, span.end.line, "{d:?}");
            assert_eq!(span.start.column, 1, "{d:?}");
            let line = &text[span.bytes.0..span.bytes.1];
            assert_eq!(
                u32::try_from(line.chars().count()).unwrap() + 1,
                span.end.column,
                "{d:?}"
            );
            (
                span.start.line,
                span.bytes.0,
                span.bytes.1,
                d.message.clone(),
            )
        })
        .collect();
    (text, found)
}

#[test]
fn csv_lines_are_the_lines_of_the_file_after_blank_lines_and_with_any_line_break() {
    for eol in ["\n", "\r\n", "\r"] {
        let (text, found) = csv_problems(eol);
        let at = |start: &str, line: &str| {
            let byte = text.find(start).unwrap();
            (byte, byte + line.len())
        };
        let odd = at("odd,", "odd,It is a chair,three,neutral");
        let short = at("short,", "short,x");
        let late = at("late,", "late,Ünïcode,x,neutral");
        let want = [
            (
                6,
                odd,
                "row `odd` (line 6) of `evals/labelled.csv` at /inputs/stars has a cell `three`",
            ),
            (
                7,
                short,
                "line 7 of `evals/labelled.csv` has 2 cells, but the header has 4",
            ),
            (
                10,
                late,
                "row `late` (line 10) of `evals/labelled.csv` at /inputs/stars has a cell `x`",
            ),
        ];
        assert_eq!(found.len(), want.len(), "{eol:?}: {found:#?}");
        for ((line, start, end, message), (want_line, (want_start, want_end), want_message)) in
            found.iter().zip(want)
        {
            assert_eq!(
                (*line, *start, *end),
                (want_line, want_start, want_end),
                "{eol:?}: {message}"
            );
            assert!(message.starts_with(want_message), "{eol:?}: {message}");
        }
    }
}

#[test]
fn csv_cell_problems_name_the_row_by_its_id_and_say_nothing_twice() {
    // A `case` cell that is not JSON: one error, not also "has no `case`".
    let csv = "id,inputs.text,case\nfirst,hi,{\"label\": \"positive\"}\nsecond,hi,{label\n";
    let csv = csv.replace(
        "{\"label\": \"positive\"}",
        "\"{\"\"label\"\": \"\"positive\"\"}\"",
    );
    let pkg = Pkg::new(
        &contract(&entry("evals/labelled.csv", "case.label")),
        &[("evals/labelled.csv", &csv)],
    );
    let (_, c) = pkg.compile();
    let messages: Vec<&str> = errors_of(&c).iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "row `second` (line 3) of `evals/labelled.csv` at /case has a cell `{label` (column `case`) that is not JSON"
        ],
    );
    // Nor for a `case` column below it; without an id, the row's number.
    pkg.write(
        "evals/labelled.csv",
        "inputs.text,case.label,case.weight\nhi,positive,heavy\n",
    );
    let (_, c) = pkg.compile();
    let messages: Vec<&str> = errors_of(&c).iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "row 1 (line 2) of `evals/labelled.csv` at /case/weight has a cell `heavy` (column `case.weight`) that is not an integer"
        ],
    );
}

#[test]
fn an_unclosed_csv_quote_is_named_at_its_line() {
    let csv = "id,inputs.text,case.label\nfirst,hi,positive\nsecond,\"unclosed,negative\nthird,hi,neutral\n";
    let pkg = Pkg::new(
        &contract(&entry("evals/labelled.csv", "case.label")),
        &[("evals/labelled.csv", csv)],
    );
    let (_, c) = pkg.compile();
    let errors = errors_of(&c);
    let messages: Vec<&str> = errors.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "line 3 of `evals/labelled.csv` has a quoted cell that is never closed: its quote at column 8 opens a cell that runs to the end of the file"
        ],
    );
    let span = errors[0].span.unwrap();
    assert_eq!((span.start.line, span.start.column), (3, 8));
    assert_eq!(&csv[span.bytes.0..span.bytes.1], "\"");
    // Also when the cells it swallowed happen to be as many as the header's.
    pkg.write(
        "evals/labelled.csv",
        "id,inputs.text,case.label\nfirst,hi,\"positive\nsecond,hi,neutral\n",
    );
    let (_, c) = pkg.compile();
    let messages: Vec<String> = errors_of(&c).iter().map(|d| d.message.clone()).collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(messages[0].starts_with("line 2 of `evals/labelled.csv` has a quoted cell that is never closed: its quote at column 10"), "{messages:?}");
}

#[test]
fn a_byte_order_mark_starts_a_jsonl_file_and_nothing_else() {
    let pkg = Pkg::new(
        &contract(&entry("evals/labelled.jsonl", "case.label")),
        &[("evals/labelled.jsonl", &format!("\u{feff}{GOOD_JSONL}"))],
    );
    let (_, c) = pkg.compile();
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);

    // A bad value on the first line: its column is counted from the first
    // character after the mark, its bytes in the text without it (as every
    // span of a file that starts with one).
    let first = r#"{"id": "a", "inputs": {"text": ""}, "case": {"label": "neutral"}}"#;
    pkg.write("evals/labelled.jsonl", &format!("\u{feff}{first}\n"));
    let (_, c) = pkg.compile();
    let errors = errors_of(&c);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let span = errors[0].span.unwrap();
    let byte = first.find(r#""""#).unwrap();
    let column = u32::try_from(byte).unwrap() + 1;
    assert_eq!((span.start.line, span.start.column), (1, column));
    assert_eq!(span.bytes, (byte, byte + 2));

    // A mark anywhere else is named.
    let text = format!("{first}\n\u{feff}{first}\n");
    pkg.write("evals/labelled.jsonl", &text);
    let (_, c) = pkg.compile();
    let messages: Vec<String> = errors_of(&c)
        .iter()
        .filter(|d| d.span.unwrap().start.line == 2)
        .map(|d| d.message.clone())
        .collect();
    assert_eq!(
        messages,
        [
            "line 2 of `evals/labelled.jsonl` has a byte order mark (U+FEFF) at column 1, which only the start of the file may have"
        ],
    );
}

#[test]
fn a_byte_order_mark_starts_a_csv_file() {
    let csv = "\u{feff}id,inputs.text,case.label\nfirst,hi,positive\nsecond,hi,\n";
    let pkg = Pkg::new(
        &contract(&entry("evals/labelled.csv", "case.label")),
        &[("evals/labelled.csv", csv)],
    );
    let (_, c) = pkg.compile();
    let errors = errors_of(&c);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let span = errors[0].span.unwrap();
    assert_eq!(span.start.line, 3);
    // Bytes in the text without the mark.
    let text = csv.strip_prefix('\u{feff}').unwrap();
    assert_eq!(&text[span.bytes.0..span.bytes.1], "second,hi,");
}

/// A whole `inputs` (or `context`) column holds JSON, an object of the
/// fields, as a whole `case` column does; its fields are checked as a JSON
/// Lines row's are (`docs/format.md`, "Datasets").
#[test]
fn a_whole_inputs_column_holds_a_json_object() {
    let csv = "id,inputs,case.label,fake_output.label\n\
               glad,\"{\"\"text\"\": \"\"I love it\"\", \"\"stars\"\": 5}\",positive,positive\n\
               bad,\"{\"\"text\"\": \"\"\"\"}\",negative,negative\n\
               odd,not json,neutral,neutral\n";
    let pkg = Pkg::new(
        &contract(&entry("evals/labelled.csv", "case.label")),
        &[("evals/labelled.csv", csv)],
    );
    let (_, c) = pkg.compile();
    let found: Vec<(u32, &str, &str)> = errors_of(&c)
        .iter()
        .map(|d| {
            (
                d.span.unwrap().start.line,
                d.json_pointer.as_deref().unwrap(),
                d.message.as_str(),
            )
        })
        .collect();
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!((found[0].0, found[0].1), (3, "/inputs/text"), "{found:#?}");
    assert!(
        found[0].2.contains("expected at least 1 character"),
        "{found:#?}"
    );
    assert_eq!((found[1].0, found[1].1), (4, "/inputs"), "{found:#?}");
    assert!(
        found[1]
            .2
            .contains("has a cell `not json` (column `inputs`) that is not JSON"),
        "{found:#?}"
    );
}

/// A JSON Lines line that is not JSON is reported where the parser stopped
/// in it, not at its first column.
#[test]
fn a_line_that_is_not_json_is_reported_where_it_breaks() {
    let line = r#"{"id": "a", "inputs": {"text": "x"} "case": {"label": "positive"}}"#;
    let pkg = Pkg::new(
        &contract(&entry("evals/labelled.jsonl", "case.label")),
        &[("evals/labelled.jsonl", &format!("{line}\n"))],
    );
    let (_, c) = pkg.compile();
    let errors = errors_of(&c);
    let [d] = &errors[..] else {
        panic!("{errors:#?}")
    };
    assert!(
        d.message
            .starts_with("line 1 of `evals/labelled.jsonl` is not JSON: "),
        "{d:?}"
    );
    // The parser stops at the `"` that should have been a `,`.
    let column = u32::try_from(line.find(r#" "case""#).unwrap()).unwrap() + 2;
    assert_eq!(
        d.span.unwrap().start,
        templiqx_contracts::Position { line: 1, column },
        "{d:?}"
    );
}
