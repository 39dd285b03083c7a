//! The front door of the compiler for a single contract text: YAML →
//! DTOs → validation and lowering, with every diagnostic located.
//!
//! Files are never read here (the portable core); the package layer reads
//! files and composes includes before calling [`check::compile_contract`].
//!
//! [`check::compile_contract`]: crate::check::compile_contract

use crate::dto::{Contract, FileId};
use crate::source::Sources;
use crate::{check, parse, yaml};
use templiqx_contracts::{
    CapabilityProfile, Diagnostic, Interaction, Operation, OperationEnvelope,
};

/// Parses the YAML text of file `file` of `sources` into a [`Contract`].
///
/// # Errors
/// `TQX_PARSE_YAML` for YAML problems, then the strict-DTO codes
/// (`TQX_UNKNOWN_FIELD`, `TQX_MISSING_FIELD`, `TQX_INVALID_TYPE`,
/// `TQX_UNKNOWN_VARIANT`, `TQX_POLICY_RANGE`, ...), all located.
pub fn parse_file(sources: &mut Sources, file: FileId) -> Result<Contract, Vec<Diagnostic>> {
    let Some(src) = sources.get(file) else {
        return Err(vec![Diagnostic::error(
            templiqx_contracts::Code::Io,
            format!("no source file {file}"),
        )]);
    };
    let name = src.name.clone();
    let root = yaml::parse(&src.text).map_err(|d| vec![d.in_file(name.clone())])?;
    let result = parse::parse_contract(&root, file, &name);
    sources.set_root(file, std::sync::Arc::new(root));
    result
}

/// The outcome of compiling one contract text.
#[derive(Debug)]
pub struct Compilation {
    /// Every file involved (here: one), for rendering diagnostics with snippets.
    pub sources: Sources,
    /// The parsed contract, when it parsed.
    pub contract: Option<Contract>,
    /// The compiled interaction, when there were no errors.
    pub interaction: Option<Interaction>,
    /// Every diagnostic, in the order found.
    pub diagnostics: Vec<Diagnostic>,
}

impl Compilation {
    /// The `compile` operation envelope: the interaction's fingerprints
    /// (`contract`, `interaction`) and diagnostics; the result is the
    /// contract id.
    pub fn envelope(&self) -> OperationEnvelope<String> {
        let mut env = OperationEnvelope::new(
            Operation::Compile,
            self.interaction.as_ref().map(|i| i.contract_id.to_string()),
            self.diagnostics.clone(),
        );
        if let Some(i) = &self.interaction {
            env = env
                .with_fingerprint("contract", i.contract_fingerprint.to_string())
                .with_fingerprint("interaction", i.interaction_fingerprint.to_string());
        }
        env
    }

    /// Renders every diagnostic in rustc's layout, with snippets.
    pub fn render_diagnostics(&self) -> String {
        crate::report::render_all(&self.diagnostics, &|name| {
            self.sources.by_name(name).map(|f| f.text.clone())
        })
    }
}

/// Compiles one self-contained contract text (no includes or tool-contract
/// references, which need a package) for `target` (`docs/format.md`).
///
/// `file_name` is how diagnostics name the file. Never fails as a call:
/// problems are the [`Compilation`]'s diagnostics, every one located (file,
/// JSON Pointer, line/column) — `TQX_PARSE_YAML` and the strict-DTO codes
/// as [`parse_file`] gives them, then the checker's codes (`TQX_REF_UNKNOWN`,
/// `TQX_TYPE_MISMATCH`, `TQX_SCHEMA_UNSUPPORTED`,
/// `TQX_CAPABILITY_UNSUPPORTED`, …); includes and tool contracts are
/// resolved only by a [`Loader`](crate::Loader). The catalogue of codes,
/// each with an example, is `docs/diagnostics.md`.
pub fn compile_str(text: &str, file_name: &str, target: &CapabilityProfile) -> Compilation {
    let mut sources = Sources::new();
    let file = sources.add(file_name, text);
    match parse_file(&mut sources, file) {
        Err(diagnostics) => Compilation {
            sources,
            contract: None,
            interaction: None,
            diagnostics,
        },
        Ok(contract) => match check::compile_contract(&contract, &sources, target) {
            Ok(interaction) => Compilation {
                sources,
                contract: Some(contract),
                interaction: Some(interaction),
                diagnostics: Vec::new(),
            },
            Err(diagnostics) => Compilation {
                sources,
                contract: Some(contract),
                interaction: None,
                diagnostics,
            },
        },
    }
}

/// The `parse` operation (`docs/diagnostics.md`, "Operation envelopes"): strict
/// parsing of one contract text; the result is the parsed contract.
pub fn parse_str(text: &str, file_name: &str) -> OperationEnvelope<Contract> {
    let mut sources = Sources::new();
    let file = sources.add(file_name, text);
    match parse_file(&mut sources, file) {
        Ok(contract) => OperationEnvelope::new(Operation::Parse, Some(contract), Vec::new()),
        Err(diagnostics) => OperationEnvelope::new(Operation::Parse, None, diagnostics),
    }
}

/// The `validate` operation (`docs/diagnostics.md`, "Operation envelopes"):
/// parsing and validation for `target`, without keeping the lowered
/// interaction; the result is the contract id, and the `contract`
/// fingerprint is set when the contract is valid. Its diagnostics are those
/// of [`compile_str`].
pub fn validate_str(
    text: &str,
    file_name: &str,
    target: &CapabilityProfile,
) -> OperationEnvelope<String> {
    let c = compile_str(text, file_name, target);
    let mut env = OperationEnvelope::new(
        Operation::Validate,
        c.interaction.as_ref().map(|i| i.contract_id.to_string()),
        c.diagnostics,
    );
    if let Some(i) = &c.interaction {
        env = env.with_fingerprint("contract", i.contract_fingerprint.to_string());
    }
    env
}
