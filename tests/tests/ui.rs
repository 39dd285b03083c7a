//! trybuild UI tests: one compile-fail case per class of contract error
//! (each `.stderr` shows the YAML file, line:column and `TQX_*` code), and
//! compile-pass cases for the corpus contracts.

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
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
    t.pass("ui/pass/*.rs");
}
