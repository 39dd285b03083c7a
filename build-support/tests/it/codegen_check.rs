//! `codegen::check_all` against `codegen::generate_all`: the same entries
//! and the same diagnostics (`TQX_CODEGEN_COLLISION`, in the same order),
//! over the example packages, every contract of the UI tests, and
//! contracts built to collide (module names, fields of `Inputs`, nested
//! objects, array items, a non-struct `Output`).

use std::fs;
use std::path::{Path, PathBuf};
use templiqx_build::{CompiledContract, Loader, codegen};
use templiqx_contracts::{CapabilityProfile, Code, Diagnostic};

fn target() -> CapabilityProfile {
    CapabilityProfile::parse_list("structured_output,tools")
}

/// The entries of `check_all` and those of `generate_all` with the code
/// dropped: `None` for a contract that did not compile, else `Ok` or the
/// diagnostics.
type Entries = Vec<Option<Result<(), Vec<Diagnostic>>>>;

/// Both entry points over `contracts`; asserts they agree and returns the
/// entries.
fn both(contracts: &[CompiledContract], loader: &Loader) -> Entries {
    let checked = codegen::check_all(contracts, &loader.sources);
    let generated: Entries =
        codegen::generate_all(contracts, &loader.sources, &codegen::Options::default())
            .into_iter()
            .map(|entry| entry.map(|r| r.map(drop)))
            .collect();
    assert_eq!(checked, generated);
    assert_eq!(checked.len(), contracts.len());
    checked
}

/// The codes and messages of every diagnostic of the entries, in order.
fn diagnostics(entries: &Entries) -> Vec<(Code, String)> {
    entries
        .iter()
        .flatten()
        .filter_map(|e| e.as_ref().err())
        .flatten()
        .map(|d| (d.code, d.message.clone()))
        .collect()
}

fn write(root: &Path, rel: &str, text: &str) -> PathBuf {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(&p, text).unwrap();
    p
}

/// A contract with `inputs` and `output_schema` given as flow YAML.
fn contract(id: &str, inputs: &str, output_schema: &str) -> String {
    format!(
        "api_version: templiqx/v1alpha1\nid: {id}\nversion: 0.1.0\ninputs: {inputs}\ncapabilities: [structured_output]\nmessages:\n  - role: user\n    content:\n      - {{ kind: text, value: hi }}\noutput_schema: {output_schema}\n"
    )
}

#[test]
fn the_example_packages_check_as_they_generate() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    for (package, count) in [("crm3", 3), ("packages/demo", 1)] {
        let root = examples.join(package);
        let mut loader = Loader::new(&root);
        let index = loader.load_package(&root).unwrap();
        let ids = loader.package(index).manifest.contracts.clone();
        let contracts: Vec<CompiledContract> = ids
            .iter()
            .map(|id| loader.compile_listed(index, id, &target()))
            .collect();
        let entries = both(&contracts, &loader);
        assert_eq!(entries.len(), count, "{package}");
        assert!(
            entries.iter().all(|e| matches!(e, Some(Ok(())))),
            "{package}: {entries:?}"
        );
    }
}

#[test]
fn every_ui_contract_checks_as_it_generates() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/ui/contracts");
    let mut paths: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty());
    let mut loader = Loader::new(&dir);
    // One at a time (each as `include_contract!` compiles it), then all
    // together (as one `Builder` does: module names must differ).
    for path in &paths {
        let c = loader.compile_file(path, &target());
        both(std::slice::from_ref(&c), &loader);
    }
    let all: Vec<CompiledContract> = paths
        .iter()
        .map(|p| loader.compile_file(p, &target()))
        .collect();
    let entries = both(&all, &loader);
    assert!(
        diagnostics(&entries).iter().any(|(code, message)| {
            *code == Code::CodegenCollision && message.contains("first-name")
        }),
        "property_collision.yaml collides: {entries:?}"
    );
}

#[test]
fn colliding_modules_and_fields_check_as_they_generate() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let plain = contract("lease-terms", "{}", "{ type: object }");
    let files = [
        write(root, "one/lease-terms.yaml", &plain),
        // Does not compile: no entry, and it takes no module name.
        write(
            root,
            "broken/lease_terms.yaml",
            &plain
                .replace("lease-terms", "lease_terms")
                .replace("0.1.0", "x"),
        ),
        write(
            root,
            "two/lease_terms.yaml",
            &plain.replace("lease-terms", "lease_terms"),
        ),
        // Fields of `Inputs`, of a nested object, of array items and of a
        // non-struct `Output`; an enum beside them takes a type name.
        write(
            root,
            "fields.yaml",
            &contract(
                "fields",
                "{ first-name: { schema: { type: string } }, first_name: { schema: { type: string } }, \
                 kind: { schema: { type: string, enum: [a, b] } }, \
                 address: { schema: { type: object, properties: { zip-code: { type: string }, zip_code: { type: string }, \
                 inner: { type: object, properties: { A: { type: string }, a: { type: string } } } } } } }",
                "{ type: array, items: { type: object, properties: { x-y: { type: integer }, x_y: { type: integer } } } }",
            ),
        ),
        write(
            root,
            "output.yaml",
            &contract(
                "output",
                "{}",
                "{ type: object, properties: { kind: { type: string, enum: [x] }, Kind: { type: string, enum: [y] }, \
                 list: { type: array, items: { type: object, properties: { type: { type: string }, r#type: { type: string } } } } } }",
            ),
        ),
    ];
    let mut loader = Loader::new(root);
    let contracts: Vec<CompiledContract> = files
        .iter()
        .map(|p| loader.compile_file(p, &target()))
        .collect();
    let entries = both(&contracts, &loader);
    assert!(entries[1].is_none(), "{:?}", contracts[1].diagnostics);
    let found = diagnostics(&entries);
    assert!(
        found
            .iter()
            .all(|(code, _)| *code == Code::CodegenCollision),
        "{found:?}"
    );
    let messages: Vec<&str> = found.iter().map(|(_, m)| m.as_str()).collect();
    for expected in [
        "contracts in one/lease-terms.yaml and two/lease_terms.yaml both generate module `lease_terms`",
        "properties `first-name` and `first_name` both become the Rust field `first_name`",
        "properties `zip-code` and `zip_code` both become the Rust field `zip_code`",
        "properties `x-y` and `x_y` both become the Rust field `x_y`",
        "properties `kind` and `Kind` both become the Rust field `kind`",
    ] {
        assert!(messages.contains(&expected), "{expected}: {messages:#?}");
    }
}
