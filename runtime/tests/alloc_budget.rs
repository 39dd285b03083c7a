//! The output budget is checked before bytes are allocated (`docs/format.md`,
//! "Render budgets"): rejecting a render of a 5 MiB request value allocates far less
//! than the value, in validation and in rendering alike.
//!
//! Its own test binary, because it installs a counting global allocator.

#[path = "it/common/mod.rs"]
mod common;

use common::*;
use serde_json::json;
use templiqx::Code;
use templiqx::contracts::{Filter, JsonType, Schema};
use templiqx_alloc_counter::{Counting, allocated_during};

#[global_allocator]
static GLOBAL: Counting = Counting;

const FIVE_MIB: usize = 5 * 1024 * 1024;
const LIMIT: usize = 1024 * 1024;

#[test]
fn rejecting_a_5_mib_value_allocates_under_1_mib() {
    let schema = Schema {
        min_length: Some(1),
        max_length: Some(10 * FIVE_MIB as u64),
        ..typed(JsonType::String)
    };
    let inputs = obj(json!({ "v": "x".repeat(FIVE_MIB) }));
    let context = obj(json!({}));
    for filters in [
        &[][..],
        &[Filter::Trim],
        &[Filter::Upper],
        &[Filter::Lower],
        &[Filter::Json],
        &[Filter::Trim, Filter::Lower],
    ] {
        let i = interaction(
            vec![field("v", schema.clone(), true)],
            vec![],
            vec![vec![text("Value: "), interp(input(&["v"]), filters)]],
            vec![],
        );
        let (result, bytes) = allocated_during(|| templiqx::render(&i, &inputs, &context));
        let error = result.expect_err("over budget");
        assert_eq!(error.diagnostics[0].code, Code::RenderBudget, "{filters:?}");
        assert!(bytes < LIMIT, "{filters:?}: {bytes} bytes allocated");
    }
}

#[test]
fn validating_a_5_mib_value_does_not_copy_it() {
    let i = interaction(
        vec![field(
            "v",
            Schema {
                max_length: Some(16),
                ..typed(JsonType::String)
            },
            true,
        )],
        vec![],
        vec![vec![interp(input(&["v"]), &[])]],
        vec![],
    );
    let inputs = obj(json!({ "v": "x".repeat(FIVE_MIB) }));
    let context = obj(json!({}));
    let (result, bytes) = allocated_during(|| templiqx::render(&i, &inputs, &context));
    assert_eq!(
        result.expect_err("too long").diagnostics[0].code,
        Code::ValueInvalid
    );
    assert!(bytes < LIMIT, "{bytes} bytes allocated");
}
