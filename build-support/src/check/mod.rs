//! Validation and lowering of a parsed (and composed) contract.
//!
//! One pass resolves every reference against the declared schemas, checks
//! the types every construct needs (`docs/format.md`, "Typing rules"),
//! checks components, capabilities, extensions and eval fixtures, and —
//! when nothing is wrong — produces the [`Interaction`] IR. All problems
//! are reported at once.
//!
//! [`compile_contract_with`] is the driver: it runs one function per phase,
//! in this order, each adding its diagnostics to the shared `Cx`:
//!
//! | phase | function | module |
//! |---|---|---|
//! | header (`api_version`, `id`, `version`, `messages`) | `Cx::header` | `contract` |
//! | capabilities against the target profile | `Cx::capabilities` | `contract` |
//! | declarations (`inputs`, `context`, `output_schema`) | `Cx::declarations` | `contract` |
//! | component signatures, `for_each` depths, cycles | `Cx::component_signatures`, `component_depths`, `Cx::component_cycles` | `components` |
//! | component lowering | `lower::components` | `lower` |
//! | messages | `lower::messages` | `lower` |
//! | extensions | `Cx::extensions` | `contract` |
//! | eval fixtures | `Cx::evals` | `evals` |
//! | assembly of the IR and its fingerprints | `assemble` | `contract` |
//!
//! The static types of expressions and assignability are in `types`.

mod components;
mod contract;
mod evals;
mod lower;
mod types;

pub(crate) use types::known_types;

use crate::dto::{self, Contract, Loc};
use crate::schema::compile_schema;
use crate::source::Sources;
use components::{Signature, component_depths};
use templiqx_contracts::ir::{self, Root};
use templiqx_contracts::validate::{SchemaViolation, validate};
use templiqx_contracts::{
    AsValue, CapabilityProfile, Code, Diagnostic, Interaction, Schema, Str, Suggestion,
};

/// The root scopes of a reference, in the order validation matches them.
///
/// This is the one list: the reserved local names ([`is_reserved`]) are
/// derived from it, so adding a root scope reserves its name too
/// (`docs/format.md`, "References and scoping").
pub(crate) const ROOT_SCOPES: &[(&str, Root)] =
    &[("inputs", Root::Inputs), ("context", Root::Context)];

/// The root scope of the model output, in `expect` checks only
/// (`docs/format.md`, "Eval fixtures"). Not a reserved local name: checks
/// have no locals, and content never sees it.
pub(crate) const OUTPUT: &str = "output";

/// The root scope of a dataset row's expected data, in the `expect` checks
/// of an eval entry with a `dataset` and a `case_schema` only
/// (`docs/format.md`, "Datasets"). Not a reserved local name, as
/// [`OUTPUT`] is not.
pub(crate) const CASE: &str = "case";

/// The root scope of the judge contract's output, in the `pass`
/// expression of a model-graded check only (`docs/format.md`,
/// "Model-graded checks"). Not a reserved local name, as [`OUTPUT`] is not.
pub(crate) const JUDGE: &str = "judge";

/// Whether `name` is a root scope name and so cannot name a `for_each` item
/// or a component parameter (`TQX_LOCAL_RESERVED`).
pub(crate) fn is_reserved(name: &str) -> bool {
    ROOT_SCOPES.iter().any(|(n, _)| *n == name)
}

/// The compiler's name in the request shape.
pub(crate) const COMPILER: &str = "templiqx";

/// Validates `contract` for `target` and lowers it.
///
/// `contract` must already be composed (includes expanded, tool-contract
/// references inlined); any `include` node left is `TQX_INCLUDE_UNRESOLVED`.
///
/// # Errors
/// Every diagnostic found, located through `sources`.
pub fn compile_contract(
    contract: &Contract,
    sources: &Sources,
    target: &CapabilityProfile,
) -> Result<Interaction, Vec<Diagnostic>> {
    compile_contract_with(contract, sources, target, &CompileOptions::default(), None)
}

/// How the eval phase reads the rows of a dataset entry: the composition
/// layer opens the file the entry names ([`dto::DatasetDecl::file`])
/// through its file system; the checks themselves read no file. `None`
/// (a contract compiled without its package): a dataset cannot be read.
pub(crate) type OpenRows<'a> =
    &'a dyn Fn(
        &dto::DatasetDecl,
    ) -> Result<crate::dataset::Rows<Box<dyn std::io::Read + Send>>, Diagnostic>;

/// Options of a compilation ([`Loader::with_options`](crate::Loader::with_options)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompileOptions {
    /// Leave `fake_output` checks to the generated eval tests instead of
    /// failing the compilation. The code-generating front ends set this, so
    /// a wrong fixture output fails exactly its `#[test]` (with
    /// `TQX_OUTPUT_SCHEMA`) rather than the whole build; `templiqx check`
    /// and [`compile_contract`] report it as `TQX_EVAL_INVALID`. Eval inputs
    /// and context are always checked: a test cannot be generated without
    /// them.
    pub fake_output_in_tests: bool,
    /// Leave [`Interaction::contract_fingerprint`] and
    /// [`Interaction::interaction_fingerprint`] empty (`""`) instead of
    /// hashing the canonical JSON of the contract and of the interaction.
    /// For a front end that shows no fingerprint and compiles on every
    /// keystroke: the language server (`docs/decisions.md`, "The language
    /// server"). Every other field, and every diagnostic, is the same
    /// either way.
    pub without_fingerprints: bool,
}

/// [`compile_contract`] with options: runs the phases listed in the module
/// documentation, then assembles the [`Interaction`] when none of them
/// reported a problem.
///
/// # Errors
/// Every diagnostic found, located through `sources`.
pub(crate) fn compile_contract_with(
    contract: &Contract,
    sources: &Sources,
    target: &CapabilityProfile,
    options: &CompileOptions,
    datasets: Option<OpenRows<'_>>,
) -> Result<Interaction, Vec<Diagnostic>> {
    let mut cx = Cx {
        sources,
        diags: Vec::new(),
        sites: Vec::new(),
    };
    cx.header(contract);
    cx.capabilities(contract, target);
    let declared = cx.declarations(contract);

    let signatures = cx.component_signatures(contract);
    let depths = component_depths(contract);
    cx.component_cycles(contract);
    let decls = Decls {
        names: contract.components.iter().map(|(n, _)| n).collect(),
        inputs: &declared.inputs,
        context: &declared.context,
        components: &signatures,
        depths: &depths,
    };
    let components = lower::components(&mut cx, contract, &decls, &signatures);
    let messages = lower::messages(&mut cx, contract, &decls);

    let extensions = cx.extensions(contract, target);
    cx.evals(contract, &declared, &decls, options, datasets);
    contract::assemble(
        cx,
        contract,
        target,
        options,
        declared,
        contract::Lowered {
            messages,
            components,
            extensions,
        },
    )
}

/// The compiled `expect` checks of every eval fixture of `contract`, in
/// fixture order (one list per fixture, in the order written), for a
/// contract that compiled to `interaction`: what generated eval tests and
/// an eval runner evaluate with `templiqx::evaluate_check`
/// (`docs/format.md`, "Eval fixtures"). Checks are compiled beside the
/// interaction, never into it, so they do not change its fingerprint.
///
/// The checks were already checked when `interaction` was compiled; a
/// check that does not compile against it (a contract and an interaction
/// that do not belong together) is left out.
pub fn compile_checks(
    contract: &Contract,
    interaction: &Interaction,
    sources: &Sources,
) -> Vec<Vec<ir::Check>> {
    let owned = |fields: &[ir::Field]| -> Vec<FieldInfo> {
        fields
            .iter()
            .map(|f| FieldInfo {
                name: f.name.to_string(),
                schema: Some(f.schema.clone()),
                required: f.required,
            })
            .collect()
    };
    let (inputs, context) = (owned(&interaction.inputs), owned(&interaction.context));
    let decls = Decls {
        names: Vec::new(),
        inputs: &inputs,
        context: &context,
        components: &[],
        depths: &[],
    };
    let mut cx = Cx {
        sources,
        diags: Vec::new(),
        sites: Vec::new(),
    };
    contract
        .evals
        .iter()
        .map(|eval| {
            let case = case_schema(eval);
            let case = eval.dataset.as_ref().map(|_| case.as_ref());
            lower::expectations(
                &mut cx,
                &decls,
                Some(&interaction.output_schema),
                case,
                eval,
            )
            .into_iter()
            .flatten()
            .collect()
        })
        .collect()
}

/// The compiled `case_schema` of a dataset entry, when it has one that
/// compiles (`docs/format.md`, "Datasets").
pub(crate) fn case_schema(eval: &dto::EvalDecl) -> Option<Schema> {
    compile_schema(eval.case_schema.as_ref()?, "/case_schema").ok()
}

/// The interaction fingerprint: SHA-256 of the canonical JSON of the
/// interaction's serialisation (which includes the target profile and
/// excludes the two fingerprint fields).
pub(crate) fn interaction_fingerprint(interaction: &Interaction) -> String {
    templiqx_contracts::canonical::fingerprint(
        &serde_json::to_value(interaction).unwrap_or(serde_json::Value::Null),
    )
}

/// Whether `id` is a contract id: an ASCII letter, then ASCII letters,
/// digits, `-`, `_` or `.`.
pub(crate) fn is_valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// A declared field with its compiled schema (`None` when the schema failed).
struct FieldInfo {
    name: String,
    schema: Option<Schema>,
    required: bool,
}

struct Decls<'d> {
    names: Vec<&'d str>,
    inputs: &'d [FieldInfo],
    context: &'d [FieldInfo],
    components: &'d [Signature],
    depths: &'d [usize],
}

struct Cx<'a> {
    sources: &'a Sources,
    diags: Vec<Diagnostic>,
    /// [`Interaction::sites`], in the order nodes are lowered.
    sites: Vec<ir::Site>,
}

impl Cx<'_> {
    /// Records where a node was written; the IR keeps the returned index.
    fn site(&mut self, loc: &Loc) -> ir::SiteId {
        let Some(site) = self.site_of(loc) else {
            return ir::SiteId::NONE;
        };
        let Ok(id) = u32::try_from(self.sites.len()) else {
            return ir::SiteId::NONE;
        };
        self.sites.push(site);
        ir::SiteId(id)
    }

    /// Where `loc` is: its file's name, pointer and span, when known.
    fn site_of(&self, loc: &Loc) -> Option<ir::Site> {
        let file = self.sources.get(loc.file)?;
        let span = file.root.as_ref().and_then(|r| r.span_of(&loc.pointer))?;
        Some(ir::Site {
            file: Str::Owned(file.name.clone()),
            pointer: Str::Owned(loc.pointer.clone()),
            span,
        })
    }

    fn err(&mut self, code: Code, message: impl Into<String>, loc: &Loc, help: impl Into<String>) {
        let d = self.sources.error(code, message, loc).help(help);
        self.diags.push(d);
    }

    /// Gives the diagnostic reported last the fix of its did-you-mean help.
    fn suggest(&mut self, fix: Option<Suggestion>) {
        if let (Some(d), Some(fix)) = (self.diags.last_mut(), fix) {
            d.suggestion = Some(Box::new(fix));
        }
    }

    fn schema(&mut self, doc: &serde_json::Value, loc: &Loc) -> Option<Schema> {
        match compile_schema(doc, &loc.pointer) {
            Ok(s) => Some(s),
            Err(diags) => {
                for d in diags {
                    let d = self.sources.locate(d, loc.file);
                    self.diags.push(d);
                }
                None
            }
        }
    }

    fn fields(
        &mut self,
        fields: &dto::OrderedMap<dto::FieldDecl>,
        loc: &Loc,
        what: &str,
    ) -> Vec<FieldInfo> {
        fields
            .iter()
            .map(|(name, decl)| {
                let floc = loc.child(name);
                self.check_name(name, &floc, what);
                FieldInfo {
                    name: name.to_owned(),
                    schema: self.schema(&decl.schema, &floc.child("schema")),
                    required: decl.required,
                }
            })
            .collect()
    }

    fn check_name(&mut self, name: &str, loc: &Loc, what: &str) {
        if name.is_empty() || name.contains('.') {
            self.err(
                Code::InvalidValue,
                format!("{what} name `{name}` cannot be referenced"),
                loc,
                "names are non-empty and contain no `.` (references use `.` between segments)",
            );
        }
    }

    /// Reports every violation of `value` against `schema` under `loc`.
    fn violations(
        &mut self,
        code: Code,
        schema: &Schema,
        value: &serde_json::Value,
        loc: &Loc,
        what: &str,
    ) {
        if let Err(violations) = validate(schema, value.as_value()) {
            for SchemaViolation {
                pointer,
                message,
                keyword,
            } in violations
            {
                let vloc = Loc::new(loc.file, format!("{}{}", loc.pointer, pointer));
                // Name the place of a nested value, not only the top one.
                let at = if pointer.is_empty() {
                    String::new()
                } else {
                    format!(" at {pointer}")
                };
                self.err(
                    code,
                    format!("{what} is invalid{at}: {message}"),
                    &vloc,
                    format!("fix the value to satisfy `{keyword}`"),
                );
            }
        } else if code == Code::EvalInvalid {
            // Valid JSON Schema, but an eval test decodes it into the
            // generated types (`i64`, `f64`), which must hold it exactly.
            self.eval_integers(schema, value, loc, what);
        }
    }
}

fn reserved_list() -> String {
    ROOT_SCOPES
        .iter()
        .map(|(n, _)| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(" and ")
}

#[cfg(test)]
mod tests {
    use super::{OUTPUT, ROOT_SCOPES, is_reserved};
    use templiqx_contracts::expr::Place;

    #[test]
    fn the_reserved_list_is_the_root_scope_list() {
        let roots: Vec<&str> = ROOT_SCOPES.iter().map(|(n, _)| *n).collect();
        assert_eq!(roots, ["inputs", "context"]);
        for r in roots {
            assert!(is_reserved(r));
        }
        assert!(!is_reserved("item"));
    }

    #[test]
    fn every_place_has_the_root_scopes_and_only_checks_have_output() {
        for place in Place::ALL {
            let roots = place.roots();
            for (name, _) in ROOT_SCOPES {
                assert!(roots.contains(name), "{place:?} lacks `{name}`");
            }
            assert_eq!(roots.contains(&OUTPUT), *place != Place::Content);
        }
    }
}
