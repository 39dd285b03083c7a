//! Snapshots of the generated code for the example contracts
//! (`examples/crm3`, `examples/packages/demo`), with `insta`: every change
//! to generated code shows as a reviewed diff of `tests/it/snapshots/*.snap`
//! (`docs/format.md`, "Generated Rust"). After an intended change, review
//! and accept the new snapshots (`cargo insta review`, or
//! `INSTA_UPDATE=always cargo test -p templiqx-build --test it snapshots::`
//! and read the diff before committing).

use std::path::Path;
use templiqx_build::Builder;

fn generated(package: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let generated = Builder::new()
        .base_dir(&root)
        .target(["structured_output"])
        .package(package)
        .generate()
        .unwrap_or_else(|e| panic!("{package}:\n{e}"));
    generated.code
}

#[test]
fn generated_code_of_the_crm3_example() {
    insta::assert_snapshot!("crm3", generated("examples/crm3"));
}

#[test]
fn generated_code_of_the_demo_package() {
    insta::assert_snapshot!("demo", generated("examples/packages/demo"));
}
