//! `templiqx-http-conformance`: runs a scenario inventory against a
//! conformance HTTP gateway (`templiqx-mock-gateway`, or another
//! implementation of its wire format) and passes only when every declared
//! expectation matches (`docs/gateway.md`, "The conformance client").
//!
//! For each selected inventory entry it sends `POST
//! {base}/v1/scenarios/{id}/execute` with an empty body and compares the answer
//! with the entry's `expectation`: HTTP status 200, `status`,
//! `diagnostic_code`, `output_schema_valid`, `output_fingerprint` and
//! `receipt_fingerprint` — after normalising a schema-invalid success to the
//! logical `TQX_OUTPUT_SCHEMA` failure (`docs/runtime.md`, "Receipts") — plus
//! two integrity checks: the echoed `scenario_id`, and that the returned
//! receipt hashes to the returned receipt fingerprint.
//!
//! ```
//! use templiqx_http_conformance::{Expected, Observed, compare};
//! use templiqx_mock::{ScenarioStatus, TransportExpectation};
//!
//! let expectation = TransportExpectation {
//!     status: ScenarioStatus::Failure,
//!     diagnostic_code: Some(templiqx_contracts::Code::OutputSchema),
//!     output_schema_valid: Some(false),
//!     output_fingerprint: None,
//!     receipt_fingerprint: "a8ba323c1536f8f8b69e8e5529a62fe180a0344f7e4e715fb3f3b41cba4d4e89".into(),
//! };
//! // A gateway that reports the runtime's schema-invalid output as a
//! // success with `output_schema_valid: false` and a success receipt:
//! let body = r#"{
//!   "scenario_id": "invalid-output-schema", "status": "success",
//!   "diagnostic_code": null, "output_schema_valid": false,
//!   "fingerprints": {
//!     "output": "74fccc7917e17a8701088adad9a3c3070b8c47931ece8f78f019ce1dc2ac1bc1",
//!     "receipt": "0000000000000000000000000000000000000000000000000000000000000000"
//!   },
//!   "receipt": {"outcome": "success",
//!     "request_fingerprint": "84181d131d5f37ede5841b813f3aca358de383f639a65eab908658c31eae827b",
//!     "output_fingerprint": "74fccc7917e17a8701088adad9a3c3070b8c47931ece8f78f019ce1dc2ac1bc1",
//!     "output_schema_valid": false}
//! }"#;
//! let observed = Observed::from_http(200, body);
//! let result = compare("invalid-output-schema", &Expected::from(&expectation), &observed);
//! // Normalised: a TQX_OUTPUT_SCHEMA failure whose receipt is the
//! // normalised failure receipt, which matches the inventory.
//! assert!(result.passed(), "{}", result.to_json_line());
//! ```
//!
//! The binary prints one JSON line per scenario ([`ScenarioResult::to_json_line`])
//! and a closing `N passed, M failed` line, and exits 0 only when every
//! selected scenario passed. Unknown ids, an inventory that drifts from
//! its manifests, an unreachable gateway and malformed answers all fail
//! closed.

use serde::Deserialize;
use serde_json::{Value, json};
use std::io::{self, Write};
use std::path::Path;
use std::time::Duration;
use templiqx_contracts::{Code, Receipt};
use templiqx_mock::{Inventory, MockError, ScenarioStatus, TransportExpectation};

/// The inventory's file name inside the scenario root.
pub const INVENTORY_FILE: &str = "inventory.json";

/// The environment variable that supplies the scenario root when
/// `--scenario-root` is not given (the gateway's, too).
pub const SCENARIO_ROOT_ENV: &str = "TEMPLIQX_MOCK_SCENARIO_ROOT";

/// The largest response body read: 4 MiB (an answer is about 1 KiB).
pub const MAX_RESPONSE_BYTES: u64 = 4 * 1024 * 1024;

/// What one scenario is expected to produce over HTTP: the inventory
/// entry's expectation, as strings for comparison with any wire format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// `success` or `failure`.
    pub status: String,
    /// The failure code, or `None`.
    pub diagnostic_code: Option<String>,
    /// The declared schema validity, or `None`.
    pub output_schema_valid: Option<bool>,
    /// The accepted output's fingerprint, or `None`.
    pub output_fingerprint: Option<String>,
    /// The transport receipt fingerprint.
    pub receipt_fingerprint: String,
}

impl From<&TransportExpectation> for Expected {
    fn from(x: &TransportExpectation) -> Expected {
        Expected {
            status: x.status.as_str().to_owned(),
            diagnostic_code: x.diagnostic_code.map(|c| c.as_str().to_owned()),
            output_schema_valid: x.output_schema_valid,
            output_fingerprint: x.output_fingerprint.clone(),
            receipt_fingerprint: x.receipt_fingerprint.clone(),
        }
    }
}

/// What the gateway answered, normalised.
#[derive(Clone, Debug, PartialEq)]
pub struct Observed {
    /// The HTTP status (`None` when no answer arrived).
    pub http_status: Option<u16>,
    /// Why the answer could not be used: a transport error, an error
    /// body, or a body that is not an execute result.
    pub problem: Option<String>,
    /// The echoed scenario id.
    pub scenario_id: Option<String>,
    /// The logical status, normalised.
    pub status: Option<String>,
    /// The failure code, normalised.
    pub diagnostic_code: Option<String>,
    /// The schema validity.
    pub output_schema_valid: Option<bool>,
    /// The accepted output's fingerprint, normalised.
    pub output_fingerprint: Option<String>,
    /// The receipt fingerprint, normalised.
    pub receipt_fingerprint: Option<String>,
    /// Whether the returned receipt hashes to the returned receipt
    /// fingerprint (`None` when either is missing).
    pub receipt_consistent: Option<bool>,
    /// Whether a schema-invalid success was normalised.
    pub normalised: bool,
}

/// The fields of an execute answer this client reads; others are ignored.
#[derive(Debug, Deserialize)]
struct Wire {
    scenario_id: Option<String>,
    status: Option<String>,
    diagnostic_code: Option<String>,
    output_schema_valid: Option<bool>,
    fingerprints: Option<WireFingerprints>,
    receipt: Option<Receipt>,
}

#[derive(Debug, Deserialize)]
struct WireFingerprints {
    output: Option<String>,
    receipt: Option<String>,
}

impl Observed {
    /// An attempt that got no answer (connection refused, timeout).
    pub fn unreachable(problem: impl Into<String>) -> Observed {
        Observed {
            http_status: None,
            problem: Some(problem.into()),
            scenario_id: None,
            status: None,
            diagnostic_code: None,
            output_schema_valid: None,
            output_fingerprint: None,
            receipt_fingerprint: None,
            receipt_consistent: None,
            normalised: false,
        }
    }

    /// Reads an answer with HTTP status `status` and body `body`.
    ///
    /// A schema-invalid success — `status: "success"` with
    /// `output_schema_valid: false`, or a success receipt with
    /// `output_schema_valid: false` — is normalised to the logical
    /// `TQX_OUTPUT_SCHEMA` failure: status `failure`, that code, no
    /// accepted output fingerprint, and the normalised failure receipt
    /// (whose `failure_fingerprint` is the output fingerprint) with its
    /// fingerprint.
    pub fn from_http(status: u16, body: &str) -> Observed {
        let mut observed = Observed::unreachable("");
        observed.http_status = Some(status);
        observed.problem = None;
        if status != 200 {
            let error = serde_json::from_str::<Value>(body).ok();
            let code = error
                .as_ref()
                .and_then(|v| v.pointer("/error/code"))
                .and_then(Value::as_str);
            observed.problem = Some(match code {
                Some(code) => format!("the gateway answered {status} `{code}`"),
                None => format!("the gateway answered {status} without a JSON error body"),
            });
            return observed;
        }
        let wire: Wire = match serde_json::from_str(body) {
            Ok(wire) => wire,
            Err(e) => {
                observed.problem = Some(format!("the answer is not an execute result: {e}"));
                return observed;
            }
        };
        let fingerprints = wire.fingerprints.unwrap_or(WireFingerprints {
            output: None,
            receipt: None,
        });
        observed.scenario_id = wire.scenario_id;
        observed.status = wire.status;
        observed.diagnostic_code = wire.diagnostic_code;
        observed.output_schema_valid = wire.output_schema_valid;
        observed.output_fingerprint = fingerprints.output;
        observed.receipt_fingerprint = fingerprints.receipt;
        observed.receipt_consistent = match (&wire.receipt, &observed.receipt_fingerprint) {
            (Some(receipt), Some(fp)) => Some(receipt.fingerprint() == *fp),
            _ => None,
        };

        let invalid_receipt = matches!(
            wire.receipt,
            Some(Receipt::Success {
                output_schema_valid: false,
                ..
            })
        );
        let invalid_success = observed.status.as_deref() == Some("success")
            && observed.output_schema_valid == Some(false);
        if invalid_success || invalid_receipt {
            observed.normalised = true;
            observed.status = Some(ScenarioStatus::Failure.as_str().to_owned());
            observed.diagnostic_code = Some(Code::OutputSchema.as_str().to_owned());
            observed.output_schema_valid = Some(false);
            if let Some(Receipt::Success {
                request_fingerprint,
                output_fingerprint,
                ..
            }) = &wire.receipt
            {
                let normalised =
                    Receipt::for_output(request_fingerprint, output_fingerprint, false);
                observed.receipt_fingerprint = Some(normalised.fingerprint());
                // The raw receipt was hashed as sent; the comparison uses
                // the normalised one.
                observed.receipt_consistent = None;
            }
            observed.output_fingerprint = None;
        }
        observed
    }
}

/// How one compared field came out.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// The field (`http_status`, `scenario_id`, `status`,
    /// `diagnostic_code`, `output_schema_valid`, `output_fingerprint`,
    /// `receipt_fingerprint`, `receipt_integrity`).
    pub field: &'static str,
    /// The expectation.
    pub expected: Value,
    /// What was observed.
    pub actual: Value,
}

impl Check {
    /// Expected and actual agree.
    pub fn matches(&self) -> bool {
        self.expected == self.actual
    }
}

/// The result of one scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioResult {
    /// The scenario id.
    pub id: String,
    /// Every compared field, in a fixed order.
    pub checks: Vec<Check>,
    /// Why the scenario could not be compared at all, when it could not.
    pub problem: Option<String>,
    /// Whether a schema-invalid success was normalised before comparing.
    pub normalised: bool,
}

impl ScenarioResult {
    /// A scenario that fails without being compared (an id the inventory
    /// does not list).
    pub fn failed(id: &str, problem: impl Into<String>) -> ScenarioResult {
        ScenarioResult {
            id: id.to_owned(),
            checks: Vec::new(),
            problem: Some(problem.into()),
            normalised: false,
        }
    }

    /// Every check matched and nothing prevented the comparison.
    pub fn passed(&self) -> bool {
        self.problem.is_none() && !self.checks.is_empty() && self.checks.iter().all(Check::matches)
    }

    /// The report line: one JSON object with `id`, `passed`, `problem`,
    /// `normalised`, `differs` (the names of the differing fields) and
    /// `checks` (each `{field, outcome, expected, actual}`).
    pub fn to_json_line(&self) -> String {
        let checks: Vec<Value> = self
            .checks
            .iter()
            .map(|c| {
                json!({
                    "field": c.field,
                    "outcome": if c.matches() { "match" } else { "differs" },
                    "expected": c.expected,
                    "actual": c.actual,
                })
            })
            .collect();
        let differs: Vec<&str> = self
            .checks
            .iter()
            .filter(|c| !c.matches())
            .map(|c| c.field)
            .collect();
        json!({
            "id": self.id,
            "passed": self.passed(),
            "problem": self.problem,
            "normalised": self.normalised,
            "differs": differs,
            "checks": checks,
        })
        .to_string()
    }
}

/// Compares what the gateway answered for scenario `id` with its
/// expectation. An answer that is not a 200 execute result fails with its
/// problem, after the `http_status` check.
pub fn compare(id: &str, expected: &Expected, observed: &Observed) -> ScenarioResult {
    let mut checks = vec![Check {
        field: "http_status",
        expected: json!(200),
        actual: json!(observed.http_status),
    }];
    if observed.problem.is_none() {
        checks.extend([
            Check {
                field: "scenario_id",
                expected: json!(id),
                actual: json!(observed.scenario_id),
            },
            Check {
                field: "status",
                expected: json!(expected.status),
                actual: json!(observed.status),
            },
            Check {
                field: "diagnostic_code",
                expected: json!(expected.diagnostic_code),
                actual: json!(observed.diagnostic_code),
            },
            Check {
                field: "output_schema_valid",
                expected: json!(expected.output_schema_valid),
                actual: json!(observed.output_schema_valid),
            },
            Check {
                field: "output_fingerprint",
                expected: json!(expected.output_fingerprint),
                actual: json!(observed.output_fingerprint),
            },
            Check {
                field: "receipt_fingerprint",
                expected: json!(expected.receipt_fingerprint),
                actual: json!(observed.receipt_fingerprint),
            },
        ]);
        if let Some(consistent) = observed.receipt_consistent {
            checks.push(Check {
                field: "receipt_integrity",
                expected: json!("the receipt hashes to the receipt fingerprint"),
                actual: json!(if consistent {
                    "the receipt hashes to the receipt fingerprint"
                } else {
                    "the receipt hashes to another fingerprint"
                }),
            });
        }
    }
    ScenarioResult {
        id: id.to_owned(),
        checks,
        problem: observed.problem.clone(),
        normalised: observed.normalised,
    }
}

/// Which scenarios to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// Every inventory entry, in inventory order.
    All,
    /// These ids, in the order given.
    Ids(Vec<String>),
}

/// A conformance run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The gateway's base URL (`http://127.0.0.1:8787`).
    pub base_url: String,
    /// Which scenarios.
    pub selection: Selection,
    /// The time one request may take.
    pub timeout: Duration,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Scenarios that passed.
    pub passed: usize,
    /// Scenarios that failed.
    pub failed: usize,
}

impl Summary {
    /// Every selected scenario passed (and at least one ran).
    pub fn all_passed(&self) -> bool {
        self.failed == 0 && self.passed > 0
    }
}

/// Loads the inventory at `scenario_root/inventory.json`, failing closed
/// on drift between the inventory and its manifests.
///
/// # Errors
///
/// Every problem [`Inventory::load`] finds, each naming its scenario.
pub fn load_inventory(scenario_root: &Path) -> Result<Inventory, MockError> {
    Inventory::load(scenario_root.join(INVENTORY_FILE))
}

/// Runs `options` against the gateway for `inventory`, writing one JSON
/// line per scenario and the closing `N passed, M failed` line to `out`.
///
/// # Errors
///
/// Only errors writing to `out`; every gateway problem is a failed
/// scenario.
pub fn run(inventory: &Inventory, options: &Options, out: &mut dyn Write) -> io::Result<Summary> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(options.timeout))
        .build()
        .into();
    let base = options.base_url.trim_end_matches('/');
    let ids: Vec<String> = match &options.selection {
        Selection::All => inventory.ids().map(str::to_owned).collect(),
        Selection::Ids(ids) => ids.clone(),
    };
    let mut summary = Summary {
        passed: 0,
        failed: 0,
    };
    for id in &ids {
        let result = match inventory.get(id) {
            None => ScenarioResult::failed(
                id,
                format!(
                    "the inventory {} lists no scenario {id:?}",
                    inventory.path.display()
                ),
            ),
            Some(listed) => {
                let observed = execute(&agent, base, id);
                compare(id, &Expected::from(&listed.entry.expectation), &observed)
            }
        };
        if result.passed() {
            summary.passed += 1;
        } else {
            summary.failed += 1;
        }
        writeln!(out, "{}", result.to_json_line())?;
    }
    writeln!(out, "{} passed, {} failed", summary.passed, summary.failed)?;
    Ok(summary)
}

/// `POST {base}/v1/scenarios/{id}/execute` with an empty body.
fn execute(agent: &ureq::Agent, base: &str, id: &str) -> Observed {
    let url = format!("{base}/v1/scenarios/{}/execute", encode_segment(id));
    let mut response = match agent.post(&url).send_empty() {
        Ok(response) => response,
        Err(e) => return Observed::unreachable(format!("POST {url}: {e}")),
    };
    let status = response.status().as_u16();
    match response
        .body_mut()
        .with_config()
        .limit(MAX_RESPONSE_BYTES)
        .read_to_string()
    {
        Ok(body) => Observed::from_http(status, &body),
        Err(e) => {
            let mut observed = Observed::unreachable(format!("reading the answer to {url}: {e}"));
            observed.http_status = Some(status);
            observed
        }
    }
}

/// Percent-encodes `segment` for a URL path segment (RFC 3986
/// unreserved characters pass through).
fn encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expected_success() -> Expected {
        Expected {
            status: "success".into(),
            diagnostic_code: None,
            output_schema_valid: Some(true),
            output_fingerprint: Some("a".repeat(64)),
            receipt_fingerprint: Receipt::for_output(&"r".repeat(64), &"a".repeat(64), true)
                .fingerprint(),
        }
    }

    fn success_body(output_fp: &str) -> String {
        let receipt = Receipt::for_output(&"r".repeat(64), output_fp, true);
        json!({
            "scenario_id": "s",
            "status": "success",
            "diagnostic_code": null,
            "output_schema_valid": true,
            "fingerprints": {"output": output_fp, "receipt": receipt.fingerprint()},
            "receipt": receipt,
        })
        .to_string()
    }

    #[test]
    fn a_matching_answer_passes() {
        let observed = Observed::from_http(200, &success_body(&"a".repeat(64)));
        let result = compare("s", &expected_success(), &observed);
        assert!(result.passed(), "{}", result.to_json_line());
        assert_eq!(result.checks.len(), 8);
    }

    #[test]
    fn drift_in_the_output_fails_two_checks() {
        let observed = Observed::from_http(200, &success_body(&"b".repeat(64)));
        let result = compare("s", &expected_success(), &observed);
        assert!(!result.passed());
        let line: Value = serde_json::from_str(&result.to_json_line()).unwrap();
        assert_eq!(
            line["differs"],
            json!(["output_fingerprint", "receipt_fingerprint"])
        );
    }

    #[test]
    fn a_tampered_receipt_fails_integrity() {
        let mut body: Value = serde_json::from_str(&success_body(&"a".repeat(64))).unwrap();
        body["receipt"]["request_fingerprint"] = json!("c".repeat(64));
        let result = compare(
            "s",
            &expected_success(),
            &Observed::from_http(200, &body.to_string()),
        );
        let line: Value = serde_json::from_str(&result.to_json_line()).unwrap();
        assert_eq!(line["differs"], json!(["receipt_integrity"]));
    }

    #[test]
    fn a_schema_invalid_success_is_normalised() {
        let body = json!({
            "scenario_id": "s", "status": "success", "diagnostic_code": null,
            "output_schema_valid": false,
            "fingerprints": {"output": "a".repeat(64), "receipt": null},
        });
        let observed = Observed::from_http(200, &body.to_string());
        assert!(observed.normalised);
        assert_eq!(observed.status.as_deref(), Some("failure"));
        assert_eq!(
            observed.diagnostic_code.as_deref(),
            Some("TQX_OUTPUT_SCHEMA")
        );
        assert_eq!(observed.output_fingerprint, None);
    }

    #[test]
    fn error_answers_and_unreachable_gateways_fail_closed() {
        let body = r#"{"error":{"code":"scenario_not_found","message":"no"}}"#;
        let result = compare("s", &expected_success(), &Observed::from_http(404, body));
        assert!(!result.passed());
        assert_eq!(
            result.problem.as_deref(),
            Some("the gateway answered 404 `scenario_not_found`")
        );
        let result = compare("s", &expected_success(), &Observed::from_http(200, "[]"));
        assert!(!result.passed());
        let result = compare(
            "s",
            &expected_success(),
            &Observed::unreachable("connection refused"),
        );
        assert!(!result.passed());
        assert!(!ScenarioResult::failed("s", "unknown").passed());
    }

    #[test]
    fn ids_are_encoded_as_one_segment() {
        assert_eq!(encode_segment("intake-document-01"), "intake-document-01");
        assert_eq!(encode_segment("a/b\\c d"), "a%2Fb%5Cc%20d");
    }
}
