//! Builds real host crates with cargo: rebuild tracking of partials (macro
//! and build.rs), byte-identical generated code across target directories,
//! awkward property names under `#![deny(warnings)]` and clippy, JSON
//! round trips of generated types, and generated eval tests.
//!
//! The hosts live in temporary directories with path dependencies on this
//! workspace and a copy of its `Cargo.lock`, and build `--offline` (the
//! workspace build has already fetched every crate). They share one target
//! directory under `target/host-tests`, so dependencies compile once.

use crate::common::host::{Host, shared_target};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const CONTRACT: &str = r#"api_version: templiqx/v1alpha1
id: note
version: 0.1.0
inputs:
  subject: { schema: { type: string }, required: true }
capabilities: [structured_output]
messages:
  - role: user
    content:
      - { kind: include, path: partials/intro.yaml }
      - kind: interpolate
        expression: { kind: ref, path: inputs.subject }
output_schema:
  type: object
  additionalProperties: false
  required: [ok]
  properties: { ok: { type: boolean } }
evals:
  - id: first
    inputs: { subject: alpha }
    fake_output: { ok: true }
  - id: second
    inputs: { subject: beta }
    fake_output: { ok: false }
    expect:
      - id: not-ok
        check: { kind: not, operand: { kind: ref, path: output.ok } }
      - id: subject
        check: { kind: equals, left: { kind: length, of: { kind: ref, path: inputs.subject } }, right: { kind: literal, value: 4 } }
"#;

const AWKWARD: &str = r#"api_version: templiqx/v1alpha1
id: awkward
version: 0.1.0
inputs:
  type: { schema: { type: string }, required: true }
  self: { schema: { type: integer }, required: false }
  first-name: { schema: { type: string }, required: true }
  naïve: { schema: { type: boolean }, required: true }
  2fa: { schema: { type: [string, "null"] }, required: true }
  名前: { schema: { type: string }, required: false }
  address:
    schema:
      type: object
      additionalProperties: false
      properties:
        city: { type: string, description: The city of the sender. }
    required: false
    description: Where the sender lives.
capabilities: [structured_output]
messages:
  - role: user
    content:
      - { kind: interpolate, expression: { kind: ref, path: inputs.type } }
      - { kind: interpolate, expression: { kind: ref, path: inputs.first-name } }
output_schema:
  type: object
  additionalProperties: false
  required: [type, match, kind]
  properties:
    type: { type: string, enum: [a-b, A_B, "", "2x", self, Self, 日本] }
    match: { type: number }
    kind:
      type: object
      required: [items]
      properties:
        items: { type: array, items: { type: object, properties: { crate: { type: integer } } } }
    super: { type: [boolean, "null"] }
    address:
      type: object
      description: Where to send the reply.
      properties:
        street: { type: string }
evals:
  - id: fn
    inputs: { type: t, first-name: Ada, naïve: true, 2fa: null }
    fake_output: { type: Self, match: 1, kind: { items: [] } }
  - id: Fn
    inputs: { type: t, first-name: Ada, naïve: false, 2fa: "x" }
    fake_output: { type: "", match: 2, kind: { items: [] } }
"#;

const LOOSE: &str = r#"api_version: templiqx/v1alpha1
id: loose
version: 0.1.0
inputs:
  meta: { schema: { type: object }, required: true }
capabilities: [structured_output]
messages:
  - role: user
    content:
      - { kind: interpolate, expression: { kind: ref, path: inputs.meta }, filters: [json] }
output_schema:
  type: [object, "null"]
  properties: { n: { type: integer } }
"#;

const MAIN: &str = r##"#![deny(warnings)]

include!(concat!(env!("OUT_DIR"), "/templiqx_contracts.rs"));

templiqx::include_contract!("pkg/contracts/note.yaml", target = ["structured_output"]);

fn main() {
    let r = note::render(&note::Inputs { subject: "world".to_owned() }, &note::Context {}).unwrap();
    println!("{}", r.messages[0].content);
    let built = built::note::render(&built::note::Inputs { subject: "world".to_owned() }, &built::note::Context {}).unwrap();
    println!("{}", built.messages[0].content);

    let inputs = built::awkward::Inputs {
        r#type: "t".to_owned(),
        self_: Some(2),
        first_name: "Ada".to_owned(),
        naive: true,
        _2fa: None,
        ming_qian: Some("Ada".to_owned()),
        address: Some(built::awkward::Address { city: Some("Utrecht".to_owned()) }),
    };
    let json = templiqx::__private::serde_json::to_value(&inputs).unwrap();
    assert_eq!(json["first-name"], "Ada");
    assert_eq!(json["naïve"], true);
    assert!(json["2fa"].is_null());
    assert_eq!(json["名前"], "Ada");
    assert_eq!(json["address"]["city"], "Utrecht");
    // `len` is computed without walking `entries`, and agrees with it.
    use templiqx::__private::ObjectView as _;
    assert_eq!((inputs.len(), inputs.entries().count()), (7, 7));
    let unset = built::awkward::Inputs { self_: None, ming_qian: None, address: None, ..inputs.clone() };
    assert_eq!((unset.len(), unset.entries().count()), (4, 4));
    let mut unknown = json.clone();
    unknown["address"]["zip"] = "3511".into();
    let back: built::awkward::Inputs = templiqx::__private::serde_json::from_value(json).unwrap();
    assert_eq!(back, inputs);
    // `additionalProperties: false`: the input `Address` denies unknown members.
    let denied = templiqx::__private::serde_json::from_value::<built::awkward::Inputs>(unknown).unwrap_err();
    assert!(denied.to_string().contains("zip"), "{denied}");
    built::awkward::render(&inputs, &built::awkward::Context {}).unwrap();

    let output = templiqx::__private::serde_json::json!({
        "type": "a-b", "match": 1.5, "kind": { "items": [{ "crate": 3, "extra": "kept" }], "more": [1] }, "super": null,
        "address": { "street": "Oudegracht", "extra": 1 }
    });
    let decoded = built::awkward::decode_output(&output).unwrap();
    assert_eq!(decoded.r#type, built::awkward::Type::AB);
    // Two objects preferring the name `Address`: the input's gets it, the
    // output's is prefixed with its parent type's name; it keeps extras.
    let address: &built::awkward::OutputAddress = decoded.address.as_ref().unwrap();
    assert_eq!(address.street.as_deref(), Some("Oudegracht"));
    assert_eq!(address.additional_properties["extra"], 1);
    // `a-b` and `A_B` both become `AB`: the second gets a number.
    let a_b = templiqx::__private::serde_json::json!({"type": "A_B", "match": 1, "kind": {"items": []}});
    let a_b = built::awkward::decode_output(&a_b).unwrap().r#type;
    assert_eq!(a_b, built::awkward::Type::AB2);
    assert_ne!(a_b, built::awkward::Type::AB);
    assert_eq!((a_b.as_str(), built::awkward::Type::AB.as_str()), ("A_B", "a-b"));
    let japan = templiqx::__private::serde_json::json!({"type": "日本", "match": 1, "kind": {"items": []}});
    assert_eq!(built::awkward::decode_output(&japan).unwrap().r#type, built::awkward::Type::RiBen);
    let again = templiqx::__private::serde_json::to_value(&decoded).unwrap();
    assert_eq!(again, output, "generated output types round-trip JSON");
    println!("round trip ok");

    // An object without properties is a JSON map; a nullable output an Option.
    let mut meta = templiqx::JsonMap::new();
    meta.insert("b".to_owned(), 1.into());
    meta.insert("a".to_owned(), 2.into());
    let r = built::loose::render(&built::loose::Inputs { meta }, &built::loose::Context {}).unwrap();
    assert_eq!(r.messages[0].content, r#"{"a":2,"b":1}"#);
    assert_eq!(built::loose::decode_output(&templiqx::__private::serde_json::Value::Null).unwrap(), None);
    let n = built::loose::decode_output(&templiqx::__private::serde_json::json!({"n": 3.0})).unwrap();
    assert_eq!(n.and_then(|v| v.n), Some(3));

    // An extra member named like a declared property never shadows it.
    let mut extra = templiqx::JsonMap::new();
    extra.insert("items".to_owned(), "shadow".into());
    extra.insert("zzz".to_owned(), 1.into());
    let kind = built::awkward::Kind { items: Vec::new(), additional_properties: extra };
    assert_eq!(
        templiqx::__private::canonical::to_canonical_string(&kind),
        r#"{"items":[],"zzz":1}"#
    );
    assert_eq!((kind.len(), kind.entries().count()), (2, 2));
    println!("loose ok");
}
"##;

/// A host crate named `name` with a `build.rs` that compiles the package
/// `pkg` for `structured_output`.
fn scaffold(name: &str) -> Host {
    let host = Host::new(name, true);
    host.write(
        "build.rs",
        "fn main() {\n    if let Err(e) = templiqx_build::Builder::new().target([\"structured_output\"]).package(\"pkg\").compile() {\n        eprintln!(\"{e}\");\n        std::process::exit(1);\n    }\n}\n",
    );
    host
}

/// The host of most tests: the package `pkg` of the contracts above,
/// compiled by both front ends.
fn note_host() -> Host {
    let host = scaffold("host-under-test");
    host.write("pkg/templiqx.yaml", "api_version: templiqx/v1alpha1\npackage: host\nversion: 0.1.0\ncontracts: [note, awkward, loose]\n");
    host.write("pkg/contracts/note.yaml", CONTRACT);
    host.write("pkg/contracts/awkward.yaml", AWKWARD);
    host.write("pkg/contracts/loose.yaml", LOOSE);
    host.write(
        "pkg/partials/intro.yaml",
        "- { kind: text, value: 'Hello v1, ' }\n",
    );
    // The build.rs output lives in a module so both front ends can coexist.
    host.write(
        "src/main.rs",
        &MAIN.replace(
            "include!(concat!(env!(\"OUT_DIR\"), \"/templiqx_contracts.rs\"));",
            "mod built {\n    include!(concat!(env!(\"OUT_DIR\"), \"/templiqx_contracts.rs\"));\n}",
        ),
    );
    host
}

/// The generated file of `host`'s most recent build in `target`. The
/// tests share `target`, so the build directory is the one whose build
/// script output tracks files of `host` (`cargo:rerun-if-changed=<host>/…`).
fn generated(target: &Path, host: &Host) -> String {
    let build = target.join("debug/build");
    let marker = format!("cargo:rerun-if-changed={}/", host.path().display());
    let mut newest: Option<(std::time::SystemTime, PathBuf)> = None;
    for entry in fs::read_dir(&build).unwrap() {
        let dir = entry.unwrap().path();
        let ours = fs::read_to_string(dir.join("output")).is_ok_and(|o| o.contains(&marker));
        let f = dir.join("out/templiqx_contracts.rs");
        if !ours {
            continue;
        }
        if let Ok(meta) = fs::metadata(&f) {
            let t = meta.modified().unwrap();
            if newest.as_ref().is_none_or(|(n, _)| t > *n) {
                newest = Some((t, f));
            }
        }
    }
    fs::read_to_string(newest.expect("a generated file").1).unwrap()
}

/// The doc comments and attributes right above the first line of `source`
/// that starts (after indentation) with `item`, one per entry, trimmed (an
/// attribute that prettyplease wrapped over several lines is joined).
fn header(source: &str, item: &str) -> Vec<String> {
    let lines: Vec<&str> = source.lines().map(str::trim).collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(item))
        .unwrap_or_else(|| panic!("no `{item}` in the generated code:\n{source}"));
    let mut header = Vec::new();
    let mut i = at;
    while i > 0 {
        let line = lines[i - 1];
        if line.starts_with("///") || line.starts_with("#[") {
            header.push(line.to_owned());
            i -= 1;
        } else if line == ")]" {
            // The end of a wrapped attribute: join it from its `#[`.
            let open = lines[..i - 1]
                .iter()
                .rposition(|l| l.starts_with("#["))
                .expect("the start of the attribute");
            header.push(lines[open..i].concat());
            i = open;
        } else {
            break;
        }
    }
    header.reverse();
    header
}

/// What the generated code of the awkward contract says about its types:
/// descriptions become doc comments, closed objects deny unknown fields.
fn check_awkward_generated(generated: &str) {
    let start = generated
        .find("pub mod awkward {")
        .expect("the awkward module");
    let source = &generated[start..];
    let source = match source.find("\npub mod ") {
        Some(end) => &source[..end],
        None => source,
    };
    // Whether a struct's `Decode` impl refuses undeclared members.
    let closed = |name: &str| {
        let at = source
            .find(&format!("impl __tqx::Decode for {name} {{"))
            .unwrap_or_else(|| panic!("no `Decode` impl of {name}:\n{source}"));
        let rest = &source[at..];
        let call = rest.find("::of::<Self>(value, ").expect("the members read");
        rest[call..]
            .split_once(')')
            .expect("the call's end")
            .0
            .ends_with("true")
    };
    // `Inputs` is always closed; the input `Address` is closed by its schema.
    for name in ["Inputs", "Address", "Output"] {
        assert!(closed(name), "{name}");
    }
    // Open objects keep extras instead.
    for name in ["OutputAddress", "Kind"] {
        assert!(!closed(name), "{name}");
    }
    // A field declaration's `description`: the first `pub address:` is the
    // field of `Inputs` (the output's comes after `OutputAddress`).
    let h = header(source, "pub address:");
    assert_eq!(
        h.first().map(String::as_str),
        Some("/// Where the sender lives."),
        "{h:#?}"
    );
    assert!(
        h.iter().any(|a| a == "/// Optional: `None` means absent."),
        "{h:#?}"
    );
    // A property schema's `description`, on a field and on its struct.
    let h = header(source, "pub city:");
    assert_eq!(
        h.first().map(String::as_str),
        Some("/// The city of the sender."),
        "{h:#?}"
    );
    let h = header(source, "pub struct OutputAddress {");
    assert_eq!(
        h.first().map(String::as_str),
        Some("/// Where to send the reply."),
        "{h:#?}"
    );
    let output = &source[source.find("pub struct Output {").unwrap()..];
    let h = header(output, "pub address:");
    assert_eq!(
        h.first().map(String::as_str),
        Some("/// Where to send the reply."),
        "{h:#?}"
    );
    // The enum variants of `a-b` and `A_B`, documented and written as
    // their values.
    let h = header(source, "AB2,");
    assert!(h.iter().any(|a| a == "/// `A_B`"), "{h:#?}");
    let h = header(source, "AB,");
    assert!(h.iter().any(|a| a == "/// `a-b`"), "{h:#?}");
    assert!(source.contains("Type::AB2 => \"A_B\","), "{source}");
    assert!(source.contains("Type::AB => \"a-b\","), "{source}");
}

#[test]
fn hosts_build_rebuild_on_partial_edits_and_generate_identical_code() {
    let host = note_host();
    let target = shared_target();
    let out = host.run(&target);
    assert!(
        out.contains("Hello v1, world\nHello v1, world\nround trip ok\nloose ok"),
        "{out}"
    );
    let first = generated(&target, &host);
    check_awkward_generated(&first);

    // Editing only the partial rebuilds the host: no .rs file is touched.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    host.write(
        "pkg/partials/intro.yaml",
        "- { kind: text, value: 'Hello v2, ' }\n",
    );
    let out = host.run(&target);
    assert!(
        out.contains("Hello v2, world\nHello v2, world"),
        "both the macro and build.rs saw the edit:\n{out}"
    );

    // Byte-identical generated code in a different target directory.
    host.write(
        "pkg/partials/intro.yaml",
        "- { kind: text, value: 'Hello v1, ' }\n",
    );
    let other = tempfile::tempdir().unwrap();
    let out = host.cargo(&["build"], other.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(generated(other.path(), &host), first);
    assert!(first.starts_with("// @generated by templiqx-build"));

    // Generated code passes clippy with warnings denied.
    let out = host.cargo(&["clippy", "--", "-D", "warnings"], &target);
    assert!(
        out.status.success(),
        "clippy:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn generated_eval_tests_run_and_a_wrong_fake_output_fails_exactly_that_test() {
    let host = note_host();
    let target = shared_target();
    let out = host.cargo(&["test", "--", "--test-threads=1"], &target);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in [
        "note::evals::first",
        "note::evals::second",
        "built::note::evals::first",
        "built::note::evals::second",
        "built::awkward::evals::fn_",
        "built::awkward::evals::fn_2",
    ] {
        assert!(
            stdout.contains(&format!("test {name} ... ok")),
            "{name} missing:\n{stdout}"
        );
    }

    host.write(
        "pkg/contracts/note.yaml",
        &CONTRACT.replace("fake_output: { ok: false }", "fake_output: { ok: \"no\" }"),
    );
    let out = host.cargo(&["test", "--", "--test-threads=1"], &target);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success());
    assert!(
        stdout.contains("test built::note::evals::second ... FAILED"),
        "{stdout}"
    );
    assert!(
        stdout.contains("test note::evals::second ... FAILED"),
        "{stdout}"
    );
    assert!(
        stdout.contains("test built::note::evals::first ... ok"),
        "{stdout}"
    );
    assert!(
        stdout.contains("test note::evals::first ... ok"),
        "{stdout}"
    );
    assert!(
        stdout.contains("TQX_OUTPUT_SCHEMA"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // A schema-valid output that an `expect` check refutes fails exactly
    // that fixture's test, naming the check, its expression and the value.
    host.write(
        "pkg/contracts/note.yaml",
        &CONTRACT.replace("fake_output: { ok: false }", "fake_output: { ok: true }"),
    );
    let out = host.cargo(&["test", "--", "--test-threads=1"], &target);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success());
    for line in [
        "test built::note::evals::second ... FAILED",
        "test note::evals::second ... FAILED",
        "test note::evals::first ... ok",
        "note: 1 of 2 `expect` checks failed against fake_output:",
        "check `not-ok` failed: not(output.ok)",
        "  output.ok = true",
    ] {
        assert!(stdout.contains(line), "{line}:\n{stdout}");
    }
    assert!(!stdout.contains("check `subject` failed"), "{stdout}");
}

/// Hostile names in every position (`docs/format.md`, "Generated Rust",
/// "Names"): keywords of every edition, the names that cannot be raw,
/// names of the generated module's own items, names that differ only by
/// case or punctuation, leading digits, non-ASCII.
const HOSTILE: &str = r#"api_version: templiqx/v1alpha1
id: self
version: 0.1.0
inputs:
  self:
    schema: { type: object, additionalProperties: false, required: [name], properties: { name: { type: string } } }
    required: true
  super: { schema: { type: string }, required: false }
  crate: { schema: { type: integer }, required: false }
  _: { schema: { type: boolean }, required: false }
  async: { schema: { type: string }, required: false }
  try: { schema: { type: string }, required: false }
  gen: { schema: { type: string }, required: false }
  dyn: { schema: { type: string }, required: false }
  union: { schema: { type: string }, required: false }
  macro_rules: { schema: { type: string }, required: false }
  raw: { schema: { type: string }, required: false }
  Inputs: { schema: { type: object, properties: { Inputs: { type: string } } }, required: false }
  render:
    schema:
      type: object
      additionalProperties: false
      properties:
        Self: { type: object, properties: { type: { type: string } } }
        crate: { type: string, enum: [self, Self, a-b, A_B, "", "2x", 日本, Inputs, union, gen] }
        union: { type: array, items: { type: object, properties: { async: { type: integer } } } }
        additional_properties: { type: integer }
    required: false
  2fa: { schema: { type: [string, "null"] }, required: true }
  名前: { schema: { type: string }, required: false }
context:
  Self: { schema: { type: string }, required: false }
  decode_output: { schema: { type: string }, required: false }
  INTERACTION: { schema: { type: string }, required: false }
  InputsFields: { schema: { type: object, properties: { x: { type: integer } } }, required: false }
capabilities: [structured_output]
messages:
  - role: user
    content:
      - { kind: interpolate, expression: { kind: ref, path: inputs.self.name } }
output_schema:
  type: object
  additionalProperties: false
  required: [Output]
  properties:
    Output: { type: object, properties: { Context: { type: string, enum: [Output, output, OUTPUT] } } }
    Inputs: { type: object, properties: { self: { type: integer } } }
    OutputFields: { type: object, properties: { gen: { type: integer } } }
    static: { type: [integer, "null"] }
    SelfValue: { type: object, properties: { v: { type: integer } } }
    self-value-x: { type: object, properties: { Self: { type: object, properties: { w: { type: integer } } } } }
evals:
  - id: self
    inputs: { self: { name: a }, 2fa: null }
    fake_output: { Output: {} }
  - id: Self
    inputs: { self: { name: b }, 2fa: x }
    fake_output: { Output: { Context: OUTPUT } }
  - id: "2"
    inputs: { self: { name: c }, 2fa: null, render: { crate: 日本 } }
    fake_output: { Output: {}, static: 2.0 }
  - id: gen
    inputs: { self: { name: d }, 2fa: null }
    fake_output: { Output: {} }
  - id: macro_rules
    inputs: { self: { name: e }, 2fa: null }
    fake_output: { Output: {} }
"#;

/// A small contract whose id is `{id}`: the module name is hostile.
fn hostile_id(id: &str) -> String {
    format!(
        "api_version: templiqx/v1alpha1\nid: {id}\nversion: 0.1.0\ncapabilities: [structured_output]\nmessages:\n  - role: user\n    content:\n      - {{ kind: text, value: hi }}\noutput_schema: {{ type: object }}\n"
    )
}

/// Descriptions that Markdown and rustdoc would read as code, HTML and
/// links (`docs/format.md`, "Generated Rust", "Doc comments").
const HOSTILE_DOCS: &str = r#"api_version: templiqx/v1alpha1
id: docs
version: 0.1.0
description: |
  A contract whose docs are hostile.
  ```
  fn main() { <answer> }
  ```
      indented(code);
  See [REDACTED] and [`Inputs`] at https://example.com/a_b.
inputs:
  count:
    schema: { type: integer, minimum: 0 }
    required: true
    description: "`count` is *emphasised* # not a heading <b>bold</b> &amp; [link](x) ~~gone~~ | pipe"
  reference: { schema: { type: [string, "null"] }, required: true, description: "```rust\nlet x: u8 = 300;\n```" }
  name:
    schema:
      type: object
      description: "    four spaces: a code block?\n<answer>\n[REDACTED]"
      properties:
        tone: { type: string, enum: ["<b>", "`x`", "[y]", "*z*"], description: "<script>alert(1)</script>" }
    required: false
capabilities: [structured_output]
messages:
  - role: user
    content:
      - { kind: interpolate, expression: { kind: ref, path: inputs.count } }
output_schema:
  type: object
  properties:
    answer: { type: string, description: "```\n<answer>\n```" }
evals:
  - id: "`weird` <id>"
    inputs: { count: 2.0, reference: null }
    fake_output: { answer: "ok" }
"#;

/// The host's library: the generated modules, documented and linted.
const HOSTILE_LIB: &str = r##"#![deny(warnings)]
#![warn(missing_docs)]
//! A host over hostile names and descriptions.

/// The contracts of `pkg`.
pub mod built {
    include!(concat!(env!("OUT_DIR"), "/templiqx_contracts.rs"));

    /// Crates named by path beside the generated modules: contracts with
    /// the ids `std`, `core` and `templiqx` do not shadow them.
    pub fn crates_in_scope() -> usize {
        std::env::args().count() + core::mem::size_of::<u8>() + std::any::type_name::<templiqx::Locale>().len()
    }
}
"##;

const HOSTILE_MAIN: &str = r##"#![deny(warnings)]
//! Runs the hostile host's checks.

use hostile_host::built;
use built::self_ as hostile;
use templiqx::__private::serde_json::{self, json};

fn main() {
    // `self` of an object schema: a usable struct, not `pub struct Self`.
    let inputs = hostile::Inputs {
        self_: hostile::SelfValue { name: "Ada".to_owned() },
        super_: None,
        crate_: Some(1),
        __: None,
        r#async: None,
        r#try: Some("t".to_owned()),
        r#gen: None,
        r#dyn: None,
        r#union: None,
        r#macro_rules: None,
        r#raw: None,
        inputs: None,
        render: Some(hostile::Render {
            self_: None,
            crate_: Some(hostile::Crate::SelfValue2),
            r#union: None,
            additional_properties: Some(1),
        }),
        _2fa: None,
        ming_qian: None,
    };
    let rendered = hostile::render(&inputs, &hostile::Context::default()).unwrap();
    assert_eq!(rendered.messages[0].content, "Ada");
    let json = serde_json::to_value(&inputs).unwrap();
    assert_eq!(json["self"]["name"], "Ada");
    assert_eq!(json["render"]["crate"], "Self");
    assert!(json["2fa"].is_null());
    let back: hostile::Inputs = serde_json::from_value(json).unwrap();
    assert_eq!(back, inputs);
    let output = hostile::decode_output(&json!({"Output": {"Context": "output"}, "static": 3.0, "Inputs": {"self": 1}})).unwrap();
    assert_eq!(output.output.context, Some(hostile::OutputOutputContext::Output2));
    assert_eq!(output.r#static, Some(Some(3)));
    assert_eq!(output.inputs.as_ref().and_then(|i| i.self_), Some(1));
    let _: Option<hostile::OutputOutputFields> = output.output_fields;
    let _: Option<hostile::OutputSelfValue> = output.self_value;
    let x: Option<hostile::SelfValueX> = output.self_value_x;
    let _: Option<hostile::SelfValueXSelfValue> = x.and_then(|x| x.self_);
    let _: Option<hostile::RenderSelfValue> = None;
    let _: Option<built::self_::ContextInputsFields> = None;
    let _: Option<hostile::InputsInputs> = None;
    assert_eq!(hostile::CONTRACT_ID, "self");
    for id in [built::crate_::CONTRACT_ID, built::super_::CONTRACT_ID, built::gen_::CONTRACT_ID, built::try_::CONTRACT_ID,
               built::union_::CONTRACT_ID, built::macro_rules_::CONTRACT_ID, built::async_::CONTRACT_ID,
               built::inputs::CONTRACT_ID, built::render::CONTRACT_ID] {
        assert!(!id.is_empty());
    }

    // `count: 2.0` is an integer; a required nullable key may be null but
    // not missing, in the typed path as in render.
    let docs: built::docs::Inputs = serde_json::from_value(json!({"count": 2.0, "reference": null})).unwrap();
    assert_eq!((docs.count, docs.reference.clone()), (2, None));
    let missing = json!({"count": 1, "name": {"tone": "<b>"}});
    let typed = serde_json::from_value::<built::docs::Inputs>(missing.clone()).unwrap_err();
    assert!(typed.to_string().contains("TQX_VALUE_INVALID"), "{typed}");
    let untyped = templiqx::render(&built::docs::INTERACTION, missing.as_object().unwrap(), &serde_json::Map::new()).unwrap_err();
    assert_eq!(untyped.diagnostics[0].json_pointer.as_deref(), Some("/inputs/reference"));
    println!("hostile ok");
}
"##;

#[test]
fn hostile_names_and_descriptions_build_lint_document_and_run() {
    let host = scaffold("hostile-host");
    let ids = [
        "crate",
        "super",
        "gen",
        "try",
        "union",
        "macro_rules",
        "async",
        "Inputs",
        "render",
        "std",
        "core",
        "templiqx",
    ];
    let listed: Vec<String> = ["self", "docs"]
        .iter()
        .chain(ids.iter())
        .map(|s| format!("\"{s}\""))
        .collect();
    host.write(
        "pkg/templiqx.yaml",
        &format!(
            "api_version: templiqx/v1alpha1\npackage: hostile\nversion: 0.1.0\ncontracts: [{}]\n",
            listed.join(", ")
        ),
    );
    host.write("pkg/contracts/self.yaml", HOSTILE);
    host.write("pkg/contracts/docs.yaml", HOSTILE_DOCS);
    for id in ids {
        host.write(&format!("pkg/contracts/{id}.yaml"), &hostile_id(id));
    }
    host.write("src/lib.rs", HOSTILE_LIB);
    host.write("src/main.rs", HOSTILE_MAIN);
    let target = shared_target();
    let out = host.run(&target);
    assert!(out.contains("hostile ok"), "{out}");

    // Eval tests (including `count: 2.0`) and doc tests: no description
    // became a doctest.
    let out = host.cargo(&["test", "--", "--test-threads=1"], &target);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in [
        "built::self_::evals::self_",
        "built::self_::evals::self_2",
        "built::self_::evals::eval_2",
        "built::self_::evals::gen_",
        "built::self_::evals::macro_rules_",
        "built::docs::evals::weird_id",
    ] {
        assert!(
            stdout.contains(&format!("test {name} ... ok")),
            "{name} missing:\n{stdout}"
        );
    }
    let out = host.cargo(&["test", "--doc"], &target);
    assert!(
        out.status.success(),
        "cargo test --doc:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let out = host.cargo(
        &["clippy", "--all-targets", "--", "-D", "warnings"],
        &target,
    );
    assert!(
        out.status.success(),
        "clippy:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(env!("CARGO"))
        .args(["doc", "--no-deps", "--document-private-items", "--offline"])
        .env("CARGO_TARGET_DIR", &target)
        .env("RUSTDOCFLAGS", "-D warnings")
        .env_remove("RUSTFLAGS")
        .current_dir(host.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo doc -D warnings:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let generated = generated(&target, &host);
    // Descriptions are escaped text in the doc comments.
    assert!(generated.contains(r"\<answer\>"), "{generated}");
    assert!(!generated.contains("/// ```"), "{generated}");
}
