//! The build.rs front end when it fails: every diagnostic rendered in
//! rustc's layout (file, line:column, snippet, code, help), no target, two
//! contracts generating one module, and an unset `OUT_DIR`.

use std::fs;
use std::path::Path;
use templiqx_build::Builder;
use templiqx_contracts::Code;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

fn contract(id: &str, message: &str) -> String {
    format!(
        "api_version: templiqx/v1alpha1\nid: {id}\nversion: 0.1.0\ncapabilities: [structured_output]\nmessages:\n  - role: user\n    content:\n      - {message}\noutput_schema: {{ type: object }}\n"
    )
}

#[test]
fn a_broken_contract_fails_with_every_diagnostic_rendered() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "pkg/templiqx.yaml",
        "api_version: templiqx/v1alpha1\npackage: p\nversion: 0.1.0\ncontracts: [a]\n",
    );
    write(
        dir.path(),
        "pkg/contracts/a.yaml",
        &contract(
            "a",
            "{ kind: interpolate, expression: { kind: ref, path: inputs.nmae } }\n      - { kind: interpolate, expression: { kind: ref, path: context.missing } }",
        ),
    );
    let e = Builder::new()
        .base_dir(dir.path())
        .target(["structured_output"])
        .package("pkg")
        .generate()
        .unwrap_err();
    let codes: Vec<Code> = e.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [Code::RefUnknown, Code::RefUnknown],
        "every problem, at once"
    );
    for d in &e.diagnostics {
        assert_eq!(d.file.as_deref(), Some("pkg/contracts/a.yaml"), "{d}");
        assert!(d.span.is_some(), "{d}");
    }
    // rustc's layout, every diagnostic, with the snippet line.
    assert!(
        e.rendered.contains("error[TQX_REF_UNKNOWN]"),
        "{}",
        e.rendered
    );
    assert!(
        e.rendered.contains("--> pkg/contracts/a.yaml:8:"),
        "{}",
        e.rendered
    );
    assert!(
        e.rendered.contains("8 |       - { kind: interpolate"),
        "{}",
        e.rendered
    );
    assert!(
        e.rendered.contains("--> pkg/contracts/a.yaml:9:"),
        "{}",
        e.rendered
    );
    assert!(e.rendered.contains("= help:"), "{}", e.rendered);
    assert_eq!(e.to_string(), e.rendered);
}

#[test]
fn no_target_is_a_capability_error() {
    let e = Builder::new().package("pkg").generate().unwrap_err();
    assert_eq!(e.diagnostics.len(), 1);
    assert_eq!(e.diagnostics[0].code, Code::CapabilityUnsupported);
    assert!(e.rendered.contains(".target("), "{}", e.rendered);
}

#[test]
fn two_contracts_generating_one_module_collide() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "one/lease-terms.yaml",
        &contract("lease-terms", "{ kind: text, value: a }"),
    );
    write(
        dir.path(),
        "two/lease_terms.yaml",
        &contract("lease_terms", "{ kind: text, value: b }"),
    );
    write(
        dir.path(),
        "three/Lease_Terms.yaml",
        &contract("Lease_Terms", "{ kind: text, value: c }"),
    );
    let e = Builder::new()
        .base_dir(dir.path())
        .target(["structured_output"])
        .contract("one/lease-terms.yaml")
        .contract("two/lease_terms.yaml")
        .contract("three/Lease_Terms.yaml")
        .generate()
        .unwrap_err();
    // Each later contract collides with the first one that took the name.
    let messages: Vec<(&str, Option<&str>)> = e
        .diagnostics
        .iter()
        .map(|d| {
            assert_eq!(d.code, Code::CodegenCollision, "{}", e.rendered);
            (d.message.as_str(), d.file.as_deref())
        })
        .collect();
    assert_eq!(
        messages,
        [
            (
                "contracts in one/lease-terms.yaml and two/lease_terms.yaml both generate module `lease_terms`",
                Some("two/lease_terms.yaml")
            ),
            (
                "contracts in one/lease-terms.yaml and three/Lease_Terms.yaml both generate module `lease_terms`",
                Some("three/Lease_Terms.yaml")
            ),
        ]
    );
}

#[test]
fn without_out_dir_compile_is_an_io_error() {
    // Cargo sets OUT_DIR only for build scripts; a test process has none.
    assert!(std::env::var_os("OUT_DIR").is_none());
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a.yaml",
        &contract("a", "{ kind: text, value: a }"),
    );
    let e = Builder::new()
        .base_dir(dir.path())
        .target(["structured_output"])
        .contract("a.yaml")
        .compile()
        .unwrap_err();
    assert_eq!(e.diagnostics[0].code, Code::Io);
    assert!(e.rendered.contains("OUT_DIR"), "{}", e.rendered);
}
