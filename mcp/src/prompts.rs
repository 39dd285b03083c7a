//! Contracts as MCP prompts: `prompts/list`, `prompts/get` and
//! `completion/complete` (`docs/mcp.md`, "Prompts").

use crate::Server;
use crate::catalogue::{Argument, Catalogue, Scope, arguments, takes_text, type_name};
use rmcp::ErrorData;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, ErrorCode, GetPromptResult, MetaObject,
    Prompt, PromptArgument, PromptMessage, Role as McpRole,
};
use serde_json::{Value, json};
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::{Code, Diagnostic, Json, JsonMap, RenderedInteraction, Role};

/// Every served contract that parsed, as a prompt.
pub(crate) fn list(server: &Server) -> Vec<Prompt> {
    from_catalogue(&Catalogue::compile(server, server.target(None)))
}

/// Every contract of `catalogue` that parsed, as a prompt.
pub(crate) fn from_catalogue(catalogue: &Catalogue) -> Vec<Prompt> {
    catalogue
        .prompts()
        .map(|(name, _, contract)| {
            let args = arguments(contract)
                .iter()
                .map(|a| {
                    PromptArgument::new(a.name.clone())
                        .with_description(describe(a))
                        .with_required(a.decl.required)
                })
                .collect();
            let description = contract
                .description
                .clone()
                .unwrap_or_else(|| format!("The Templiqx contract `{}`.", contract.id));
            Prompt::new(name, Some(description), Some(args))
                .with_title(format!("{} v{}", contract.id, contract.version))
        })
        .collect()
}

/// A prompt argument's description: the field's own description, which
/// scope it fills, and its JSON Schema type.
fn describe(a: &Argument<'_>) -> String {
    let scope = match a.scope {
        Scope::Inputs => "input",
        Scope::Context => "context field",
    };
    let ty = type_name(&a.decl.schema);
    let how = if takes_text(&a.decl.schema) {
        "the text as is"
    } else {
        "JSON text"
    };
    match &a.decl.description {
        Some(d) => format!("{} ({scope}; JSON Schema type `{ty}`; {how})", d.trim_end()),
        None => format!("{scope} `{}`; JSON Schema type `{ty}`; {how}", a.field),
    }
}

/// Renders the prompt `name` with `args`, as `templiqx render` renders a
/// request: the messages, roles mapped to MCP's (`system` and `developer`
/// become `user`, their own role in the text's `_meta`), and the
/// fingerprints in the result's `_meta`.
///
/// # Errors
/// Invalid params (-32602) for an unknown prompt or a bad argument, with
/// the `TQX_*` code, pointer, help and every diagnostic in the error's
/// `data`; internal error (-32603) for a contract that does not compile.
pub(crate) fn get(
    server: &Server,
    name: &str,
    args: Option<&serde_json::Map<String, Value>>,
) -> Result<GetPromptResult, ErrorData> {
    let catalogue = Catalogue::compile(server, server.target(None));
    let Some((compiled, contract)) = catalogue.find(name) else {
        return Err(ErrorData::invalid_params(
            format!("no prompt is named `{name}`"),
            Some(json!({ "prompts": catalogue.names() })),
        ));
    };
    let Some(interaction) = &compiled.interaction else {
        let diagnostics: Vec<&Diagnostic> = compiled
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .collect();
        return Err(error(
            ErrorCode::INTERNAL_ERROR,
            &format!("the contract `{}` does not compile", contract.id),
            &diagnostics,
        ));
    };
    let fields = arguments(contract);
    let mut inputs = JsonMap::new();
    let mut context = JsonMap::new();
    let mut problems = Vec::new();
    for (arg, value) in args.into_iter().flatten() {
        let Some(field) = fields.iter().find(|f| f.name == *arg) else {
            let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
            problems.push(
                Diagnostic::error(
                    Code::UnknownField,
                    format!("the prompt `{name}` has no argument `{arg}`"),
                )
                .at(pointer_push("", arg))
                .help(if names.is_empty() {
                    "it takes no arguments".to_owned()
                } else {
                    format!("its arguments are {}", names.join(", "))
                }),
            );
            continue;
        };
        let pointer = pointer_push(&pointer_push("", field.scope.as_str()), field.field);
        match read_argument(field, value) {
            Ok(v) => {
                let scope = match field.scope {
                    Scope::Inputs => &mut inputs,
                    Scope::Context => &mut context,
                };
                scope.insert(field.field.to_owned(), v);
            }
            Err(d) => problems.push(d.at(pointer)),
        }
    }
    if !problems.is_empty() {
        let all: Vec<&Diagnostic> = problems.iter().collect();
        return Err(error(
            ErrorCode::INVALID_PARAMS,
            "a prompt argument is invalid",
            &all,
        ));
    }
    let rendered = templiqx::render(interaction, &inputs, &context).map_err(|e| {
        let all = e.diagnostics.into_vec();
        let refs: Vec<&Diagnostic> = all.iter().collect();
        error(
            ErrorCode::INVALID_PARAMS,
            "the prompt's arguments do not validate",
            &refs,
        )
    })?;
    let description = contract.description.clone();
    let mut result = GetPromptResult::new(messages(&rendered));
    result.meta = Some(meta(&rendered));
    if let Some(d) = description {
        result = result.with_description(d);
    }
    Ok(result)
}

/// An argument's value: the text as is for a field that takes text, else
/// the text read as JSON (exactly, as `templiqx render` reads a request);
/// a value that is not a string (a client that sends JSON) as it is.
fn read_argument(field: &Argument<'_>, value: &Value) -> Result<Json, Diagnostic> {
    let Value::String(text) = value else {
        return Ok(Json::from(value.clone()));
    };
    crate::arguments::bounded(&field.name, text)?;
    if takes_text(&field.decl.schema) {
        return Ok(Json::String(text.clone()));
    }
    templiqx_contracts::json::parse(text).map_err(|d| {
        let at = d
            .span
            .map(|s| format!(" (line {}, column {})", s.start.line, s.start.column))
            .unwrap_or_default();
        Diagnostic::error(
            Code::ParseJson,
            format!("the argument `{}` is not JSON: {}{at}", field.name, d.message),
        )
        .help(format!(
            "write its value as JSON text of type `{}` (`42`, `true`, `[\"a\"]`, `{{\"k\": 1}}`); only a string field takes plain text",
            type_name(&field.decl.schema)
        ))
    })
}

/// The rendered messages in MCP's roles.
fn messages(rendered: &RenderedInteraction<'_>) -> Vec<PromptMessage> {
    rendered
        .messages
        .iter()
        .map(|m| {
            let (role, meta) = match m.role {
                Role::Assistant => (McpRole::Assistant, None),
                Role::User => (McpRole::User, None),
                other => (
                    McpRole::User,
                    Some(MetaObject(
                        [("templiqx/role".to_owned(), json!(other.as_str()))]
                            .into_iter()
                            .collect(),
                    )),
                ),
            };
            PromptMessage::new_text_with_meta(role, m.content.clone(), meta)
        })
        .collect()
}

/// The result's `_meta`: the fingerprints and the contract, under
/// `templiqx/…` keys.
fn meta(rendered: &RenderedInteraction<'_>) -> MetaObject {
    let i = rendered.interaction;
    let mut meta = serde_json::Map::new();
    meta.insert(
        "templiqx/fingerprints".to_owned(),
        json!({
            "contract": &*i.contract_fingerprint,
            "interaction": &*i.interaction_fingerprint,
            "request": rendered.request_fingerprint(),
        }),
    );
    meta.insert(
        "templiqx/contract".to_owned(),
        json!({ "id": &*i.contract_id, "version": &*i.contract_version }),
    );
    meta.insert(
        "templiqx/roles".to_owned(),
        Value::Array(
            rendered
                .messages
                .iter()
                .map(|m| json!(m.role.as_str()))
                .collect(),
        ),
    );
    MetaObject(meta)
}

/// An MCP error for `diagnostics` (the first one's code, message, pointer
/// and help at the top of `data`, every one under `diagnostics`).
fn error(code: ErrorCode, what: &str, diagnostics: &[&Diagnostic]) -> ErrorData {
    let first = diagnostics.first();
    let message = match first {
        Some(d) => format!("{what}: {}: {}", d.code, d.message),
        None => what.to_owned(),
    };
    let data = json!({
        "code": first.map(|d| d.code.to_string()),
        "json_pointer": first.and_then(|d| d.json_pointer.clone()),
        "help": first.and_then(|d| d.help.clone()),
        "diagnostics": diagnostics,
    });
    ErrorData::new(code, message, Some(data))
}

/// `completion/complete` for a prompt argument: the field's `enum`
/// values, then the values the contract's eval fixtures give it, each once,
/// those starting with what is typed (at most 100).
pub(crate) fn complete(server: &Server, request: &CompleteRequestParams) -> CompleteResult {
    let empty = || CompleteResult::new(CompletionInfo::default());
    let Some(name) = request.r#ref.as_prompt_name() else {
        return empty();
    };
    let catalogue = Catalogue::compile(server, server.target(None));
    let Some((_, contract)) = catalogue.find(name) else {
        return empty();
    };
    let fields = arguments(contract);
    let Some(field) = fields.iter().find(|f| f.name == request.argument.name) else {
        return empty();
    };
    let text = |v: &Value| match v {
        Value::String(s) if takes_text(&field.decl.schema) => s.clone(),
        other => other.to_string(),
    };
    let mut values: Vec<String> = Vec::new();
    let enums = field.decl.schema.get("enum").and_then(Value::as_array);
    let fixtures = contract.evals.iter().filter_map(|e| {
        match field.scope {
            Scope::Inputs => &e.inputs,
            Scope::Context => &e.context,
        }
        .get(field.field)
    });
    for v in enums.into_iter().flatten().chain(fixtures) {
        let t = text(v);
        if t.starts_with(&request.argument.value) && !values.contains(&t) {
            values.push(t);
        }
    }
    let total = values.len();
    values.truncate(CompletionInfo::MAX_VALUES);
    let has_more = total > values.len();
    CompletionInfo::with_pagination(
        values,
        Some(u32::try_from(total).unwrap_or(u32::MAX)),
        has_more,
    )
    .map_or_else(|_| empty(), CompleteResult::new)
}
