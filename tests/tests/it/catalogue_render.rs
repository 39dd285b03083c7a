//! Runs the render-time examples of `docs/diagnostics.md`: each contract
//! compiles, and rendering its `tqx-request` fails with exactly the example's
//! code and exactly the diagnostics the catalogue quotes. (Compile-time
//! examples and coverage are checked by `build-support/tests/it/catalogue.rs`.)

use crate::catalogue_doc::{self, catalogue_path, check_produced, describe};
use templiqx_build::compile_str;
use templiqx_contracts::CapabilityProfile;

#[test]
fn every_render_time_example_yields_exactly_its_code_and_quoted_diagnostics() {
    let path = catalogue_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut problems = Vec::new();
    let mut count = 0;
    for section in catalogue_doc::parse(&text) {
        for example in section.examples.iter().filter(|e| e.render) {
            count += 1;
            let target = CapabilityProfile::parse_list(&example.target());
            let c = compile_str(&example.contract.body, &example.contract_path(), &target);
            let Some(interaction) = c.interaction else {
                problems.push(format!(
                    "{}: the contract does not compile:\n{}",
                    example.origin(),
                    describe(&c.diagnostics)
                ));
                continue;
            };
            let request: serde_json::Value =
                serde_json::from_str(example.request.as_deref().unwrap_or("{}"))
                    .unwrap_or_else(|e| panic!("{}: tqx-request: {e}", example.origin()));
            let empty = serde_json::Map::new();
            let scope = |key: &str| {
                request
                    .get(key)
                    .and_then(|v| v.as_object())
                    .unwrap_or(&empty)
            };
            let diagnostics =
                match templiqx::render(&interaction, scope("inputs"), scope("context")) {
                    Ok(_) => {
                        problems.push(format!("{}: renders without diagnostics", example.origin()));
                        continue;
                    }
                    Err(e) => e.diagnostics,
                };
            problems.extend(check_produced(
                &example.origin(),
                &example.code,
                example.expected.as_deref(),
                &diagnostics,
            ));
        }
    }
    assert!(count > 0, "no render-time examples found");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// An adapter that fails every invocation with one scripted failure.
struct Failing {
    descriptor: templiqx::AdapterDescriptor,
    failure: templiqx::RuntimeFailure,
    invocations: std::sync::atomic::AtomicU32,
}

impl templiqx::RuntimeAdapter for Failing {
    fn descriptor(&self) -> &templiqx::AdapterDescriptor {
        &self.descriptor
    }

    fn invoke(
        &self,
        _request: &templiqx::RenderedInteraction<'_>,
    ) -> Result<templiqx::AdapterOutput, templiqx::RuntimeFailure> {
        self.invocations
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Err(self.failure.clone())
    }
}

/// The catalogue's `TQX_RUNTIME_*` sections: each code reaches the caller
/// with the adapter's detail as message, the failing step as note, the help
/// the catalogue quotes, and the failure receipt of `docs/runtime.md`,
/// "Receipts"; only
/// timeouts and unavailability are retried (within `max_attempts`).
#[test]
fn every_runtime_failure_code_reaches_the_caller_with_its_receipt() {
    use templiqx::contracts::Code;
    use templiqx::{AdapterDescriptor, Receipt, RuntimeAdapter, RuntimeFailure};

    let yaml = "api_version: templiqx/v1alpha1\nid: greeting\nversion: 0.1.0\ncapabilities: [structured_output]\nmessages:\n  - role: user\n    content:\n      - { kind: text, value: Hello }\noutput_schema: { type: object }\nruntime_policy: { max_attempts: 3 }\n";
    let c = compile_str(
        yaml,
        "contracts/greeting.yaml",
        &CapabilityProfile::parse_list("structured_output"),
    );
    let interaction = c.interaction.expect("the contract compiles");
    let empty = serde_json::Map::new();
    let request = templiqx::render(&interaction, &empty, &empty).expect("renders");
    let cases = [
        (
            Code::RuntimeTimeout,
            None,
            "retry, or allow more time (`runtime_policy.timeout_ms`, `max_attempts`)",
            3,
        ),
        (
            Code::RuntimeRateLimited,
            Some(1500),
            "retry after 1500 ms",
            1,
        ),
        (
            Code::RuntimeRateLimited,
            None,
            "retry later, with backoff",
            1,
        ),
        (
            Code::RuntimeUnavailable,
            None,
            "retry later, or use another adapter",
            3,
        ),
        // A 503's `Retry-After` is the help, as a 429's is.
        (
            Code::RuntimeUnavailable,
            Some(2000),
            "retry after 2000 ms",
            3,
        ),
        (
            Code::RuntimeInvalidResponse,
            None,
            "the model's answer was unusable; retry, or tighten the prompt",
            1,
        ),
        (
            Code::RuntimePermanent,
            None,
            "the request cannot succeed as sent; do not retry it",
            1,
        ),
    ];
    for (code, retry_after_ms, help, invocations) in cases {
        let mut failure = RuntimeFailure::new(code, "provider.call", "the provider said no");
        failure.retry_after_ms = retry_after_ms;
        let adapter = Failing {
            descriptor: AdapterDescriptor::new("failing", ["structured_output"]),
            failure: failure.clone(),
            invocations: Default::default(),
        };
        let error = adapter.execute(&request).expect_err("fails");
        assert_eq!(error.failure, failure, "{code}");
        assert_eq!(
            error.receipt,
            Receipt::Failure {
                code,
                failure_fingerprint: failure.fingerprint(),
                retry_after_ms,
            },
            "{code}"
        );
        assert_eq!(
            describe(&error.diagnostics),
            format!(
                "error[{code}]: the provider said no\n  = help: {help}\n  = note: failing step: `provider.call`\n"
            )
        );
        assert_eq!(
            adapter
                .invocations
                .load(std::sync::atomic::Ordering::SeqCst),
            invocations,
            "{code}"
        );
    }
}

/// The `tqx-compiles` examples of `docs/format.md` with a `tqx-request`
/// render exactly their `tqx-rendered` messages.
#[test]
fn the_format_reference_renders_as_it_says() {
    let path = catalogue_doc::format_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut problems = Vec::new();
    let mut count = 0;
    for example in catalogue_doc::parse_format(&text) {
        let Some(request) = &example.request else {
            continue;
        };
        count += 1;
        let target = CapabilityProfile::parse_list(&example.target());
        let c = compile_str(&example.contract.body, "contract.yaml", &target);
        let Some(interaction) = c.interaction else {
            problems.push(format!("{}: does not compile", example.origin()));
            continue;
        };
        let request: serde_json::Value = serde_json::from_str(request)
            .unwrap_or_else(|e| panic!("{}: tqx-request: {e}", example.origin()));
        let empty = serde_json::Map::new();
        let scope = |key: &str| {
            request
                .get(key)
                .and_then(|v| v.as_object())
                .unwrap_or(&empty)
        };
        match templiqx::render(&interaction, scope("inputs"), scope("context")) {
            Err(e) => problems.push(format!("{}: {e}", example.origin())),
            Ok(rendered) => {
                let actual: String = rendered
                    .messages
                    .iter()
                    .map(|m| format!("--- {}\n{}\n", m.role.as_str(), m.content))
                    .collect();
                if example.rendered.as_deref() != Some(actual.as_str()) {
                    problems.push(format!("{}: renders\n{actual}", example.origin()));
                }
            }
        }
    }
    assert!(count > 0, "no rendered examples in docs/format.md");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
