//! Command-line arguments.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use templiqx_contracts::CapabilityProfile;

const AFTER_HELP: &str = "\
Exit status: 0 when no error was found, 1 when any diagnostic is an error,
2 for usage errors and for files that cannot be read.

See docs/cli.md for every command with examples.";

/// Check, render, fingerprint and test Templiqx LLM interaction contracts
/// (templiqx/v1alpha1), and run mock scenarios against them.
#[derive(Debug, Parser)]
#[command(name = "templiqx", version)]
#[command(after_help = AFTER_HELP)]
#[command(arg_required_else_help = true, max_term_width = 100)]
pub struct Cli {
    /// What to run.
    #[command(subcommand)]
    pub command: Command,

    /// Output options, shared by every command.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Flags every command accepts.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Output format: text with diagnostics in rustc's layout, or one
    /// OperationEnvelope JSON object per line and input.
    #[arg(long, value_enum, default_value_t = Format::Human, global = true)]
    pub format: Format,

    /// When to colour human output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true, value_name = "WHEN")]
    pub color: ColorChoice,
}

/// `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Text for people: diagnostics with source snippets.
    Human,
    /// JSON Lines: one OperationEnvelope per input.
    Json,
}

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour when standard output is a terminal and NO_COLOR is not set.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check contract packages and contract files.
    ///
    /// Compiles every contract and reports every problem. A directory is a
    /// package: it holds templiqx.yaml, and every contract its manifest lists
    /// is compiled. A file is one contract; its package is the nearest
    /// ancestor directory holding templiqx.yaml.
    #[command(after_help = "\
Examples:
  templiqx check examples/crm3 --target structured_output
  templiqx check contracts/greeting.yaml -t structured_output --format json
  templiqx check examples/crm3 -t structured_output --lint openai-strict")]
    Check {
        /// Package directories or contract files.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,

        #[command(flatten)]
        target: TargetArgs,

        /// An opt-in check reported as warnings, which leave the exit
        /// status alone (repeatable).
        #[arg(long = "lint", value_enum, value_name = "LINT")]
        lints: Vec<Lint>,
    },

    /// Render a contract for the inputs and context of a request.
    ///
    /// The request is a JSON object {"inputs": {...}, "context": {...}}, the
    /// shape of the corpus eval requests. Prints the rendered messages and
    /// the contract, interaction and request fingerprints.
    #[command(after_help = "\
Examples:
  templiqx render contracts/extract.yaml -r request.json -t structured_output
  templiqx render contracts/extract.yaml -r - -t structured_output --format json")]
    Render {
        /// The contract file.
        #[arg(value_name = "CONTRACT")]
        contract: PathBuf,

        /// The request file ('-' reads standard input).
        #[arg(long, short = 'r', value_name = "REQUEST.json")]
        request: PathBuf,

        #[command(flatten)]
        target: TargetArgs,
    },

    /// Render a contract and execute it on a real model.
    ///
    /// Renders the contract for the request (as `render` does), sends it
    /// through the OpenAI-compatible or the Anthropic adapter, validates the
    /// output against the output schema, and prints the output, the receipt,
    /// attempts, latency and token counts. The API key is read from an
    /// environment variable, never from the command line. See
    /// docs/adapters.md.
    #[command(after_help = "\
Examples:
  templiqx run contracts/extract.yaml -r request.json -t structured_output \\
    --provider openai --base-url http://127.0.0.1:8080/v1 --model gemma \\
    --structured-output json-object-schema --developer-as-system --stream
  ANTHROPIC_API_KEY=... templiqx run contracts/extract.yaml -r request.json \\
    -t structured_output --provider anthropic --base-url https://api.anthropic.com \\
    --model claude-sonnet-4-5 --format json")]
    Run {
        /// The contract file.
        #[arg(value_name = "CONTRACT")]
        contract: PathBuf,

        /// The request file ('-' reads standard input).
        #[arg(long, short = 'r', value_name = "REQUEST.json")]
        request: PathBuf,

        #[command(flatten)]
        target: TargetArgs,

        #[command(flatten)]
        provider: ProviderArgs,

        /// Stream the answer, printing output fragments as they arrive.
        #[arg(long)]
        stream: bool,
    },

    /// Print the fingerprint of a JSON value.
    ///
    /// The Templiqx fingerprint is the lowercase hex SHA-256 of the value's
    /// canonical JSON (RFC 8785). With --canonical, prints exactly those
    /// bytes instead, without a trailing newline.
    #[command(after_help = "\
Examples:
  templiqx fingerprint evals/output.json
  templiqx fingerprint --canonical evals/output.json | sha256sum")]
    Fingerprint {
        /// The JSON file ('-' reads standard input).
        #[arg(value_name = "FILE.json")]
        file: PathBuf,

        /// Print the canonical JSON bytes instead of their fingerprint.
        #[arg(long)]
        canonical: bool,
    },

    /// Run the eval fixtures of packages.
    ///
    /// Every eval fixture of every contract is rendered, and its fake_output
    /// validated against the output schema. Prints one line per fixture,
    /// then the details of each failure, then "N passed, M failed".
    #[command(after_help = "\
Example:
  templiqx test examples/crm3 --target structured_output")]
    Test {
        /// Package directories (or single contract files).
        #[arg(required = true, value_name = "PACKAGE")]
        paths: Vec<PathBuf>,

        #[command(flatten)]
        target: TargetArgs,
    },

    /// Measure contracts on a model: run every eval fixture, repeatedly.
    ///
    /// Each fixture (or those --filter selects) is rendered, sent --repeat
    /// times through the provider (--concurrency at a time), its output
    /// validated against the output schema and its `expect` checks
    /// evaluated. Prints, per fixture and per contract, the pass rate and
    /// schema-valid rate with 95% Wilson intervals, pass^N, distinct
    /// outputs, latency p50/p95, tokens/s and failure codes, then the first
    /// failing executions of each fixture with their evidence (the checks
    /// that failed and the values they read, the provider's message);
    /// stores every execution in the SQLite history (--db), which `eval
    /// show` prints again; compares with a --baseline run by Fisher's exact
    /// test. `--model` repeated or `--variant` runs every fixture on several
    /// models, side by side, each compared with the first by the same test;
    /// `--prices` prices each execution, and `--max-cost` stops a run at its
    /// budget. `--provider fake` answers each fixture
    /// with its fake_output, offline. SIGINT (Ctrl-C) or SIGTERM stops
    /// issuing executions, gives those in flight 5 s to finish (then
    /// cancels them), writes the reports of what ran marked incomplete,
    /// marks the run interrupted in the history and says so in one line.
    /// Exit status: 0 when the gate passes, 1 when it fails, 2 for usage
    /// and configuration errors, 130 after SIGINT, 143 after SIGTERM. See
    /// docs/eval.md.
    #[command(
        after_help = "\
Examples:
  templiqx eval examples/crm3 -t structured_output --provider fake
  templiqx eval examples/crm3 -t structured_output --provider openai \\
    --base-url http://127.0.0.1:8080/v1 --model gemma --structured-output json-object-schema \\
    --developer-as-system --repeat 20 --concurrency 2 --min-pass-rate 0.9
  templiqx eval examples/crm3 -t structured_output --provider openai --base-url URL \\
    --model M --repeat 20 --baseline last --fail-on-regression --report eval.html --junit eval.xml
  templiqx eval examples/crm3 -t structured_output --provider fake --variant broken=fake:empty \\
    --repeat 6 --prices docs/examples/prices.yaml
  templiqx eval show            # the last run again, from the history
  templiqx eval show 12 --db ci/eval.sqlite --fixture 'lease-*::*' --report run-12.html

A package directory named `show` is written `./show`.",
        subcommand_negates_reqs = true,
        args_conflicts_with_subcommands = true
    )]
    Eval {
        /// `show`: print a stored run again instead of running.
        #[command(subcommand)]
        action: Option<Box<EvalAction>>,
        /// Package directories or contract files.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        target: TargetArgs,
        #[command(flatten)]
        provider: Box<EvalProviderArgs>,
        /// Run only the fixtures whose `contract::fixture` name matches
        /// this glob (repeatable; any match selects).
        #[arg(long = "filter", value_name = "GLOB")]
        filters: Vec<String>,
        /// Executions per fixture.
        #[arg(long, default_value_t = 1, value_name = "N",
              value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        repeat: u32,
        /// Executions in flight at once. A server that serves one request at
        /// a time makes the others wait: their wait is recorded as queue
        /// time, not latency, and a note suggests --concurrency 1.
        #[arg(long, default_value_t = 4, value_name = "C",
              value_parser = clap::value_parser!(u16).range(1..=1024))]
        concurrency: u16,
        /// The SQLite history (`:memory:` keeps nothing after the run, but
        /// holds every execution in memory while it runs).
        #[arg(long, value_name = "PATH", env = "TEMPLIQX_EVAL_DB", default_value = DEFAULT_EVAL_DB)]
        db: PathBuf,
        /// Reuse earlier executions of the same request, provider, model,
        /// sampling parameters and repeat index from the history.
        #[arg(long)]
        cache: bool,
        /// Compare with an earlier run: a run id, `last`, or a results
        /// file written by `--format json`.
        #[arg(long, value_name = "REF")]
        baseline: Option<String>,
        /// Fail (exit 1) when a pass rate is below R, in [0, 1].
        #[arg(long, value_name = "R", value_parser = parse_rate)]
        min_pass_rate: Option<f64>,
        /// What --min-pass-rate applies to: each fixture, or all executions.
        #[arg(long = "gate", value_enum, default_value_t = GateScopeArg::Fixture, value_name = "SCOPE")]
        gate_scope: GateScopeArg,
        /// Fail (exit 1) when a pass rate fell significantly against the
        /// baseline (Fisher's exact test at 0.05).
        #[arg(long, requires = "baseline")]
        fail_on_regression: bool,
        /// Write a self-contained HTML report.
        #[arg(long, value_name = "FILE.html")]
        report: Option<PathBuf>,
        /// Write a JUnit XML report (one test case per fixture).
        #[arg(long, value_name = "FILE.xml")]
        junit: Option<PathBuf>,
        /// After the table, print the first N failing executions of each
        /// fixture: the failure or the checks that failed with the values
        /// they read, and an excerpt of the output (0: none).
        #[arg(long, default_value_t = 3, value_name = "N")]
        show_failures: usize,
        /// Also run every fixture on this model (repeatable): NAME its name
        /// in the table and the history, PROVIDER openai, anthropic or fake,
        /// @URL the API base URL (none for fake). The wire flags apply to
        /// every variant. Variants are compared with the first by Fisher's
        /// exact test (docs/eval.md, "Comparing models").
        #[arg(
            long = "variant",
            value_name = "NAME=PROVIDER:MODEL@URL",
            conflicts_with = "chain"
        )]
        variants: Vec<String>,
        /// Price every execution by this YAML price table (per model, per
        /// million input and output tokens): cost per execution, fixture,
        /// variant and run; unknown prices print "unknown" (docs/eval.md,
        /// "Cost").
        #[arg(long, value_name = "FILE")]
        prices: Option<PathBuf>,
        /// Stop the run once its executions cost this much (in the price
        /// table's currency): no further execution starts, the gate fails
        /// (exit 1).
        #[arg(long, value_name = "AMOUNT", requires = "prices", value_parser = parse_amount)]
        max_cost: Option<f64>,
    },

    /// Compare two versions of contracts or packages: what changed, whether
    /// it breaks callers, consumers or hosts, and whether the version bump
    /// is enough.
    ///
    /// Each side is a package directory or a contract file; with --base REV,
    /// the old side is the path as it was at the git revision REV (read
    /// through git, nothing is checked out) and the new side the path in the
    /// working tree. Contracts are matched by id. Each change is reported
    /// with its rule id and class (breaking, may-break, compatible-shape,
    /// behaviour, no-compiled-change); each contract's and the package's
    /// version is checked against Cargo's semver rules. Exit status: 0 when
    /// every version bump suffices, 1 when one does not or a side does not
    /// compile, 2 for usage errors. See docs/diff.md.
    #[command(after_help = "\
Examples:
  templiqx diff ../released/crm3 examples/crm3
  templiqx diff --base origin/main examples/crm3
  templiqx diff --base HEAD~1 contracts/greeting.yaml --format json")]
    Diff {
        /// The old package directory or contract file; with --base, the path
        /// compared with itself at the revision.
        #[arg(value_name = "OLD")]
        old: PathBuf,

        /// The new package directory or contract file (not with --base).
        #[arg(
            value_name = "NEW",
            required_unless_present = "base",
            conflicts_with = "base"
        )]
        new: Option<PathBuf>,

        /// Compare OLD as it was at this git revision (a branch, a tag, a
        /// commit, origin/main, HEAD~1) with OLD in the working tree.
        #[arg(long, value_name = "REV")]
        base: Option<String>,

        /// The target capability profile, comma-separated or repeated;
        /// optional here: without it, each side compiles for the
        /// capabilities its contracts require.
        #[arg(long, short = 't', value_name = "CAP,...", value_delimiter = ',')]
        target: Option<Vec<String>>,
    },

    /// Run mock scenarios (templiqx.mock/v1alpha1).
    #[command(subcommand)]
    Scenarios(ScenariosCommand),

    /// Print the JSON Schema of the contract format.
    ///
    /// The schema (draft 2020-12) is generated from the compiler's own
    /// contract types, for editors such as yaml-language-server.
    #[command(after_help = "\
Example:
  templiqx schema > templiqx.schema.json")]
    Schema,

    /// Serve the Language Server Protocol over standard input and output.
    ///
    /// Editors attach it to contracts, partials and templiqx.yaml manifests:
    /// the compiler's diagnostics while typing (unsaved buffers over the
    /// disk), hover, completion, go to definition, find references, rename,
    /// quick fixes and document symbols. The client's
    /// initializationOptions.target overrides --target; with neither,
    /// capability checks are skipped. The global --format and --color do
    /// not apply: the server speaks only the protocol. See docs/cli.md,
    /// "lsp".
    #[command(after_help = "\
Example (Neovim 0.8 and later; 0.7 and other editors: docs/editors.md):
  vim.lsp.start({ name = 'templiqx', cmd = { 'templiqx', 'lsp', '--target', 'structured_output' } })")]
    Lsp {
        /// The target capability profile, comma-separated or repeated;
        /// optional here (without it, capability checks are skipped).
        #[arg(long, short = 't', value_name = "CAP,...", value_delimiter = ',')]
        target: Option<Vec<String>>,
    },

    /// Serve the Model Context Protocol over standard input and output.
    ///
    /// Every contract of the served packages is an MCP prompt (arguments:
    /// its inputs and context fields); the tools check, render,
    /// fingerprint, schema, diff and eval run the compiler, the renderer,
    /// the diff and the eval fixtures for an agent (eval on the fake
    /// provider, or on a real one with --allow-providers). Paths a client
    /// names must be inside the served PATHs. The global --format and
    /// --color do not apply: the server speaks only the protocol (revision
    /// 2025-11-25). See docs/mcp.md.
    #[command(after_help = "\
Example (Claude Code; other clients: docs/mcp.md):
  claude mcp add templiqx -- templiqx mcp examples/crm3 --target structured_output")]
    Mcp {
        /// The package directories and contract files served (default: the
        /// current directory).
        #[arg(value_name = "PATH")]
        paths: Vec<PathBuf>,

        /// The target capability profile, comma-separated or repeated;
        /// optional here (without it, each contract compiles for the
        /// capabilities it requires). A tool call's own target wins.
        #[arg(long, short = 't', value_name = "CAP,...", value_delimiter = ',')]
        target: Option<Vec<String>>,

        #[command(flatten)]
        providers: McpProviderArgs,
    },
}

/// The real provider `templiqx mcp`'s eval tool may run on.
#[derive(Debug, Args)]
#[command(next_help_heading = "Real provider for the eval tool")]
pub struct McpProviderArgs {
    /// Let the eval tool run on the provider --provider, --base-url and
    /// --model configure, when a call asks for it (it calls the model,
    /// which may cost money). Without it, eval runs on the fake provider
    /// only.
    #[arg(long, requires_all = ["provider", "base_url", "model"])]
    pub allow_providers: bool,
    /// The provider eval may run on besides fake (needs
    /// --allow-providers).
    #[arg(
        long,
        value_enum,
        value_name = "PROVIDER",
        requires = "allow_providers"
    )]
    pub provider: Option<ProviderKind>,
    /// The API base URL (see `templiqx run --help`).
    #[arg(long, value_name = "URL", requires = "allow_providers")]
    pub base_url: Option<String>,
    /// The model name sent with every request.
    #[arg(long, value_name = "MODEL", requires = "allow_providers")]
    pub model: Option<String>,
    #[command(flatten)]
    pub wire: WireArgs,
}

/// The subcommands of `templiqx scenarios`.
#[derive(Debug, Subcommand)]
pub enum ScenariosCommand {
    /// Run the conformance harness over a scenario inventory.
    ///
    /// Loads the inventory and every manifest it lists (failing closed on
    /// any problem), compiles the package it sits in for the target, then
    /// executes each scenario on the scripted mock runtime, plain and
    /// streaming, and compares every expectation: status, failure code,
    /// diagnostics, schema validity, output fingerprint, evidence, receipt
    /// policy, the receipt fingerprint of the chosen mode, and stream
    /// parity. Prints one line per scenario naming any differing field,
    /// what was not checked, then "N passed, M failed".
    #[command(after_help = "\
Examples:
  templiqx scenarios run examples/crm3/scenarios/inventory.json -t structured_output
  templiqx scenarios run scenarios/inventory.json -t structured_output --receipts transport")]
    Run {
        /// The scenario inventory (scenarios/inventory.json inside a package).
        #[arg(value_name = "INVENTORY.json")]
        inventory: PathBuf,

        #[command(flatten)]
        target: TargetArgs,

        /// Which receipt fingerprints to compare: each manifest's in-process
        /// golden_receipt_fingerprint, or the inventory's transport-level
        /// receipt_fingerprint (what the HTTP gateway reports).
        #[arg(long, value_enum, default_value_t = Receipts::InProcess, value_name = "MODE")]
        receipts: Receipts,
    },
}

/// Where `eval` keeps its history unless `--db` or `TEMPLIQX_EVAL_DB` says
/// otherwise: relative to the working directory, like `target/`.
pub const DEFAULT_EVAL_DB: &str = ".templiqx/eval.sqlite";

/// `--min-pass-rate`: a number in [0, 1].
fn parse_rate(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(r) if (0.0..=1.0).contains(&r) => Ok(r),
        _ => Err(format!("`{text}` is not a rate in [0, 1] (0.9 means 90%)")),
    }
}

/// `eval --gate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GateScopeArg {
    /// Every fixture's pass rate must reach --min-pass-rate.
    Fixture,
    /// The pass rate over all executions must reach --min-pass-rate.
    Overall,
}

/// `check --lint`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Lint {
    /// Warn (TQX_LINT_OPENAI_NOT_STRICT) when OpenAI's json_schema mode
    /// would receive a contract's output schema with strict: false.
    OpenaiStrict,
}

/// `--receipts`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Receipts {
    /// Receipts over the real rendered interaction, compared with each
    /// manifest's golden_receipt_fingerprint.
    InProcess,
    /// Receipts as the HTTP transport reports them, compared with the
    /// inventory's receipt_fingerprint.
    Transport,
}

/// Which provider adapter `run` uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProviderKind {
    /// The OpenAI Chat Completions wire format (OpenAI, Azure OpenAI, vLLM,
    /// Ollama, llama.cpp's server, LM Studio).
    Openai,
    /// The Anthropic Messages API.
    Anthropic,
}

impl ProviderKind {
    /// The adapter's name.
    pub fn name(self) -> &'static str {
        match self {
            ProviderKind::Openai => "openai",
            ProviderKind::Anthropic => "anthropic",
        }
    }
}

/// `--structured-output` (OpenAI wire format only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StructuredOutputArg {
    /// response_format json_schema (strict when the schema allows it).
    JsonSchema,
    /// response_format json_object with a schema (llama-cpp-python's server).
    JsonObjectSchema,
    /// No response_format; the schema goes into a last system message.
    PromptOnly,
}

/// How `run` reaches the model: one provider, or a --chain of them.
#[derive(Debug, Args)]
pub struct ProviderArgs {
    /// The provider's wire format.
    #[arg(
        long,
        value_enum,
        value_name = "PROVIDER",
        required_unless_present = "chain",
        conflicts_with = "chain"
    )]
    pub provider: Option<ProviderKind>,
    /// The API base URL: up to /v1 for openai (https://api.openai.com/v1),
    /// the host for anthropic (https://api.anthropic.com).
    #[arg(
        long,
        value_name = "URL",
        required_unless_present = "chain",
        conflicts_with = "chain"
    )]
    pub base_url: Option<String>,
    /// The model name sent with every request.
    #[arg(
        long,
        value_name = "MODEL",
        required_unless_present = "chain",
        conflicts_with = "chain"
    )]
    pub model: Option<String>,
    /// Instead of --provider, --base-url and --model: a chain file
    /// (templiqx.chain/v1alpha1, JSON) listing providers to fall back on
    /// or to take in turn; the wire flags below are each member's
    /// defaults. See docs/adapters.md, "Fallback chains".
    #[arg(long, value_name = "CHAIN.json")]
    pub chain: Option<PathBuf>,
    #[command(flatten)]
    pub wire: WireArgs,
    /// Show a provider's whole error message (a server's traceback) under
    /// the failure, not only its first meaningful line.
    #[arg(long)]
    pub verbose: bool,
}

/// What `eval` does instead of running.
#[derive(Debug, Subcommand)]
pub enum EvalAction {
    /// Print a stored run again, from the history alone: its table and its
    /// failures (or `--format json`, or an HTML report).
    ///
    /// The statistics are computed again from the executions the history
    /// holds (the fixtures --fixture selects), and the first failing
    /// executions of each fixture are shown with their evidence, as
    /// `templiqx eval` printed them. Exit status: 0, or 2 when the history
    /// or the run does not exist. See docs/eval.md.
    #[command(after_help = "\
Examples:
  templiqx eval show
  templiqx eval show 12 --db ci/eval.sqlite --fixture '*::dutch-client' --show-failures 10
  templiqx eval show last --report last.html
  templiqx eval show --format json")]
    Show {
        /// The run: its id, or `last` (the latest run, finished or not).
        #[arg(value_name = "RUN", default_value = "last")]
        run: String,
        /// The SQLite history.
        #[arg(long, value_name = "PATH", env = "TEMPLIQX_EVAL_DB", default_value = DEFAULT_EVAL_DB)]
        db: PathBuf,
        /// Only the fixtures whose `contract::fixture` name matches this
        /// glob (repeatable; any match selects).
        #[arg(long = "fixture", value_name = "GLOB")]
        fixtures: Vec<String>,
        /// Write a self-contained HTML report of the run.
        #[arg(long, value_name = "FILE.html")]
        report: Option<PathBuf>,
        /// Print the first N failing executions of each fixture (0: none).
        #[arg(long, default_value_t = 3, value_name = "N")]
        show_failures: usize,
    },
}

/// An amount above 0 (`--max-cost`).
fn parse_amount(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(a) if a.is_finite() && a > 0.0 => Ok(a),
        _ => Err(format!("`{text}` is not an amount above 0")),
    }
}

/// Which provider `eval` uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EvalProviderKind {
    /// The OpenAI Chat Completions wire format.
    Openai,
    /// The Anthropic Messages API.
    Anthropic,
    /// No model: each fixture is answered with its own fake_output, offline.
    Fake,
}

/// How `eval` reaches the model.
#[derive(Debug, Args)]
pub struct EvalProviderArgs {
    /// The provider: a wire format, or `fake` (each fixture answered with
    /// its fake_output).
    #[arg(
        long,
        value_enum,
        value_name = "PROVIDER",
        required_unless_present = "chain",
        conflicts_with = "chain"
    )]
    pub provider: Option<EvalProviderKind>,
    /// Instead of --provider, --base-url and --model: a chain file
    /// (templiqx.chain/v1alpha1, JSON) listing providers to fall back on
    /// or to take in turn; the wire flags are each member's defaults. See
    /// docs/adapters.md, "Fallback chains".
    #[arg(long, value_name = "CHAIN.json")]
    pub chain: Option<PathBuf>,
    /// The API base URL (openai and anthropic; see `templiqx run --help`).
    #[arg(long, value_name = "URL", conflicts_with = "chain",
          required_if_eq_any([("provider", "openai"), ("provider", "anthropic")]))]
    pub base_url: Option<String>,
    /// The model name sent with every request (openai and anthropic; for
    /// fake: fake, empty or flaky-N). Repeatable: each model is a variant
    /// on this provider and base URL, every fixture run on each and the
    /// variants compared (docs/eval.md, "Comparing models").
    #[arg(long, value_name = "MODEL", conflicts_with = "chain",
          required_if_eq_any([("provider", "openai"), ("provider", "anthropic")]))]
    pub model: Vec<String>,
    /// The provider of the judges of model-graded checks (docs/eval.md,
    /// "Judges"); default: the run's own (each variant's).
    #[arg(long, value_enum, value_name = "PROVIDER")]
    pub judge_provider: Option<EvalProviderKind>,
    /// The judges' model; default: the run's model (the first --model),
    /// or `fake` for the fake provider.
    #[arg(long, value_name = "MODEL")]
    pub judge_model: Option<String>,
    /// The judges' API base URL (openai and anthropic); default: --base-url.
    #[arg(long, value_name = "URL")]
    pub judge_base_url: Option<String>,
    #[command(flatten)]
    pub wire: WireArgs,
}

/// The flags of the OpenAI and Anthropic adapters besides the provider,
/// base URL and model.
#[derive(Clone, Debug, Args)]
pub struct WireArgs {
    /// The environment variable holding the API key (default
    /// OPENAI_API_KEY or ANTHROPIC_API_KEY); unset or empty sends no key.
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// How the output schema is sent (openai only).
    #[arg(long, value_enum, default_value_t = StructuredOutputArg::JsonSchema, value_name = "MODE")]
    pub structured_output: StructuredOutputArg,
    /// Send developer messages as system messages (openai only; for
    /// servers without the developer role).
    #[arg(long)]
    pub developer_as_system: bool,
    /// Send the token cap as max_tokens instead of max_completion_tokens
    /// (openai only; llama.cpp and older servers).
    #[arg(long)]
    pub max_tokens_field_legacy: bool,
    /// An extra request header, NAME:VALUE (repeatable).
    #[arg(long = "header", value_name = "NAME:VALUE")]
    pub headers: Vec<String>,
    /// The overall deadline of an attempt, from sending the request to the
    /// last byte of the answer, when the contract sets no
    /// runtime_policy.timeout_ms.
    #[arg(long, default_value_t = 120_000, value_name = "MS",
          value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub timeout_ms: u64,
    /// Streamed attempts: fail when the server sends nothing (not a byte,
    /// keep-alives included) for MS; default: only the overall deadline.
    #[arg(long, value_name = "MS",
          value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub idle_timeout_ms: Option<u64>,
    /// Recover an output the model did not write as JSON alone: the JSON
    /// in a Markdown code fence, then in the prose around it, then with
    /// trailing commas or single quotes fixed; never a value changed. A
    /// recovered output is validated as any other and carries a
    /// TQX_OUTPUT_RECOVERED warning; eval reports the recovery rate. Off
    /// by default. See docs/runtime.md, "Output recovery".
    #[arg(long)]
    pub recover_output: bool,
}

/// `--target`, required wherever contracts compile: the format has no
/// default capability profile.
#[derive(Debug, Args)]
pub struct TargetArgs {
    /// The target capability profile: the capabilities the model runtime
    /// offers, comma-separated or repeated (there is no default profile).
    #[arg(
        long,
        short = 't',
        required = true,
        value_name = "CAP,...",
        value_delimiter = ','
    )]
    pub target: Vec<String>,
}

impl TargetArgs {
    /// The capability profile.
    pub fn profile(&self) -> CapabilityProfile {
        CapabilityProfile::new(self.target.iter().map(|c| c.trim()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn target_accepts_lists_and_repeats() {
        let cli = Cli::try_parse_from([
            "templiqx", "check", "a", "--target", "b, a", "--target", "c",
        ])
        .unwrap();
        let Command::Check { target, .. } = cli.command else {
            panic!("not check")
        };
        assert_eq!(target.profile().iter().collect::<Vec<_>>(), ["a", "b", "c"]);
    }

    #[test]
    fn target_is_required_where_contracts_compile() {
        for args in [
            &["templiqx", "check", "a"][..],
            &["templiqx", "test", "a"],
            &["templiqx", "render", "c.yaml", "--request", "r.json"],
            &["templiqx", "scenarios", "run", "inventory.json"],
        ] {
            let err = Cli::try_parse_from(args).unwrap_err();
            assert_eq!(err.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        }
    }
}

#[cfg(test)]
mod scenario_args {
    use super::*;

    #[test]
    fn receipts_default_to_in_process() {
        let parse = |extra: &[&str]| {
            let mut args = vec!["templiqx", "scenarios", "run", "i.json", "-t", "x"];
            args.extend_from_slice(extra);
            match Cli::try_parse_from(args).unwrap().command {
                Command::Scenarios(ScenariosCommand::Run { receipts, .. }) => receipts,
                other => panic!("not scenarios run: {other:?}"),
            }
        };
        assert_eq!(parse(&[]), Receipts::InProcess);
        assert_eq!(parse(&["--receipts", "transport"]), Receipts::Transport);
        assert_eq!(parse(&["--receipts", "in-process"]), Receipts::InProcess);
        assert!(
            Cli::try_parse_from([
                "templiqx",
                "scenarios",
                "run",
                "i.json",
                "-t",
                "x",
                "--receipts",
                "http"
            ])
            .is_err()
        );
    }
}
