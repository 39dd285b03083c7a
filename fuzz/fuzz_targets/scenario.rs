//! cargo-fuzz target: see `templiqx_fuzz_harness::scenario`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = templiqx_fuzz_harness::scenario(data);
});
