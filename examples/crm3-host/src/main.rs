//! The main job: the CRM3-style example end to end, with contracts compiled
//! at build time and a scripted model (the mock runtime) standing in for a
//! provider.
//!
//! 1. Render the extraction contract from its eval request (typed values).
//! 2. Execute it on the mock runtime (scenario `lease-happy-path`).
//! 3. Decode the output into the generated, typed `Output`.
//! 4. Convert it into the drafting contract's typed input and render that.
//! 5. Execute the drafting contract with streaming (scenario
//!    `lease-summary-streamed`) and decode its output.
//!
//! Every step prints what it produced: rendered messages, fingerprints and
//! the payload-free receipts.
//!
//! With `CRM3_PROVIDER=openai` or `CRM3_PROVIDER=anthropic` (plus
//! `CRM3_BASE_URL`, `CRM3_MODEL`, and for OpenAI-compatible servers
//! optionally `CRM3_STRUCTURED_OUTPUT=json-schema|json-object-schema|prompt-only`
//! `CRM3_DEVELOPER_AS_SYSTEM=1` and `CRM3_MAX_TOKENS_FIELD=max_tokens`;
//! `CRM3_TIMEOUT_MS` for the per-attempt timeout, default 120 s; the key from `OPENAI_API_KEY` or
//! `ANTHROPIC_API_KEY`), steps 2 and 5 run on that real model through
//! `templiqx-openai` / `templiqx-anthropic` instead, and print latency and
//! token counts too (`docs/adapters.md`). Without `CRM3_PROVIDER`, the mock
//! runs and the output is unchanged.
//!
//! A failure (a provider that cannot be reached, an output that violates the
//! schema, a bad setting) is printed on stderr as diagnostics in the
//! project's layout (`error[TQX_…]: message`, `docs/diagnostics.md`), and
//! the host exits with code 1.

#![deny(warnings)]

use crm3_host::{
    lease_summary_drafting as drafting, lease_term_extraction as extraction, lease_terms,
};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use templiqx::contracts::Diagnostics;
use templiqx::contracts::json::{self, Json};
use templiqx::{
    AsyncRuntimeAdapter, DecodeError, Diagnostic, Execution, ExecutionError, Receipt, RenderError,
    RenderedInteraction, RuntimeAdapter, StreamEvent,
};
use templiqx_mock::{Inventory, MockError, ScriptedRuntime, VirtualClock};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn package_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../crm3")
}

fn read_json(rel: &str) -> Result<Json> {
    let path = package_dir().join(rel);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(json::parse(&text).map_err(|d| Diagnostics::one(d.in_file(path.display().to_string())))?)
}

fn print_request(
    title: &str,
    contract_fp: &str,
    interaction_fp: &str,
    request: &RenderedInteraction<'_>,
) {
    println!("== {title}");
    for m in &request.messages {
        println!("-- {}", m.role.as_str());
        println!("{}", m.content);
    }
    println!("   contract fingerprint    {contract_fp}");
    println!("   interaction fingerprint {interaction_fp}");
    println!(
        "   request fingerprint     {}",
        request.request_fingerprint()
    );
}

fn print_receipt(receipt: &Receipt, attempts: u32, clock: &VirtualClock) {
    match receipt {
        Receipt::Success {
            output_fingerprint, ..
        } => {
            println!("   receipt: success, output fingerprint {output_fingerprint}");
        }
        Receipt::Failure { code, .. } => println!("   receipt: failure {code}"),
    }
    println!("   receipt fingerprint     {}", receipt.fingerprint());
    println!("   attempts {attempts}, virtual time {} ms", clock.now_ms());
}

/// A real model, chosen by `CRM3_PROVIDER`.
enum Live {
    OpenAi(templiqx_openai::OpenAiAdapter),
    Anthropic(templiqx_anthropic::AnthropicAdapter),
}

impl Live {
    /// The provider named by the environment, or `None` for the mock.
    fn from_env() -> Result<Option<Live>> {
        let Ok(provider) = std::env::var("CRM3_PROVIDER") else {
            return Ok(None);
        };
        let var = |name: &str| {
            std::env::var(name).map_err(|_| format!("CRM3_PROVIDER is set: set {name} too"))
        };
        let base_url = var("CRM3_BASE_URL")?;
        let model = var("CRM3_MODEL")?;
        // The per-attempt timeout when the contract sets none (default 120 s).
        let timeout = match std::env::var("CRM3_TIMEOUT_MS") {
            Err(_) => std::time::Duration::from_secs(120),
            Ok(ms) => std::time::Duration::from_millis(
                ms.parse::<u64>()
                    .ok()
                    .filter(|ms| *ms > 0)
                    .ok_or("CRM3_TIMEOUT_MS: expected a positive number of milliseconds")?,
            ),
        };
        Ok(Some(match provider.as_str() {
            "openai" => {
                use templiqx_openai::{DeveloperRole, OpenAiConfig, StructuredOutput};
                let mut config = OpenAiConfig::new(base_url, model).timeout(timeout);
                config.api_key = templiqx_openai::ApiKey::from_env(templiqx_openai::API_KEY_VAR)?;
                config = config.structured_output(
                    match std::env::var("CRM3_STRUCTURED_OUTPUT").as_deref() {
                        Err(_) | Ok("json-schema") => StructuredOutput::JsonSchema,
                        Ok("json-object-schema") => StructuredOutput::JsonObjectSchema,
                        Ok("prompt-only") => StructuredOutput::PromptOnly,
                        Ok(other) => {
                            return Err(format!(
                                "CRM3_STRUCTURED_OUTPUT: expected json-schema, json-object-schema or prompt-only, found `{other}`"
                            )
                            .into());
                        }
                    },
                );
                if std::env::var("CRM3_DEVELOPER_AS_SYSTEM").is_ok_and(|v| v == "1") {
                    config = config.developer_role(DeveloperRole::System);
                }
                if std::env::var("CRM3_MAX_TOKENS_FIELD").is_ok_and(|v| v == "max_tokens") {
                    config = config.max_tokens_field(templiqx_openai::MaxTokensField::MaxTokens);
                }
                Live::OpenAi(templiqx_openai::OpenAiAdapter::new(config)?)
            }
            "anthropic" => {
                let mut config =
                    templiqx_anthropic::AnthropicConfig::new(base_url, model).timeout(timeout);
                config.api_key =
                    templiqx_anthropic::ApiKey::from_env(templiqx_anthropic::API_KEY_VAR)?;
                Live::Anthropic(templiqx_anthropic::AnthropicAdapter::new(config)?)
            }
            other => {
                return Err(format!(
                    "CRM3_PROVIDER: expected openai or anthropic, found `{other}`"
                )
                .into());
            }
        }))
    }

    /// Executes on the model, streaming into `sink` when given; prints the
    /// receipt, attempts, latency and token counts.
    fn run(
        &self,
        request: &RenderedInteraction<'_>,
        sink: Option<&mut (dyn FnMut(StreamEvent) + Send)>,
    ) -> Result<Execution> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let started = std::time::Instant::now();
        let result: std::result::Result<Execution, ExecutionError> = runtime.block_on(async {
            match (self, sink) {
                (Live::OpenAi(a), None) => a.execute(request).await,
                (Live::OpenAi(a), Some(s)) => a.execute_streaming(request, s).await,
                (Live::Anthropic(a), None) => a.execute(request).await,
                (Live::Anthropic(a), Some(s)) => a.execute_streaming(request, s).await,
            }
        });
        let ms = started.elapsed().as_millis();
        match result {
            Ok(execution) => {
                print_live_receipt(&execution.receipt, execution.attempts, ms);
                if let Some(u) = execution.usage {
                    let rate = u.output_tokens as f64 / started.elapsed().as_secs_f64();
                    println!(
                        "   tokens: {} in, {} out ({rate:.1} output tokens/s)",
                        u.input_tokens, u.output_tokens
                    );
                }
                Ok(execution)
            }
            Err(error) => {
                // The diagnostics go to stderr, from `main` (`report`).
                print_live_receipt(&error.receipt, error.attempts, ms);
                Err(error.into())
            }
        }
    }
}

fn print_live_receipt(receipt: &Receipt, attempts: u32, latency_ms: u128) {
    match receipt {
        Receipt::Success {
            output_fingerprint, ..
        } => {
            println!("   receipt: success, output fingerprint {output_fingerprint}");
        }
        Receipt::Failure { code, .. } => println!("   receipt: failure {code}"),
    }
    println!("   receipt fingerprint     {}", receipt.fingerprint());
    println!("   attempts {attempts}, latency {latency_ms} ms");
}

/// What the host prints on stderr for a failure: the diagnostics as
/// [`Diagnostics`] displays them (`error[CODE]: message`, then
/// `  = help: …`), the layout of every Templiqx error; a failure that is
/// not a diagnostic (a bad `CRM3_*` setting) as `error: message`.
fn report(error: &(dyn std::error::Error + 'static)) -> String {
    if let Some(e) = error.downcast_ref::<ExecutionError>() {
        let mut diagnostics = Diagnostics::from(e.diagnostics.clone());
        if diagnostics.is_empty() {
            diagnostics.push(Diagnostic::error(e.failure.code, e.failure.detail.clone()));
        }
        return diagnostics.to_string();
    }
    if error.is::<DecodeError>()
        || error.is::<RenderError>()
        || error.is::<MockError>()
        || error.is::<Diagnostics>()
    {
        return error.to_string();
    }
    format!("error: {error}")
}

/// Prints the execution spans (`docs/runtime.md`, "Traces") on stderr when
/// `RUST_LOG` asks for them (`RUST_LOG=templiqx=info`); with
/// `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` they carry the
/// prompts and outputs too. A host that exports to an OpenTelemetry
/// collector adds `tracing-opentelemetry`'s layer here instead
/// (`docs/adapters.md`, "Traces").
fn init_traces() {
    let Ok(filter) = tracing_subscriber::EnvFilter::try_from_default_env() else {
        return;
    };
    if std::env::var("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")
        .is_ok_and(|v| v.eq_ignore_ascii_case("true"))
    {
        templiqx::trace::set_capture_content(true);
    }
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .init();
}

fn main() -> ExitCode {
    init_traces();
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{}", report(error.as_ref()));
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<()> {
    let live = Live::from_env()?;
    let inventory = Inventory::load(package_dir().join("scenarios/inventory.json"))?;
    let scenario = |id: &str| -> Result<&templiqx_mock::Scenario> {
        Ok(&inventory
            .get(id)
            .ok_or_else(|| format!("scenario `{id}` is not in the inventory"))?
            .scenario)
    };
    let target = templiqx::contracts::CapabilityProfile::parse_list("structured_output");

    // 1. Render the extraction from its eval request, as typed values.
    let request = read_json("evals/extraction-request.json")?;
    let inputs: extraction::Inputs = json::from_json(&request["inputs"])?;
    let context: extraction::Context = json::from_json(&request["context"])?;
    let rendered = extraction::render(&inputs, &context)?;
    print_request(
        "lease-term-extraction",
        extraction::CONTRACT_FINGERPRINT,
        extraction::INTERACTION_FINGERPRINT,
        &rendered,
    );

    // 2. Execute it on the mock runtime (or the real model).
    let execution = match &live {
        Some(live) => live.run(&rendered, None)?,
        None => {
            let clock = VirtualClock::new();
            let model = ScriptedRuntime::new(scenario("lease-happy-path")?, &target)?
                .with_clock(clock.clone());
            let execution = RuntimeAdapter::execute(&model, &rendered)?;
            print_receipt(&execution.receipt, execution.attempts, &clock);
            execution
        }
    };

    // 3. Decode into the generated `Output` (validated against output_schema).
    let facts = extraction::decode_output(&execution.output)?;
    println!(
        "   decoded: {} .. {}, EUR {} per month, {} days' notice, {} evidence links",
        facts.start_date,
        facts.end_date,
        facts.monthly_rent,
        facts.notice_days,
        facts.evidence.len()
    );

    // 4. Typed hand-off into the drafting contract.
    let inputs = drafting::Inputs {
        lease_terms: lease_terms(&facts),
        formal: true,
    };
    let context = drafting::Context {
        client_name: "Voorbeeld Vastgoed B.V.".to_owned(),
        matter_reference: context.matter_reference,
        locale: Some("nl-NL".to_owned()),
    };
    let rendered = drafting::render(&inputs, &context)?;
    print_request(
        "lease-summary-drafting",
        drafting::CONTRACT_FINGERPRINT,
        drafting::INTERACTION_FINGERPRINT,
        &rendered,
    );

    // 5. Execute with streaming; the terminal event carries the receipt.
    let mut deltas = 0;
    let mut completed = None;
    let mut sink = |event: StreamEvent| match event {
        StreamEvent::Delta { .. } => deltas += 1,
        StreamEvent::Complete { receipt } => completed = Some(receipt),
        _ => {}
    };
    let execution = match &live {
        Some(live) => {
            let execution = live.run(&rendered, Some(&mut sink))?;
            println!(
                "   streamed {deltas} deltas; Complete carried the execute receipt: {}",
                completed.as_ref() == Some(&execution.receipt)
            );
            execution
        }
        None => {
            let clock = VirtualClock::new();
            let model = ScriptedRuntime::new(scenario("lease-summary-streamed")?, &target)?
                .with_clock(clock.clone());
            let execution = RuntimeAdapter::execute_streaming(&model, &rendered, &mut sink)?;
            println!(
                "   streamed {deltas} deltas; Complete carried the execute receipt: {}",
                completed.as_ref() == Some(&execution.receipt)
            );
            print_receipt(&execution.receipt, execution.attempts, &clock);
            execution
        }
    };
    let summary = drafting::decode_output(&execution.output)?;
    println!("   decoded: {:?}: {}", summary.title, summary.summary);
    Ok(())
}
