//! cargo-fuzz target: see `templiqx_fuzz_harness::lsp_edits::lsp_edits`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = templiqx_fuzz_harness::lsp_edits::lsp_edits(data);
});
