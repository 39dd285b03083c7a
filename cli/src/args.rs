//! Command-line arguments.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use templiqx_contracts::CapabilityProfile;

const AFTER_HELP: &str = "\
Exit status: 0 when no error was found, 1 when any diagnostic is an error,
2 for usage errors and for files that cannot be read.

See docs/cli.md for every command with examples.";

/// Check, render, fingerprint and test Templiqx LLM interaction contracts
/// (`templiqx/v1alpha1`).
#[derive(Debug, Parser)]
#[command(name = "templiqx", version, about, long_about = None)]
#[command(after_help = AFTER_HELP, propagate_version = true)]
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
    /// Output format: diagnostics in rustc's layout, or one
    /// `OperationEnvelope` JSON object per line and input.
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
    /// JSON Lines: one `OperationEnvelope` per input.
    Json,
}

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour when standard output is a terminal and `NO_COLOR` is not set.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compile contract packages and contract files and report every problem.
    ///
    /// A directory is a package: it holds `templiqx.yaml`, and every contract
    /// the manifest lists is compiled. A file is one contract; its package is
    /// the nearest ancestor directory holding `templiqx.yaml`.
    #[command(after_help = "Example: templiqx check examples/crm3 --target structured_output")]
    Check {
        /// Package directories or contract files.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,

        #[command(flatten)]
        target: TargetArgs,
    },

    /// Render a contract with the inputs and context of a request file.
    ///
    /// The request is a JSON object `{"inputs": {...}, "context": {...}}`, the
    /// shape of the corpus eval requests. Prints the rendered messages and the
    /// `contract`, `interaction` and `request` fingerprints.
    #[command(
        after_help = "Example: templiqx render contracts/extract.yaml --request evals/request.json --target structured_output"
    )]
    Render {
        /// The contract file.
        #[arg(value_name = "CONTRACT")]
        contract: PathBuf,

        /// The request file (`-` reads standard input).
        #[arg(long, short = 'r', value_name = "REQUEST.json")]
        request: PathBuf,

        #[command(flatten)]
        target: TargetArgs,
    },

    /// Print the Templiqx fingerprint of a JSON value: the SHA-256 of its
    /// canonical JSON (RFC 8785).
    #[command(after_help = "Example: templiqx fingerprint evals/output.json")]
    Fingerprint {
        /// The JSON file (`-` reads standard input).
        #[arg(value_name = "FILE.json")]
        file: PathBuf,

        /// Print the canonical JSON bytes instead of their fingerprint.
        #[arg(long)]
        canonical: bool,
    },

    /// Run every eval fixture of every contract: render it and validate its
    /// `fake_output` against the output schema.
    ///
    /// Prints one line per fixture, then the details of each failure, then
    /// `N passed, M failed`.
    #[command(after_help = "Example: templiqx test examples/crm3 --target structured_output")]
    Test {
        /// Package directories (or single contract files).
        #[arg(required = true, value_name = "PACKAGE")]
        paths: Vec<PathBuf>,

        #[command(flatten)]
        target: TargetArgs,
    },

    /// Print the JSON Schema (draft 2020-12) of the contract format, for
    /// editors such as yaml-language-server.
    #[command(after_help = "Example: templiqx schema > templiqx.schema.json")]
    Schema,
}

/// `--target`, required wherever contracts compile: the format has no
/// default capability profile.
#[derive(Debug, Args)]
pub struct TargetArgs {
    /// The target capability profile: capabilities the model runtime offers,
    /// comma-separated or repeated (`--target structured_output,tools`).
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
        ] {
            let err = Cli::try_parse_from(args).unwrap_err();
            assert_eq!(err.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        }
    }
}
