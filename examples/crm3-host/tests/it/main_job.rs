//! The main job runs end to end, and its receipts are the in-process
//! goldens of the scenarios it replays.

use std::process::Command;

fn golden(id: &str) -> String {
    let path = format!(
        "{}/../crm3/scenarios/{id}/manifest.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    manifest["golden_receipt_fingerprint"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn the_main_job_chains_extraction_into_drafting_on_the_mock_runtime() {
    let out = Command::new(env!("CARGO_BIN_EXE_crm3-host"))
        .env_remove("CRM3_PROVIDER")
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for needle in [
        "== lease-term-extraction",
        "Check first: notice_days, start_date",
        "attempts 1, virtual time 40 ms",
        "decoded: 2026-03-01 .. 2027-02-28, EUR 1450.5 per month, 60 days' notice, 4 evidence links",
        "checks of `fixed-term-lease`: 5 of 5 passed",
        "== lease-summary-drafting",
        "Term: 01-03-2026 to 28-02-2027\nMonthly rent: EUR 1.450,50",
        "   partial after delta 1: title done \"Lease summary\" (13 chars); summary writing",
        "merge_fields writing, 0 of 3 started",
        "streamed 3 deltas, 3 partial outputs; Complete carried the execute receipt: true",
        "decoded: \"Lease summary\"",
    ] {
        assert!(stdout.contains(needle), "missing {needle:?} in\n{stdout}");
    }
    let receipts: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("receipt fingerprint"))
        .map(str::trim)
        .collect();
    assert_eq!(
        receipts,
        [golden("lease-happy-path"), golden("lease-summary-streamed")]
    );
}

#[test]
fn the_main_job_prints_its_execution_spans_when_rust_log_asks() {
    let run = |capture: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_crm3-host"))
            .env_remove("CRM3_PROVIDER")
            .env("RUST_LOG", "templiqx=info")
            .env(
                "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
                capture,
            )
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stderr).unwrap()
    };
    let stderr = run("false");
    // One span per execution, closed once each, with its attempt event.
    let closed: Vec<&str> = stderr.lines().filter(|l| l.contains("close")).collect();
    assert_eq!(closed.len(), 2, "{stderr}");
    for (line, id) in closed
        .iter()
        .zip(["lease-term-extraction", "lease-summary-drafting"])
    {
        for field in [
            "gen_ai.operation.name=\"chat\"",
            &format!("templiqx.contract.id=\"{id}\""),
            "templiqx.fingerprint.request=",
            "templiqx.fingerprint.output=",
            "otel.status_code=\"OK\"",
        ] {
            assert!(line.contains(field), "{field} missing from {line}");
        }
    }
    assert_eq!(
        stderr.matches("attempt=1 outcome=\"ok\"").count(),
        2,
        "{stderr}"
    );
    // No prompt text unless asked for.
    assert!(!stderr.contains("gen_ai.input.messages"), "{stderr}");
    assert!(run("true").contains("gen_ai.input.messages"));
}
