//! The tools (`docs/mcp.md`, "Tools"): `check`, `render`, `fingerprint`,
//! `schema`, `diff` and `eval`.
//!
//! Every result is structured: `ok`, `diagnostics`, and the tool's own
//! members. A call that could not do what it was asked (bad arguments, a
//! path outside the served roots, a contract that does not render) is a
//! result with `isError: true` and the diagnostics saying why, never a
//! protocol error; a call that did it and found errors (`check` of a
//! broken contract, `diff` of a breaking change) has `ok: false` only.

use crate::Server;
use crate::arguments::{
    CheckArgs, DiffArgs, EvalArgs, FingerprintArgs, RenderArgs, SchemaArgs, bounded, input_schema,
    read,
};
use crate::catalogue::Catalogue;
use crate::schemas;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use templiqx_build::{CompiledContract, CompiledInput, Compiler, InputKind, Overlay};
use templiqx_build::{FileSystem, RealFileSystem};
use templiqx_contracts::canonical::{sha256_hex, to_canonical_string};
use templiqx_contracts::{Code, Diagnostic, RenderedInteraction};
use templiqx_diff::git::GitFileSystem;
use templiqx_diff::{Kind, Side, diff};

/// The file a text without a path is compiled as, in the first served
/// root.
const UNTITLED: &str = "untitled.yaml";

/// Every tool, with its input and output schemas. On a server given a
/// real provider, `eval` reaches the model (`openWorldHint: true`).
pub(crate) fn list(server: &Server) -> Vec<Tool> {
    let mut tools = vec![
        tool::<CheckArgs>(
            "check",
            "Compile a package directory, a contract file or unsaved contract text as `templiqx check` does (code generation included) and return every diagnostic: TQX_* code, file, line and column, JSON pointer, help, suggestion. Without arguments, every served package.",
            schemas::check(),
        ),
        tool::<RenderArgs>(
            "render",
            "Render a contract (a served prompt's name or a contract file) with inputs and context as `templiqx render` does: the messages in their own roles (system, developer, user, assistant), the contract, interaction and request fingerprints, and the rendered request.",
            schemas::render(),
        ),
        tool::<FingerprintArgs>(
            "fingerprint",
            "The Templiqx fingerprint of a JSON value: the lowercase hex SHA-256 of its canonical JSON (RFC 8785), as `templiqx fingerprint` computes it.",
            schemas::fingerprint(),
        ),
        tool::<SchemaArgs>(
            "schema",
            "The JSON Schema (draft 2020-12) of the Templiqx contract format, as `templiqx schema` prints it.",
            schemas::schema(),
        ),
        tool::<DiffArgs>(
            "diff",
            "Compare two versions of a contract (old_text, new_text) or a package or contract file with itself at a git revision (path, base), as `templiqx diff` does: every change with its rule id and class (who breaks: callers, consumers, hosts, nobody), each contract's verdict, and whether the version bump is enough.",
            schemas::diff(),
        ),
        tool::<EvalArgs>(
            "eval",
            "Run the eval fixtures of a package or contract file as `templiqx eval --provider fake` does: each fixture answered with its own fake_output, its expect checks evaluated; returns the statistics per fixture and contract (pass rates with Wilson intervals, each check's pass rate) and the gate's verdict. No model is called and nothing is stored. `provider: openai` or `anthropic` calls the model the server was configured with instead, only when the server was started with --allow-providers.",
            schemas::eval(),
        ),
    ];
    if server.provider().is_some() {
        for t in tools.iter_mut().filter(|t| t.name == "eval") {
            t.annotations = Some(ToolAnnotations::new().read_only(true).open_world(true));
        }
    }
    tools
}

/// A tool reading arguments `A`: it only reads (`readOnlyHint`) and
/// reaches nothing outside the served roots (`openWorldHint: false`).
fn tool<A: JsonSchema>(
    name: &'static str,
    description: &'static str,
    output: Arc<Map<String, Value>>,
) -> Tool {
    Tool::new(name, description, input_schema::<A>())
        .with_raw_output_schema(output)
        .with_annotations(ToolAnnotations::new().read_only(true).open_world(false))
}

/// What a tool call produced.
struct Outcome {
    /// The call could not do what it was asked: `isError`.
    failed: bool,
    diagnostics: Vec<Diagnostic>,
    fields: Map<String, Value>,
}

impl Outcome {
    fn failed(diagnostics: Vec<Diagnostic>) -> Outcome {
        Outcome {
            failed: true,
            diagnostics,
            fields: Map::new(),
        }
    }

    fn into_result(self) -> CallToolResult {
        let mut value = self.fields;
        // A tool may say `ok: false` itself (`diff`: a bump that is not
        // enough).
        let ok = !self.failed
            && !self.diagnostics.iter().any(Diagnostic::is_error)
            && value.get("ok").and_then(Value::as_bool).unwrap_or(true);
        value.insert("ok".to_owned(), Value::Bool(ok));
        value.insert(
            "diagnostics".to_owned(),
            serde_json::to_value(&self.diagnostics).unwrap_or(Value::Array(Vec::new())),
        );
        let value = Value::Object(value);
        if self.failed {
            CallToolResult::structured_error(value)
        } else {
            CallToolResult::structured(value)
        }
    }
}

impl From<Diagnostic> for Outcome {
    fn from(d: Diagnostic) -> Outcome {
        Outcome::failed(vec![d])
    }
}

/// Calls the tool `name`.
///
/// # Errors
/// Invalid params (-32602) for a tool that does not exist; everything
/// else is a result.
pub(crate) async fn call(
    server: &Server,
    name: &str,
    args: Map<String, Value>,
) -> Result<CallToolResult, ErrorData> {
    let outcome = match name {
        "eval" => match read::<EvalArgs>(name, args) {
            Ok(a) => {
                let ran = crate::eval::run(server, a).await;
                Ok(Outcome {
                    failed: ran.failed,
                    diagnostics: ran.diagnostics,
                    fields: ran.fields,
                })
            }
            Err(d) => Err(d),
        },
        "check" => read(name, args).map(|a| check(server, a)),
        "render" => read(name, args).map(|a| render(server, a)),
        "fingerprint" => read(name, args).map(fingerprint),
        "schema" => read::<SchemaArgs>(name, args).map(|_| schema()),
        "diff" => read(name, args).map(|a| diff_tool(server, a)),
        _ => {
            return Err(ErrorData::invalid_params(
                format!("no tool is named `{name}`"),
                Some(
                    json!({ "tools": ["check", "render", "fingerprint", "schema", "diff", "eval"] }),
                ),
            ));
        }
    };
    Ok(outcome.unwrap_or_else(Outcome::from).into_result())
}

/// Where a text is compiled: `path` confined, or `untitled.yaml` in the
/// first served root; its directory must exist.
fn text_path(server: &Server, path: Option<&str>) -> Result<PathBuf, Diagnostic> {
    let abs = match path {
        Some(p) => server.roots().confine(p)?,
        None => server.roots().first_dir().join(UNTITLED),
    };
    if abs.is_dir() {
        return Err(Diagnostic::error(
            Code::Io,
            format!(
                "`{}` is a directory: with a text, `path` names the contract file the text is compiled as",
                server.roots().display(&abs)
            ),
        ));
    }
    if !abs.parent().is_some_and(Path::is_dir) {
        return Err(Diagnostic::error(
            Code::Io,
            format!(
                "cannot compile a text as `{}`: its directory does not exist",
                server.roots().display(&abs)
            ),
        ));
    }
    Ok(abs)
}

fn check(server: &Server, a: CheckArgs) -> Outcome {
    match check_inputs(server, &a) {
        Ok(inputs) => {
            let failed = inputs.iter().any(|i| i.unusable.is_some());
            let diagnostics = inputs
                .iter()
                .flat_map(CompiledInput::diagnostics)
                .cloned()
                .collect();
            let results = inputs.iter().map(input_result).collect();
            let mut fields = Map::new();
            fields.insert("inputs".to_owned(), Value::Array(results));
            Outcome {
                failed,
                diagnostics,
                fields,
            }
        }
        Err(d) => d.into(),
    }
}

fn check_inputs(server: &Server, a: &CheckArgs) -> Result<Vec<CompiledInput>, Diagnostic> {
    let roots = server.roots();
    // Code generation is checked, as `templiqx check` checks it.
    let compiler = Compiler::new(roots.base(), server.target(a.target.as_deref()));
    Ok(match (&a.path, &a.text) {
        (path, Some(text)) => {
            let text = bounded("text", text)?;
            let abs = text_path(server, path.as_deref())?;
            vec![compiler.compile_text(&abs, text)]
        }
        (Some(path), None) => vec![compiler.compile(&roots.confine(path)?)],
        (None, None) => roots.served().iter().map(|p| compiler.compile(p)).collect(),
    })
}

fn input_result(input: &CompiledInput) -> Value {
    let kind = match input.kind {
        InputKind::Package => "package",
        InputKind::File => "file",
        InputKind::Absent => "absent",
    };
    let contracts: Vec<Value> = input
        .contracts
        .iter()
        .map(|c| {
            json!({
                "id": c.id,
                "file": c.file,
                "ok": !c.diagnostics.iter().any(Diagnostic::is_error),
                "fingerprints": fingerprints(c, None),
            })
        })
        .collect();
    let mut out = json!({ "path": input.name, "kind": kind, "contracts": contracts });
    if let Some(p) = input.package {
        let m = &input.loader.package(p).manifest;
        out["package"] = json!({ "name": m.package, "version": m.version });
    }
    out
}

/// The fingerprints of what compiled and what rendered.
fn fingerprints(c: &CompiledContract, rendered: Option<&RenderedInteraction<'_>>) -> Value {
    let mut map = Map::new();
    if let Some(i) = &c.interaction {
        map.insert("contract".to_owned(), json!(&*i.contract_fingerprint));
        map.insert("interaction".to_owned(), json!(&*i.interaction_fingerprint));
    }
    if let Some(r) = rendered {
        map.insert("request".to_owned(), json!(r.request_fingerprint()));
    }
    Value::Object(map)
}

fn render(server: &Server, a: RenderArgs) -> Outcome {
    let target = server.target(a.target.as_deref());
    let catalogue;
    let input;
    let compiled: &CompiledContract = {
        catalogue = Catalogue::compile(server, target.clone());
        match catalogue.find(&a.contract) {
            Some((c, _)) => c,
            None => {
                let abs = match server.roots().confine(&a.contract) {
                    Ok(abs) => abs,
                    Err(d) => {
                        let d = d.help(format!(
                            "name a served prompt ({}) or a contract file inside a served root",
                            catalogue.names().join(", ")
                        ));
                        return d.into();
                    }
                };
                // Rendering generates no code: code generation is not
                // checked, as `templiqx render`.
                input = Compiler::new(server.roots().base(), target)
                    .check_codegen(false)
                    .compile_file(&abs);
                match input.contracts.first() {
                    Some(c) => c,
                    None => return Outcome::failed(input.diagnostics().cloned().collect()),
                }
            }
        }
    };
    let mut diagnostics = compiled.diagnostics.clone();
    let Some(interaction) = &compiled.interaction else {
        return Outcome::failed(diagnostics);
    };
    let inputs = a.inputs.unwrap_or_default();
    let context = a.context.unwrap_or_default();
    match templiqx::render(interaction, &inputs, &context) {
        Ok(rendered) => {
            let messages: Vec<Value> = rendered
                .messages
                .iter()
                .map(|m| json!({ "role": m.role.as_str(), "content": m.content }))
                .collect();
            let mut fields = Map::new();
            fields.insert("messages".to_owned(), Value::Array(messages));
            fields.insert(
                "fingerprints".to_owned(),
                fingerprints(compiled, Some(&rendered)),
            );
            fields.insert(
                "request".to_owned(),
                serde_json::to_value(&rendered).unwrap_or(Value::Null),
            );
            Outcome {
                failed: false,
                diagnostics,
                fields,
            }
        }
        Err(e) => {
            diagnostics.extend(e.diagnostics.into_vec());
            let mut outcome = Outcome::failed(diagnostics);
            outcome
                .fields
                .insert("fingerprints".to_owned(), fingerprints(compiled, None));
            outcome
        }
    }
}

fn fingerprint(a: FingerprintArgs) -> Outcome {
    let canonical = match (&a.value, &a.text) {
        (Some(value), None) => to_canonical_string(value),
        (None, Some(text)) => {
            let parsed = bounded("text", text).and_then(templiqx_contracts::json::parse);
            match parsed {
                Ok(json) => to_canonical_string(&json),
                Err(d) => return d.into(),
            }
        }
        (Some(_), Some(_)) => {
            return Diagnostic::error(Code::InvalidValue, "give `value` or `text`, not both")
                .help("`value` is a JSON value; `text` is JSON text, read exactly")
                .into();
        }
        (None, None) => {
            return Diagnostic::error(Code::MissingField, "give `value` or `text`")
                .help("`value` is a JSON value; `text` is JSON text, read exactly")
                .into();
        }
    };
    let mut fields = Map::new();
    fields.insert(
        "fingerprint".to_owned(),
        json!(sha256_hex(canonical.as_bytes())),
    );
    if a.canonical {
        fields.insert("canonical".to_owned(), json!(canonical));
    }
    Outcome {
        failed: false,
        diagnostics: Vec::new(),
        fields,
    }
}

fn schema() -> Outcome {
    let schema = templiqx_build::json_schema::contract_schema();
    let mut fields = Map::new();
    fields.insert(
        "fingerprint".to_owned(),
        json!(templiqx_contracts::canonical::fingerprint(&schema)),
    );
    fields.insert("schema".to_owned(), schema);
    Outcome {
        failed: false,
        diagnostics: Vec::new(),
        fields,
    }
}

fn diff_tool(server: &Server, a: DiffArgs) -> Outcome {
    match diff_sides(server, &a) {
        Ok((old, new)) => {
            let report = diff(&old, &new);
            let mut fields = Map::new();
            fields.insert("sufficient".to_owned(), json!(report.sufficient));
            fields.insert("changes".to_owned(), json!(report.changes));
            fields.insert("contracts".to_owned(), json!(report.contracts));
            if let Some(p) = &report.package {
                fields.insert("package".to_owned(), json!(p));
            }
            let diagnostics = report.plain_diagnostics();
            // A comparison that found its version bump short is a result,
            // not a failure: `ok` says it.
            let mut outcome = Outcome {
                failed: false,
                diagnostics,
                fields,
            };
            if !report.sufficient && !outcome.diagnostics.iter().any(Diagnostic::is_error) {
                outcome.fields.insert("ok".to_owned(), json!(false));
            }
            outcome
        }
        Err(d) => d.into(),
    }
}

/// The two sides `a` names, loaded and compiled.
fn diff_sides(server: &Server, a: &DiffArgs) -> Result<(Side, Side), Diagnostic> {
    let roots = server.roots();
    let target = match server.target(a.target.as_deref()) {
        templiqx_build::Target::Profile(p) => Some(p),
        templiqx_build::Target::Required => None,
    };
    let target = target.as_ref();
    let real: Arc<dyn FileSystem> = Arc::new(RealFileSystem);
    match (&a.old_text, &a.new_text, &a.base) {
        (Some(old), Some(new), None) => {
            let abs = text_path(server, a.path.as_deref())?;
            let side = |text: &str, label: &str| -> Result<Side, Diagnostic> {
                let text = bounded(&format!("{label}_text"), text)?;
                let mut overlay = Overlay::new(Arc::clone(&real));
                overlay.insert(&abs, text);
                Ok(Side::load(
                    Arc::new(overlay),
                    roots.base(),
                    &abs,
                    target,
                    label,
                    false,
                ))
            };
            Ok((side(old, "old")?, side(new, "new")?))
        }
        (None, None, Some(rev)) => {
            let Some(path) = &a.path else {
                return Err(Diagnostic::error(
                    Code::MissingField,
                    "with `base`, give the `path` compared with itself at that revision",
                ));
            };
            let abs = roots.confine(path)?;
            let git = GitFileSystem::open(&abs, rev).map_err(|e| {
                Diagnostic::error(
                    Code::Io,
                    format!("cannot read `{path}` at `{rev}`: {e}"),
                )
                .help("name a revision git knows (a branch, a tag, a commit, HEAD~1) of the repository holding the path")
            })?;
            let old = Side::load(
                Arc::new(git),
                roots.base(),
                &abs,
                target,
                rev.as_str(),
                true,
            );
            let new = Side::load(real, roots.base(), &abs, target, "working tree", true);
            if old.kind == Kind::Absent && new.kind == Kind::Absent {
                return Err(Diagnostic::error(
                    Code::Io,
                    format!("`{path}` is neither at `{rev}` nor in the working tree"),
                ));
            }
            if let Some(d) = old.unusable.clone().or_else(|| new.unusable.clone()) {
                return Err(d);
            }
            if old.kind != Kind::Absent && new.kind != Kind::Absent && old.kind != new.kind {
                return Err(Diagnostic::error(
                    Code::Io,
                    format!("`{path}` is a package directory on one side and a contract file on the other"),
                )
                .help("compare two packages or two contract files"));
            }
            Ok((old, new))
        }
        _ => Err(Diagnostic::error(
            Code::MissingField,
            "give `old_text` and `new_text`, or `path` and `base`",
        )
        .help(
            "two versions of a contract as texts, or a path compared with itself at a git revision",
        )),
    }
}
