//! The main job: the CRM3-style example end to end, with contracts compiled
//! at build time and a scripted model (the mock runtime) standing in for a
//! provider.
//!
//! 1. Take the extraction contract's request from its eval fixture
//!    (`EVALS`, fixture `fixed-term-lease`), as typed values.
//! 2. One typed call (`extraction::execute`): render it, execute it on the
//!    mock runtime (scenario `lease-happy-path`), and decode the output
//!    into the generated, typed `Output`.
//! 3. Evaluate the fixture's `expect` checks against that output.
//! 4. Convert it into the drafting contract's typed input.
//! 5. Execute the drafting contract with streaming
//!    (`drafting::execute_partial`, scenario `lease-summary-streamed`):
//!    the generated `PartialOutput` is shown as the model writes it (on a
//!    terminal, one line updated in place; otherwise a line each time the
//!    value being written moves on, and every 200 characters it grows by,
//!    so a long string never looks stalled, `docs/runtime.md`, "Typed
//!    streaming"), then how many deltas and partial outputs streamed (also
//!    when the execution fails) and the typed output with its receipt.
//!
//! Each model call starts with a header line naming its step, its contract
//! and what it runs on (`== lease-term-extraction: step 1 of 2, extraction
//! …`), printed before the call, so a call that fails or takes minutes on a
//! real model is labelled too; then what it produced: rendered messages,
//! fingerprints and the payload-free receipts.
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
use std::future::Future;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use templiqx::contracts::Diagnostics;
use templiqx::{
    ExecuteError, Executed, Receipt, RenderedInteraction, Snapshot, StreamEvent, Streamed,
};
use templiqx_mock::{Inventory, MockError, ScriptedRuntime, VirtualClock};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn package_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../crm3")
}

/// The header line of one model call, printed before the call: the
/// contract, the step, and what it runs on.
fn print_step(contract_id: &str, step: u32, what: &str, on: &str) {
    println!("== {contract_id}: step {step} of 2, {what}, on {on}");
}

/// The request that was sent: each rendered message, and the fingerprints.
fn print_request(request: &RenderedInteraction<'_>) {
    let interaction = request.interaction;
    println!(
        "   rendered request, {} message(s):",
        request.messages.len()
    );
    for m in &request.messages {
        println!("-- {}", m.role.as_str());
        println!("{}", m.content);
    }
    println!(
        "   contract fingerprint    {}",
        interaction.contract_fingerprint
    );
    println!(
        "   interaction fingerprint {}",
        interaction.interaction_fingerprint
    );
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

/// One line describing the drafting output as far as it was written: each
/// field done, being written (with what it shows so far, unless `short`:
/// a line redrawn in place must fit a terminal's width) or not started.
fn describe(snapshot: &Snapshot<'_, drafting::PartialOutput>, short: bool) -> String {
    let state = |pointer: &str| {
        if snapshot.is_writing(pointer) {
            "writing"
        } else {
            "done"
        }
    };
    let text = |name: &str, value: &Option<String>| match value {
        None => format!("{name} not started"),
        Some(v) => {
            let chars = v.chars().count();
            let state = state(&format!("/{name}"));
            if short {
                return format!("{name} {state} ({chars})");
            }
            let shown: String = if chars > 24 {
                let tail: String = v.chars().skip(chars - 24).collect();
                format!("…{tail}")
            } else {
                v.clone()
            };
            format!("{name} {state} {shown:?} ({chars} chars)")
        }
    };
    let output = snapshot.output;
    let merge = match &output.merge_fields {
        None => "merge_fields not started".to_owned(),
        Some(m) => {
            let filled = [&m.client, &m.term, &m.rent]
                .iter()
                .filter(|f| f.is_some())
                .count();
            let state = state("/merge_fields");
            if short {
                format!("merge_fields {state} ({filled}/3)")
            } else {
                format!("merge_fields {state}, {filled} of 3 started")
            }
        }
    };
    format!(
        "   partial after delta {}: {}; {}; {merge}",
        snapshot.delta,
        text("title", &output.title),
        text("summary", &output.summary)
    )
}

/// Off a terminal, a partial output line is printed each time the value
/// being written grows by this many characters (as well as each time the
/// writing moves on to another value).
const GROWTH_LINE_CHARS: usize = 200;

/// The characters of every string of the drafting output written so far:
/// while one value is being written, only it grows.
fn written_chars(output: &drafting::PartialOutput) -> usize {
    let chars = |v: &Option<String>| v.as_ref().map_or(0, |s| s.chars().count());
    let merge = output
        .merge_fields
        .as_ref()
        .map_or(0, |m| chars(&m.client) + chars(&m.term) + chars(&m.rent));
    chars(&output.title) + chars(&output.summary) + merge
}

/// What the drafting step shows while it streams: the deltas and the
/// receipt of the terminal event, and the partial output (in place on a
/// terminal; else a line each time the value being written moves on or
/// has grown by [`GROWTH_LINE_CHARS`]).
struct Shown {
    deltas: usize,
    completed: Option<Receipt>,
    in_place: bool,
    writing: Option<Option<String>>,
    /// [`written_chars`] at the last line printed off a terminal.
    printed_chars: usize,
    partials: usize,
}

impl Shown {
    fn new() -> Shown {
        Shown {
            deltas: 0,
            completed: None,
            in_place: std::io::stdout().is_terminal(),
            writing: None,
            printed_chars: 0,
            partials: 0,
        }
    }

    fn event(&mut self, event: Streamed<'_, drafting::PartialOutput>) {
        match event {
            Streamed::Event(StreamEvent::Delta { .. }) => self.deltas += 1,
            Streamed::Event(StreamEvent::Complete { receipt }) => {
                self.completed = Some(receipt.clone());
            }
            Streamed::Event(_) => {}
            Streamed::Partial(snapshot) => {
                self.partials += 1;
                let line = describe(&snapshot, self.in_place);
                if self.in_place {
                    // Back to the start of the line, clear it, redraw.
                    print!("\r\x1b[K{line}");
                    let _ = std::io::stdout().flush();
                } else {
                    let writing = snapshot.writing.map(str::to_owned);
                    let chars = written_chars(snapshot.output);
                    if self.writing.as_ref() != Some(&writing)
                        || chars >= self.printed_chars + GROWTH_LINE_CHARS
                    {
                        println!("{line}");
                        self.writing = Some(writing);
                        self.printed_chars = chars;
                    }
                }
            }
        }
    }

    /// Ends the in-place line, then says what streamed: with the receipt
    /// of the execution, whether the terminal event carried it; without
    /// (the execution failed), that no typed output came.
    fn finish(&self, receipt: Option<&Receipt>) {
        if self.in_place && self.partials > 0 {
            println!();
        }
        match receipt {
            Some(receipt) => println!(
                "   streamed {} deltas, {} partial outputs; Complete carried the execute receipt: {}",
                self.deltas,
                self.partials,
                self.completed.as_ref() == Some(receipt)
            ),
            None => println!(
                "   streamed {} deltas, {} partial outputs; the execution failed, no typed output",
                self.deltas, self.partials
            ),
        }
    }
}

/// A real model, chosen by `CRM3_PROVIDER`.
enum Live {
    OpenAi(templiqx_openai::OpenAiAdapter),
    Anthropic(templiqx_anthropic::AnthropicAdapter),
}

impl Live {
    /// The provider named by the environment and a label for the step
    /// headers (`openai model `m` at URL`), or `None` for the mock.
    fn from_env() -> Result<Option<(Live, String)>> {
        let Ok(provider) = std::env::var("CRM3_PROVIDER") else {
            return Ok(None);
        };
        let var = |name: &str| {
            std::env::var(name).map_err(|_| format!("CRM3_PROVIDER is set: set {name} too"))
        };
        let base_url = var("CRM3_BASE_URL")?;
        let model = var("CRM3_MODEL")?;
        let label = format!("{provider} model `{model}` at {base_url}");
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
        let live = match provider.as_str() {
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
        };
        Ok(Some((live, label)))
    }

    /// Runs one typed call on the model (`call`, made by `on_live!`);
    /// prints the request, the receipt, attempts, latency and token counts
    /// (on failure, the receipt and attempts).
    fn run<O>(
        &self,
        call: impl Future<Output = std::result::Result<Executed<O>, ExecuteError>>,
    ) -> Result<Executed<O>> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let started = std::time::Instant::now();
        let result = runtime.block_on(call);
        let ms = started.elapsed().as_millis();
        match result {
            Ok(executed) => {
                print_request(&executed.request);
                print_live_receipt(&executed.receipt, executed.attempts, ms);
                if let Some(u) = executed.usage {
                    let rate = u.output_tokens as f64 / started.elapsed().as_secs_f64();
                    println!(
                        "   tokens: {} in, {} out ({rate:.1} output tokens/s)",
                        u.input_tokens, u.output_tokens
                    );
                }
                Ok(executed)
            }
            Err(error) => {
                // The diagnostics go to stderr, from `main` (`report`).
                if let Some(receipt) = error.receipt() {
                    print_live_receipt(receipt, error.attempts(), ms);
                }
                Err(error.into())
            }
        }
    }
}

/// One typed async call of a generated module on whichever provider `live`
/// holds: `on_live!(live, adapter => extraction::execute_async(adapter, ..))`.
macro_rules! on_live {
    ($live:expr, $adapter:ident => $call:expr) => {
        $live.run(async {
            match $live {
                Live::OpenAi($adapter) => $call.await,
                Live::Anthropic($adapter) => $call.await,
            }
        })
    };
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
    if error.is::<ExecuteError>() || error.is::<MockError>() || error.is::<Diagnostics>() {
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
    let (live, on) = match Live::from_env()? {
        Some((live, label)) => (Some(live), label),
        None => (None, String::new()),
    };
    let on_mock = |scenario: &str| format!("the mock runtime, scenario `{scenario}`");
    let inventory = Inventory::load(package_dir().join("scenarios/inventory.json"))?;
    let scenario = |id: &str| -> Result<&templiqx_mock::Scenario> {
        Ok(&inventory
            .get(id)
            .ok_or_else(|| format!("scenario `{id}` is not in the inventory"))?
            .scenario)
    };
    let target = templiqx::contracts::CapabilityProfile::parse_list("structured_output");

    // 1. The extraction's request, from its eval fixture, as typed values.
    let fixture = extraction::EVALS
        .iter()
        .find(|f| f.id == "fixed-term-lease")
        .ok_or("eval fixture `fixed-term-lease` is not in the extraction contract")?;
    let inputs: extraction::Inputs = fixture.inputs()?;
    let context: extraction::Context = fixture.context()?;

    // 2. One typed call: render, execute on the mock runtime (or the real
    //    model), decode into the generated `Output`.
    print_step(
        extraction::CONTRACT_ID,
        1,
        &format!("extraction of fixture `{}`", fixture.id),
        &if live.is_some() {
            on.clone()
        } else {
            on_mock("lease-happy-path")
        },
    );
    let executed = match &live {
        Some(live) => {
            on_live!(live, adapter => extraction::execute_async(adapter, &inputs, &context))?
        }
        None => {
            let clock = VirtualClock::new();
            let model = ScriptedRuntime::new(scenario("lease-happy-path")?, &target)?
                .with_clock(clock.clone());
            let executed = extraction::execute(&model, &inputs, &context)?;
            print_request(&executed.request);
            print_receipt(&executed.receipt, executed.attempts, &clock);
            executed
        }
    };
    let facts = executed.output;
    println!(
        "   decoded: {} .. {}, EUR {} per month, {} days' notice, {} evidence links",
        facts.start_date,
        facts.end_date,
        facts.monthly_rent,
        facts.notice_days,
        facts.evidence.len()
    );

    // 3. The fixture's `expect` checks, against the output of this run.
    let outcomes = fixture.evaluate_checks(&inputs, &context, &facts);
    let passed = outcomes.iter().filter(|o| o.passed()).count();
    println!(
        "   checks of `{}`: {passed} of {} passed",
        fixture.id,
        outcomes.len()
    );
    for outcome in outcomes.iter().filter(|o| !o.passed()) {
        println!("   {}", outcome.to_string().replace('\n', "\n   "));
    }

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

    // 5. Execute with streaming, showing the typed partial output as it is
    //    written; the terminal event carries the receipt.
    print_step(
        drafting::CONTRACT_ID,
        2,
        "drafting from the extracted terms, streamed",
        &if live.is_some() {
            on.clone()
        } else {
            on_mock("lease-summary-streamed")
        },
    );
    let mut shown = Shown::new();
    let executed = match &live {
        Some(live) => {
            let mut sink = |event: Streamed<'_, drafting::PartialOutput>| shown.event(event);
            let executed = on_live!(live, adapter => {
                drafting::execute_partial_async(adapter, &inputs, &context, &mut sink)
            });
            shown.finish(executed.as_ref().ok().map(|e| &e.receipt));
            executed?
        }
        None => {
            let clock = VirtualClock::new();
            let model = ScriptedRuntime::new(scenario("lease-summary-streamed")?, &target)?
                .with_clock(clock.clone());
            let executed = drafting::execute_partial(&model, &inputs, &context, &mut |event| {
                shown.event(event)
            });
            shown.finish(executed.as_ref().ok().map(|e| &e.receipt));
            let executed = executed?;
            print_request(&executed.request);
            print_receipt(&executed.receipt, executed.attempts, &clock);
            executed
        }
    };
    let summary = executed.output;
    println!("   decoded: {:?}: {}", summary.title, summary.summary);
    Ok(())
}
