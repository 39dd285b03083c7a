//! `templiqx mcp` driven by the `rmcp` client over an in-process transport:
//! the CRM3 package's prompts and the tools, as an MCP client sees them.

use rmcp::model::{
    ArgumentInfo, CallToolRequestParams, CallToolResult, CompleteRequestParams, ContentBlock,
    ErrorCode, GetPromptRequestParams, ProtocolVersion, Reference, Role,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ServiceError, ServiceExt};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use templiqx_build::{Compiler, Target};
use templiqx_contracts::CapabilityProfile;
use templiqx_mcp::{Options, Server};

type Client = RunningService<RoleClient, ()>;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A client connected to a server of `paths` (relative to the repository).
async fn connect(paths: &[&str]) -> Client {
    connect_with(
        Options::new(repo(), paths.iter().map(PathBuf::from).collect())
            .with_target(CapabilityProfile::parse_list("structured_output")),
    )
    .await
}

/// A client connected to a server of `options`.
async fn connect_with(options: Options) -> Client {
    let server = Server::new(options).expect("the served paths exist");
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let (read, write) = tokio::io::split(server_io);
        if let Ok(running) = server.serve(templiqx_mcp::transport(read, write)).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_io).await.expect("initialize succeeds")
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

async fn call(client: &Client, tool: &'static str, args: Value) -> CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(object(args)))
        .await
        .expect("a tool call is answered with a result")
}

fn structured(result: &CallToolResult) -> &Value {
    result
        .structured_content
        .as_ref()
        .expect("every result is structured")
}

/// The extraction fixture's request, as prompt arguments (text).
fn extraction_arguments() -> Map<String, Value> {
    object(json!({
        "document_id": "LEASE-0007",
        "clause_id": "clause-3",
        "clause_text": "The lease starts on 2026-03-01 and ends on 2027-02-28. Rent is EUR 1450.50 per month. Notice period: 60 days.",
        "focus_fields": "[\"notice_days\", \"start_date\"]",
        "matter_reference": "MAT-2026-0107",
    }))
}

#[tokio::test]
async fn negotiates_the_documented_revision() {
    let client = connect(&["examples/crm3"]).await;
    let info = client.peer_info().expect("the server answered initialize");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2025_11_25);
    assert_eq!(info.protocol_version, templiqx_mcp::PROTOCOL_VERSION);
    assert!(info.capabilities.prompts.is_some());
    assert!(info.capabilities.tools.is_some());
    assert!(info.capabilities.completions.is_some());
    assert!(info.capabilities.resources.is_some());
}

#[tokio::test]
async fn lists_every_contract_as_a_prompt_with_typed_arguments() {
    let client = connect(&["examples/crm3"]).await;
    let prompts = client.list_all_prompts().await.unwrap();
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "lease-term-extraction",
            "lease-summary-drafting",
            "lease-summary-judge"
        ]
    );

    let extraction = &prompts[0];
    assert!(
        extraction
            .description
            .as_deref()
            .unwrap()
            .starts_with("Extract the start date, end date, monthly rent")
    );
    let args = extraction.arguments.as_ref().unwrap();
    let arg_names: Vec<&str> = args.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(
        arg_names,
        [
            "document_id",
            "clause_id",
            "clause_text",
            "focus_fields",
            "matter_reference"
        ]
    );
    assert!(args.iter().all(|a| a.required == Some(true)));
    let focus = args[3].description.as_deref().unwrap();
    assert!(focus.contains("JSON Schema type `array`"), "{focus}");
    assert!(focus.contains("JSON text"), "{focus}");
    let document = args[0].description.as_deref().unwrap();
    assert!(
        document.starts_with(
            "Stable identifier of the source document. (input; JSON Schema type `string`"
        ),
        "{document}"
    );

    // An optional context field is an optional argument.
    let drafting = prompts[1].arguments.as_ref().unwrap();
    let locale = drafting.iter().find(|a| a.name == "locale").unwrap();
    assert_eq!(locale.required, Some(false));
    assert!(
        locale
            .description
            .as_deref()
            .unwrap()
            .contains("context field")
    );
}

#[tokio::test]
async fn lists_the_tools_with_input_and_output_schemas() {
    let client = connect(&["examples/crm3"]).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| &*t.name).collect();
    assert_eq!(
        names,
        ["check", "render", "fingerprint", "schema", "diff", "eval"]
    );
    for tool in &tools {
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
        let output = tool.output_schema.as_ref().expect("structured output");
        assert_eq!(output["required"], json!(["ok", "diagnostics"]));
    }
    let render = tools.iter().find(|t| t.name == "render").unwrap();
    assert_eq!(render.input_schema["required"], json!(["contract"]));
}

#[tokio::test]
async fn gets_a_rendered_prompt_with_its_fingerprints() {
    let client = connect(&["examples/crm3"]).await;
    let result = client
        .get_prompt(
            GetPromptRequestParams::new("lease-term-extraction")
                .with_arguments(extraction_arguments()),
        )
        .await
        .unwrap();
    assert_eq!(result.messages.len(), 2);
    // The system message is a user message in MCP, its role in `_meta`.
    assert_eq!(result.messages[0].role, Role::User);
    let ContentBlock::Text(system) = &result.messages[0].content else {
        panic!("text content");
    };
    assert!(system.text.starts_with("You extract lease terms as JSON."));
    assert_eq!(system.meta.as_ref().unwrap().0["templiqx/role"], "system");
    let ContentBlock::Text(user) = &result.messages[1].content else {
        panic!("text content");
    };
    assert!(user.meta.is_none());
    assert_eq!(
        user.text,
        "Matter: MAT-2026-0107\nDocument LEASE-0007, clause clause-3:\nThe lease starts on 2026-03-01 and ends on 2027-02-28. Rent is EUR 1450.50 per month. Notice period: 60 days.\nCheck first: notice_days, start_date"
    );

    // The fingerprints are those of the same request rendered directly
    // through the compiler and the runtime.
    let compiled = Compiler::new(
        repo(),
        Target::Profile(CapabilityProfile::parse_list("structured_output")),
    )
    .compile_file(Path::new(
        "examples/crm3/contracts/lease-term-extraction.yaml",
    ));
    let interaction = compiled.contracts[0].interaction.as_ref().unwrap();
    let request: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("examples/crm3/evals/extraction-request.json"))
            .unwrap(),
    )
    .unwrap();
    let inputs = object(request["inputs"].clone());
    let context = object(request["context"].clone());
    let rendered = templiqx::render(interaction, &inputs, &context).unwrap();
    let meta = &result.meta.as_ref().unwrap().0;
    let fingerprints = &meta["templiqx/fingerprints"];
    assert_eq!(fingerprints["request"], rendered.request_fingerprint());
    assert_eq!(
        fingerprints["interaction"],
        &*interaction.interaction_fingerprint
    );
    assert_eq!(fingerprints["contract"], &*interaction.contract_fingerprint);
    assert_eq!(meta["templiqx/roles"], json!(["system", "user"]));
}

/// The error of `prompts/get` with `args`.
async fn prompt_error(client: &Client, args: Map<String, Value>) -> rmcp::ErrorData {
    let error = client
        .get_prompt(GetPromptRequestParams::new("lease-term-extraction").with_arguments(args))
        .await
        .expect_err("the arguments are bad");
    match error {
        ServiceError::McpError(e) => e,
        other => panic!("not an MCP error: {other}"),
    }
}

#[tokio::test]
async fn a_bad_argument_is_an_mcp_error_with_its_tqx_code_pointer_and_help() {
    let client = connect(&["examples/crm3"]).await;

    // Valid JSON of the wrong type: the runtime's request validation.
    let mut args = extraction_arguments();
    args.insert("focus_fields".into(), json!("{\"a\": 1}"));
    let e = prompt_error(&client, args).await;
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
    let data = e.data.unwrap();
    assert_eq!(data["code"], "TQX_VALUE_INVALID", "{data}");
    assert_eq!(data["json_pointer"], "/inputs/focus_fields");
    assert!(e.message.contains("TQX_VALUE_INVALID"), "{}", e.message);

    // Not JSON at all for a field that is not a string.
    let mut args = extraction_arguments();
    args.insert("focus_fields".into(), json!("[notice_days"));
    let data = prompt_error(&client, args).await.data.unwrap();
    assert_eq!(data["code"], "TQX_PARSE_JSON", "{data}");
    assert!(
        data["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .ends_with("(line 1, column 3)"),
        "{data}"
    );
    assert_eq!(data["json_pointer"], "/inputs/focus_fields");
    assert!(
        data["help"]
            .as_str()
            .unwrap()
            .contains("JSON text of type `array`")
    );

    // A required argument left out.
    let mut args = extraction_arguments();
    args.remove("matter_reference");
    let data = prompt_error(&client, args).await.data.unwrap();
    assert_eq!(data["code"], "TQX_VALUE_INVALID", "{data}");
    assert!(
        data["help"]
            .as_str()
            .unwrap()
            .contains("context.matter_reference")
    );
    assert_eq!(data["json_pointer"], "/context/matter_reference");

    // An argument the prompt does not have.
    let mut args = extraction_arguments();
    args.insert("document_idd".into(), json!("x"));
    let data = prompt_error(&client, args).await.data.unwrap();
    assert_eq!(data["code"], "TQX_UNKNOWN_FIELD", "{data}");
    assert!(data["help"].as_str().unwrap().contains("document_id"));
}

#[tokio::test]
async fn completes_arguments_from_the_eval_fixtures() {
    let client = connect(&["examples/crm3"]).await;
    let request = |argument: &str, value: &str| {
        CompleteRequestParams::new(
            Reference::for_prompt("lease-term-extraction"),
            ArgumentInfo::new(argument, value),
        )
    };
    let done = client
        .complete(request("document_id", "LEASE"))
        .await
        .unwrap();
    assert_eq!(done.completion.values, ["LEASE-0007"]);
    let done = client.complete(request("focus_fields", "")).await.unwrap();
    assert_eq!(done.completion.values, ["[\"notice_days\",\"start_date\"]"]);
    let done = client.complete(request("document_id", "X")).await.unwrap();
    assert!(done.completion.values.is_empty());
}

const GREETING: &str = "api_version: templiqx/v1alpha1
id: greet
version: 0.1.0
inputs:
  name: { schema: { type: string }, required: true }
  title: { schema: { type: string }, required: TITLE_REQUIRED }
messages:
  - role: user
    content:
      - { kind: text, value: Hello }
      - { kind: interpolate, expression: { kind: ref, path: inputs.NAME } }
output_schema: { type: object }
";

fn greeting(title_required: bool, name: &str) -> String {
    GREETING
        .replace("TITLE_REQUIRED", &title_required.to_string())
        .replace("NAME", name)
}

#[tokio::test]
async fn checks_a_broken_contract_text() {
    let client = connect(&["examples/crm3"]).await;
    let result = call(
        &client,
        "check",
        json!({ "text": greeting(false, "nmae"), "path": "examples/crm3/contracts/draft.yaml" }),
    )
    .await;
    // The check ran: not a tool error, but `ok` is false.
    assert_eq!(result.is_error, Some(false));
    let out = structured(&result);
    assert_eq!(out["ok"], false);
    let d = &out["diagnostics"][0];
    assert_eq!(d["code"], "TQX_REF_UNKNOWN", "{out}");
    assert_eq!(d["file"], "examples/crm3/contracts/draft.yaml");
    assert_eq!(d["span"]["start"]["line"], 11);
    assert_eq!(d["json_pointer"], "/messages/0/content/1/expression/path");
    assert_eq!(d["help"], "did you mean `inputs.name`?");
    assert_eq!(d["suggestion"]["replacement"], "inputs.name");

    // The text fixed compiles.
    let result = call(
        &client,
        "check",
        json!({ "text": greeting(false, "name"), "path": "examples/crm3/contracts/draft.yaml" }),
    )
    .await;
    let out = structured(&result);
    assert_eq!(out["ok"], true, "{out}");
    assert_eq!(out["inputs"][0]["contracts"][0]["id"], "greet");

    // The served package checks clean.
    let out = structured(&call(&client, "check", json!({})).await).clone();
    assert_eq!(out["ok"], true, "{out}");
    assert_eq!(out["inputs"][0]["package"]["name"], "crm3-example");
    assert_eq!(out["inputs"][0]["contracts"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn paths_outside_the_served_roots_are_tool_errors() {
    let client = connect(&["examples/crm3"]).await;
    for path in ["examples/crm3/../greeting-host", "/etc", "README.md"] {
        let result = call(&client, "check", json!({ "path": path })).await;
        assert_eq!(result.is_error, Some(true), "{path}");
        let d = &structured(&result)["diagnostics"][0];
        assert_eq!(d["code"], "TQX_IO");
        assert!(
            d["message"]
                .as_str()
                .unwrap()
                .contains("outside the served roots"),
            "{d}"
        );
    }
    // Bad arguments are results too, never protocol errors.
    let result = call(&client, "check", json!({ "pth": "x" })).await;
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        structured(&result)["diagnostics"][0]["code"],
        "TQX_UNKNOWN_FIELD"
    );
    let result = call(&client, "fingerprint", json!({})).await;
    assert_eq!(
        structured(&result)["diagnostics"][0]["code"],
        "TQX_MISSING_FIELD"
    );
}

#[tokio::test]
async fn a_text_over_the_bound_is_refused() {
    let client = connect(&["examples/crm3"]).await;
    let huge = "#".repeat(16 * 1024 * 1024 + 1);
    let result = call(&client, "check", json!({ "text": huge })).await;
    assert_eq!(result.is_error, Some(true));
    let d = &structured(&result)["diagnostics"][0];
    assert_eq!(d["code"], "TQX_IO");
    assert_eq!(d["message"], "the argument `text` is larger than 16 MiB");
}

#[tokio::test]
async fn diffs_two_versions_of_a_contract() {
    let client = connect(&["examples/crm3"]).await;
    let result = call(
        &client,
        "diff",
        json!({ "old_text": greeting(false, "name"), "new_text": greeting(true, "name") }),
    )
    .await;
    assert_eq!(result.is_error, Some(false));
    let out = structured(&result);
    assert_eq!(
        out["changes"][0]["rule"], "INPUT_FIELD_MADE_REQUIRED",
        "{out}"
    );
    assert_eq!(
        out["changes"][0]["new"]["json_pointer"],
        "/inputs/title/required"
    );
    assert_eq!(out["sufficient"], false);
    assert_eq!(out["contracts"][0]["gate"]["least"], "0.2.0");
    assert_eq!(out["ok"], false);
    assert_eq!(out["diagnostics"][0]["code"], "TQX_VERSION_BUMP");

    // The same text on both sides: nothing changed, the bump suffices.
    let same = greeting(false, "name");
    let out = structured(
        &call(
            &client,
            "diff",
            json!({ "old_text": same, "new_text": same }),
        )
        .await,
    )
    .clone();
    assert_eq!(out["changes"], json!([]));
    assert_eq!(out["sufficient"], true);
    assert_eq!(out["ok"], true);
}

#[tokio::test]
async fn renders_fingerprints_and_serves_the_schema() {
    let client = connect(&["examples/crm3"]).await;
    let request: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("examples/crm3/evals/extraction-request.json"))
            .unwrap(),
    )
    .unwrap();
    let result = call(
        &client,
        "render",
        json!({ "contract": "lease-term-extraction", "inputs": request["inputs"], "context": request["context"] }),
    )
    .await;
    let out = structured(&result);
    assert_eq!(out["ok"], true, "{out}");
    assert_eq!(out["messages"][0]["role"], "system");
    // The request fingerprint is the fingerprint of the rendered request.
    let fp = call(&client, "fingerprint", json!({ "value": out["request"] })).await;
    assert_eq!(
        structured(&fp)["fingerprint"],
        out["fingerprints"]["request"]
    );

    // By path, with a bad input: a tool error with the runtime's diagnostic.
    let result = call(
        &client,
        "render",
        json!({ "contract": "examples/crm3/contracts/lease-term-extraction.yaml", "inputs": { "document_id": 7 } }),
    )
    .await;
    assert_eq!(result.is_error, Some(true));
    let out = structured(&result);
    assert_eq!(out["diagnostics"][0]["code"], "TQX_VALUE_INVALID", "{out}");
    assert!(out["fingerprints"]["interaction"].is_string());

    // Exact integers from text; the canonical form on request.
    let fp = call(
        &client,
        "fingerprint",
        json!({ "text": "{\"b\": 1.0, \"a\": [100000000000000000001, -0.0]}", "canonical": true }),
    )
    .await;
    assert_eq!(
        structured(&fp)["canonical"],
        "{\"a\":[100000000000000000001,0],\"b\":1}"
    );

    let schema = call(&client, "schema", json!({})).await;
    let out = structured(&schema);
    assert_eq!(
        out["schema"],
        templiqx_build::json_schema::contract_schema()
    );
    assert_eq!(out["fingerprint"].as_str().unwrap().len(), 64);
}

#[tokio::test]
async fn runs_the_eval_fixtures_on_the_fake_provider() {
    let client = connect(&["examples/crm3"]).await;
    let result = call(&client, "eval", json!({ "repeat": 2, "provider": "fake" })).await;
    assert_eq!(result.is_error, Some(false));
    let out = structured(&result);
    assert_eq!(out["ok"], true, "{out}");
    assert_eq!(out["provider"], "fake");
    assert_eq!(out["run"]["repeat"], 2);
    let fixtures = out["stats"]["fixtures"].as_array().unwrap();
    let names: Vec<String> = fixtures
        .iter()
        .map(|f| {
            format!(
                "{}::{}",
                f["contract"].as_str().unwrap(),
                f["fixture"].as_str().unwrap()
            )
        })
        .collect();
    // The inline fixtures (the drafting summary's judge's among them) and
    // the extraction's dataset entry, whose 24 rows count as one fixture
    // (`docs/eval.md`, "Datasets", "Judges").
    let expected = [
        "lease-summary-drafting::dutch-client",
        "lease-summary-judge::faithful-dutch-summary",
        "lease-summary-judge::invented-parking",
        "lease-term-extraction::fixed-term-lease",
        "lease-term-extraction::labelled-leases",
    ];
    assert_eq!(names, expected);
    let entry = &fixtures[4];
    assert_eq!(entry["executions"], 48);
    assert_eq!(entry["pass_rate"]["passed"], 48);
    assert_eq!(entry["rows"]["rows"], 24);
    assert_eq!(entry["rows"]["passed_all"]["passed"], 24);
    for f in &fixtures[..4] {
        assert_eq!(f["executions"], 2);
        assert_eq!(f["pass_rate"]["passed"], 2);
        assert!(
            f["checks"]
                .as_array()
                .unwrap()
                .iter()
                .all(|c| c["rate"]["passed"] == 2)
        );
    }

    // One fixture by its glob.
    let out = structured(
        &call(
            &client,
            "eval",
            json!({ "filter": ["lease-term-*::fixed-*"] }),
        )
        .await,
    )
    .clone();
    assert_eq!(out["stats"]["fixtures"].as_array().unwrap().len(), 1);

    // What cannot run is a tool error with its diagnostic.
    for (args, code) in [
        (json!({ "provider": "gemini" }), "TQX_UNKNOWN_VARIANT"),
        // No real provider without `Options::with_provider`.
        (json!({ "provider": "openai" }), "TQX_INVALID_VALUE"),
        (json!({ "repeat": 0 }), "TQX_INVALID_VALUE"),
        (json!({ "filter": ["nothing::*"] }), "TQX_IO"),
        (json!({ "path": "../.." }), "TQX_IO"),
    ] {
        let result = call(&client, "eval", args.clone()).await;
        assert_eq!(result.is_error, Some(true), "{args}");
        assert_eq!(
            structured(&result)["diagnostics"][0]["code"],
            code,
            "{args}"
        );
    }
}

#[tokio::test]
async fn serves_the_manifest_contracts_and_diagnostics_as_resources() {
    use rmcp::model::{ReadResourceRequestParams, ResourceContents};
    let client = connect(&["examples/crm3"]).await;
    let resources = client.list_all_resources().await.unwrap();
    let names: Vec<&str> = resources.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "examples/crm3/templiqx.yaml",
            "examples/crm3/contracts/lease-term-extraction.yaml",
            "examples/crm3/contracts/lease-summary-drafting.yaml",
            "examples/crm3/contracts/lease-summary-judge.yaml",
            "diagnostics of examples/crm3",
        ]
    );
    let text = |contents: &ResourceContents| match contents {
        ResourceContents::TextResourceContents { text, .. } => text.clone(),
        other => panic!("not text: {other:?}"),
    };

    // A contract file, by its file URI: the file's text.
    let contract = &resources[1];
    assert!(contract.uri.starts_with("file:///"), "{}", contract.uri);
    let read = client
        .read_resource(ReadResourceRequestParams::new(contract.uri.clone()))
        .await
        .unwrap();
    let on_disk =
        std::fs::read_to_string(repo().join("examples/crm3/contracts/lease-term-extraction.yaml"))
            .unwrap();
    assert_eq!(text(&read.contents[0]), on_disk);

    // The diagnostics of the package: none.
    let read = client
        .read_resource(ReadResourceRequestParams::new(
            "templiqx://diagnostics/examples/crm3",
        ))
        .await
        .unwrap();
    let body: Value = serde_json::from_str(&text(&read.contents[0])).unwrap();
    assert_eq!(
        body,
        json!({ "path": "examples/crm3", "ok": true, "diagnostics": [] })
    );

    // A file outside the served roots is not served.
    let outside = format!(
        "file://{}",
        repo().join("README.md").canonicalize().unwrap().display()
    );
    let error = client
        .read_resource(ReadResourceRequestParams::new(outside))
        .await
        .expect_err("outside the roots");
    let ServiceError::McpError(e) = error else {
        panic!("not an MCP error: {error}");
    };
    assert_eq!(e.code, ErrorCode::RESOURCE_NOT_FOUND);
    assert_eq!(e.data.unwrap()["diagnostic"]["code"], "TQX_IO");
}

/// A client that reports the list-changed notifications it receives.
#[derive(Clone)]
struct Watcher(tokio::sync::mpsc::UnboundedSender<&'static str>);

impl rmcp::ClientHandler for Watcher {
    async fn on_prompt_list_changed(&self, _: rmcp::service::NotificationContext<RoleClient>) {
        let _ = self.0.send("prompts");
    }

    async fn on_resource_list_changed(&self, _: rmcp::service::NotificationContext<RoleClient>) {
        let _ = self.0.send("resources");
    }
}

fn contract(id: &str, greeting: &str) -> String {
    format!(
        "api_version: templiqx/v1alpha1\nid: {id}\nversion: 0.1.0\n\
         messages:\n  - role: user\n    content: [{{ kind: text, value: {greeting} }}]\n\
         output_schema: {{ type: object }}\n"
    )
}

fn manifest(ids: &[&str]) -> String {
    format!(
        "api_version: templiqx/v1alpha1\npackage: watched\nversion: 0.1.0\ncontracts: [{}]\n",
        ids.join(", ")
    )
}

#[tokio::test]
async fn announces_a_changed_listing_when_files_change() {
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("contracts")).unwrap();
    std::fs::write(
        dir.path().join("contracts/greet.yaml"),
        contract("greet", "Hello"),
    )
    .unwrap();
    std::fs::write(dir.path().join("templiqx.yaml"), manifest(&["greet"])).unwrap();

    let server = Server::new(
        Options::new(dir.path(), vec![PathBuf::from(".")])
            .with_watch(Some(Duration::from_millis(20))),
    )
    .unwrap();
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let (read, write) = tokio::io::split(server_io);
        if let Ok(running) = server.serve(templiqx_mcp::transport(read, write)).await {
            let _ = running.waiting().await;
        }
    });
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let client = Watcher(tx).serve(client_io).await.unwrap();
    let names = |prompts: Vec<rmcp::model::Prompt>| -> Vec<String> {
        prompts.into_iter().map(|p| p.name).collect()
    };
    assert_eq!(names(client.list_all_prompts().await.unwrap()), ["greet"]);
    // The watcher takes its first look after `initialized`.
    tokio::time::sleep(Duration::from_millis(200)).await;

    // A text that changes no listing is not announced.
    std::fs::write(
        dir.path().join("contracts/greet.yaml"),
        contract("greet", "Hi there"),
    )
    .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(rx.try_recv().is_err(), "nothing to announce");

    // A new contract listed by the manifest is.
    std::fs::write(
        dir.path().join("contracts/bye.yaml"),
        contract("bye", "Bye"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("templiqx.yaml"),
        manifest(&["greet", "bye"]),
    )
    .unwrap();
    let mut seen = Vec::new();
    while seen.len() < 2 {
        let next = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await;
        seen.push(next.expect("announced in time").unwrap());
    }
    seen.sort_unstable();
    assert_eq!(seen, ["prompts", "resources"]);
    assert_eq!(
        names(client.list_all_prompts().await.unwrap()),
        ["greet", "bye"]
    );
}

/// A real provider as `templiqx mcp --allow-providers` hands one to the
/// server, here answering with the fixtures' own outputs (no network),
/// counting its runs.
#[derive(Debug)]
struct CountingProvider {
    adapter: templiqx_eval::FakeAdapter,
    runs: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl templiqx_mcp::EvalProvider for CountingProvider {
    fn name(&self) -> &str {
        "anthropic"
    }

    fn endpoint(&self) -> templiqx_eval::Endpoint {
        templiqx_eval::Endpoint::new("anthropic", "test-model")
    }

    fn run<'a>(&'a self, eval: templiqx_eval::Eval<'a>) -> templiqx_mcp::RunFuture<'a> {
        self.runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Box::pin(eval.run(&self.adapter))
    }
}

#[tokio::test]
async fn eval_runs_on_the_provider_the_server_was_given_only_when_asked() {
    let compiled = Compiler::new(
        repo(),
        Target::Profile(CapabilityProfile::parse_list("structured_output")),
    )
    .compile(Path::new("examples/crm3"));
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let provider = CountingProvider {
        adapter: templiqx_eval::FakeAdapter::new(&compiled.contracts, ["structured_output"]),
        runs: runs.clone(),
    };
    let options = Options::new(repo(), vec![PathBuf::from("examples/crm3")])
        .with_target(CapabilityProfile::parse_list("structured_output"))
        .with_provider(provider);
    let client = connect_with(options).await;

    // `eval` may now reach the model; the other tools still cannot.
    for tool in client.list_all_tools().await.unwrap() {
        let hints = tool.annotations.expect("every tool is annotated");
        assert_eq!(
            hints.open_world_hint,
            Some(tool.name == "eval"),
            "{}",
            tool.name
        );
        assert_eq!(hints.read_only_hint, Some(true), "{}", tool.name);
    }

    // By default, still the fake provider.
    let out = structured(&call(&client, "eval", json!({})).await).clone();
    assert_eq!(out["provider"], "fake");
    assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 0);

    let result = call(&client, "eval", json!({ "provider": "anthropic" })).await;
    assert_eq!(result.is_error, Some(false));
    let out = structured(&result);
    assert_eq!(out["ok"], true, "{out}");
    assert_eq!(out["provider"], "anthropic");
    assert_eq!(out["run"]["provider"], "anthropic");
    assert_eq!(out["run"]["model"], "test-model");
    // 4 inline fixtures and the extraction's dataset entry (24 rows).
    let fixtures = out["stats"]["fixtures"].as_array().unwrap();
    assert_eq!(fixtures.len(), 5);
    assert_eq!(fixtures[4]["rows"]["rows"], 24);
    assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 1);

    // Another real provider than the one given is refused, naming it.
    let result = call(&client, "eval", json!({ "provider": "openai" })).await;
    assert_eq!(result.is_error, Some(true));
    let d = &structured(&result)["diagnostics"][0];
    assert_eq!(d["code"], "TQX_INVALID_VALUE");
    assert_eq!(d["json_pointer"], "/provider");
    assert!(
        d["help"]
            .as_str()
            .unwrap()
            .contains("`provider: anthropic`"),
        "{d}"
    );
    assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 1);
}
