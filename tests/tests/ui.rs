//! trybuild UI tests: one compile-fail case per class of contract error
//! (each `.stderr` shows the YAML file, line:column and `TQX_*` code),
//! compile-pass cases for the example contracts, and — when the external
//! corpus is there — compile-pass cases for the corpus contracts.
//!
//! Its own test binary, not a module of `it/`: it sets
//! `TEMPLIQX_MANIFEST_DIR_OVERRIDE` for the whole process, which the cargo
//! builds that tests in `it/` start (host builds, the MSRV check) would
//! inherit.

use std::path::Path;
use templiqx_conformance_suites::{Suite, locate};

/// Writes each `ui/corpus/*.rs.template` with `{corpus}` replaced by the
/// corpus directory into a fresh directory under the target directory, and
/// returns that directory.
fn corpus_cases(corpus: &Path) -> std::path::PathBuf {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ui-corpus");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let literal = format!("{:?}", corpus.display().to_string());
    let inside = &literal[1..literal.len() - 1];
    let templates = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/corpus");
    for entry in std::fs::read_dir(&templates).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap();
        let Some(stem) = name.strip_suffix(".template") else {
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(out.join(stem), text.replace("{corpus}", inside)).unwrap();
    }
    out
}

#[test]
fn ui() {
    // trybuild builds the cases in a generated crate under `target/`; the
    // override keeps contract paths in the cases relative to this crate.
    // SAFETY: this is the only test in this binary, so no other thread
    // reads or writes the environment concurrently.
    #[allow(unsafe_code)]
    unsafe {
        std::env::set_var("TEMPLIQX_MANIFEST_DIR_OVERRIDE", env!("CARGO_MANIFEST_DIR"));
    }
    let corpus = locate(Suite::Corpus).map(|c| corpus_cases(&c.canonicalize().unwrap()));
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
    t.pass("ui/pass/*.rs");
    if let Some(dir) = corpus {
        t.pass(dir.join("*.rs"));
    }
}
