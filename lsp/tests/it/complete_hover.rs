//! Hover on filters, capabilities, extension keys and eval fixture ids
//! (the prompt preview), and completion in every position the format
//! names, driven over the in-memory connection on a copy of the CRM3
//! example and on small packages written for the case.

use crate::common::*;
use lsp_types::Url;
use serde_json::{Value, json};
use std::path::Path;

const DRAFTING: &str = "contracts/lease-summary-drafting.yaml";

fn hover_text(client: &mut Client, url: &Url, at: (u32, u32)) -> String {
    let hover = client.at("textDocument/hover", url, at);
    assert_eq!(hover["contents"]["kind"], "markdown", "{hover}");
    hover["contents"]["value"].as_str().unwrap().to_owned()
}

/// The completion items at `at`.
fn complete(client: &mut Client, url: &Url, at: (u32, u32)) -> Vec<Value> {
    let result = client.at("textDocument/completion", url, at);
    result
        .as_array()
        .unwrap_or_else(|| panic!("{result}"))
        .clone()
}

fn labels(items: &[Value]) -> Vec<&str> {
    items.iter().map(|i| i["label"].as_str().unwrap()).collect()
}

fn item<'a>(items: &'a [Value], label: &str) -> &'a Value {
    items
        .iter()
        .find(|i| i["label"] == label)
        .unwrap_or_else(|| panic!("no {label} in {items:#?}"))
}

/// `text` with `marker` removed, and the position where it was.
fn cursor(text: &str, marker: &str) -> (String, (u32, u32)) {
    let at = position(text, marker, 0);
    (text.replacen(marker, "", 1), at)
}

/// A package in a temporary directory: its manifest lists `contracts`
/// (`contracts/<id>.yaml`, written from `files`).
fn package(files: &[(&str, &str)]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("pkg");
    let ids: Vec<&str> = files
        .iter()
        .filter_map(|(rel, _)| rel.strip_prefix("contracts/")?.strip_suffix(".yaml"))
        .collect();
    let manifest = format!(
        "api_version: templiqx/v1alpha1\npackage: pkg\nversion: 0.1.0\ncontracts: [{}]\n",
        ids.join(", ")
    );
    write(&root, "templiqx.yaml", &manifest);
    for (rel, text) in files {
        write(&root, rel, text);
    }
    (dir, root)
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn url(root: &Path, rel: &str) -> Url {
    Url::from_file_path(root.join(rel)).unwrap()
}

const HEAD: &str =
    "api_version: templiqx/v1alpha1\nversion: 0.1.0\noutput_schema: { type: object }\n";

#[test]
fn a_filter_says_what_it_accepts_and_writes() {
    let (_pkg, url, text, mut client) =
        crm3_open(DRAFTING, json!({ "target": ["structured_output"] }));

    let (line, character) = position(&text, "[format_number]", 0);
    let hover = client.at("textDocument/hover", &url, (line, character + 3));
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(
        value.starts_with("filter `format_number`\n\naccepts a number or an integer; writes the number with two fraction digits"),
        "{value}"
    );
    assert!(value.contains("docs/format.md#filters"), "{value}");
    assert_eq!(
        hover["range"],
        json!({
            "start": { "line": line, "character": character + 1 },
            "end": { "line": line, "character": character + 14 },
        })
    );
    let (line, character) = position(&text, "[json]", 0);
    let value = hover_text(&mut client, &url, (line, character + 1));
    assert!(
        value.starts_with("filter `json`\n\naccepts any value; writes its canonical JSON"),
        "{value}"
    );
    client.shutdown();
}

#[test]
fn a_capability_names_the_contracts_that_need_it() {
    let (_pkg, url, text, mut client) =
        crm3_open(EXTRACTION, json!({ "target": ["structured_output"] }));
    let (line, character) = position(&text, "structured_output]", 0);
    let value = hover_text(&mut client, &url, (line, character + 3));
    assert!(
        value.starts_with("capability `structured_output`\n\nThe target must provide it"),
        "{value}"
    );
    assert!(
        value.contains("The target profile provides `structured_output`."),
        "{value}"
    );
    assert!(
        value.contains("Needed in the package by:\n- `lease-term-extraction` (`capabilities`)\n- `lease-summary-drafting` (`capabilities`)"),
        "{value}"
    );
    assert!(
        value.contains("#capabilities-and-the-target-profile"),
        "{value}"
    );
    client.shutdown();

    // Without a target, the hover says the checks are skipped.
    let mut client = Client::start(Value::Null);
    client.open(&url, &text);
    client.diagnostics(&url);
    let value = hover_text(&mut client, &url, (line, character + 3));
    assert!(
        value.contains("No target profile is set: capability checks are skipped."),
        "{value}"
    );
    client.shutdown();
}

const EXTENDED: &str = "\
id: extended
capabilities: [structured_output]
extensions:
  openai.reasoning_effort:
    capability: openai.reasoning
    schema: { type: string, enum: [low, medium, high] }
    value: medium
messages:
  - role: user
    content:
      - { kind: text, value: hi }
";

const PLAIN: &str = "\
id: plain
capabilities: [openai.reasoning]
messages:
  - role: user
    content:
      - { kind: text, value: hi }
";

#[test]
fn an_extension_key_says_what_it_needs_and_who_else_does() {
    let extended = format!("{HEAD}{EXTENDED}");
    let (_dir, root) = package(&[
        ("contracts/extended.yaml", &extended),
        ("contracts/plain.yaml", &format!("{HEAD}{PLAIN}")),
    ]);
    let url = url(&root, "contracts/extended.yaml");
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&url, &extended);
    let diagnostics = client.diagnostics(&url);
    assert_eq!(codes(&diagnostics), ["TQX_EXTENSION_UNSUPPORTED"]);

    let (line, character) = position(&extended, "openai.reasoning_effort", 0);
    let hover = client.at("textDocument/hover", &url, (line, character + 8));
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(
        value.starts_with("extension `openai.reasoning_effort`: `string, one of \"low\", \"medium\", \"high\"` = `\"medium\"`\n\nNeeds capability `openai.reasoning`: the target must provide it (`TQX_EXTENSION_UNSUPPORTED` otherwise)"),
        "{value}"
    );
    assert!(
        value.contains(
            "The target profile does not provide `openai.reasoning`: `TQX_EXTENSION_UNSUPPORTED`."
        ),
        "{value}"
    );
    assert!(
        value.contains("Needed in the package by:\n- `extended` (extension `openai.reasoning_effort`)\n- `plain` (`capabilities`)"),
        "{value}"
    );
    assert!(value.contains("docs/format.md#extensions"), "{value}");
    assert_eq!(
        hover["range"]["start"],
        json!({ "line": line, "character": character })
    );
    assert_eq!(
        hover["range"]["end"],
        json!({ "line": line, "character": character + 23 })
    );

    // The extension's `capability` is a capability.
    let (line, character) = position(&extended, "capability: openai.reasoning", 0);
    let value = hover_text(&mut client, &url, (line, character + 14));
    assert!(
        value.starts_with("capability `openai.reasoning`"),
        "{value}"
    );
    assert!(
        value.contains("- `extended` (extension `openai.reasoning_effort`)"),
        "{value}"
    );
    client.shutdown();
}

#[test]
fn an_eval_id_previews_the_prompt_of_the_unsaved_buffer() {
    let (_pkg, url, text, mut client) =
        crm3_open(EXTRACTION, json!({ "target": ["structured_output"] }));
    let (line, character) = position(&text, "fixed-term-lease", 0);
    let hover = client.at("textDocument/hover", &url, (line, character + 3));
    let value = hover["contents"]["value"].as_str().unwrap();
    let expected = "\
eval fixture `fixed-term-lease` (`/evals/0`): the prompt it renders, 2 messages

**system**

```text
You extract lease terms as JSON. Use only facts stated in the source. Cite evidence by byte offsets; never invent values.
```

**user**

```text
Matter: MAT-2026-0107
Document LEASE-0007, clause clause-3:
The lease starts on 2026-03-01 and ends on 2027-02-28. Rent is EUR 1450.50 per month. Notice period: 60 days.
Check first: notice_days, start_date
```";
    assert_eq!(value, expected);
    assert_eq!(
        hover["range"],
        json!({
            "start": { "line": line, "character": character },
            "end": { "line": line, "character": character + 16 },
        })
    );

    // An edit not saved: the preview is of the buffer (and of the partial
    // the contract includes, from disk).
    let edited = text.replace("\"Matter: \"", "\"Dossier: \"");
    client.replace(&url, 2, &edited);
    client.diagnostics(&url);
    let value = hover_text(&mut client, &url, (line, character + 3));
    assert!(
        value.contains("```text\nDossier: MAT-2026-0107\n"),
        "{value}"
    );
    client.shutdown();
}

#[test]
fn an_eval_that_cannot_render_shows_the_code_and_message() {
    // `nick` is optional and absent from the fixture: rendering it is
    // `TQX_VALUE_MISSING`, a render-time error the compiler accepts.
    let contract = format!(
        "{HEAD}id: greet\ninputs:\n  nick: {{ schema: {{ type: string }} }}\nmessages:\n  - role: user\n    content:\n      - {{ kind: interpolate, expression: {{ kind: ref, path: inputs.nick }} }}\nevals:\n  - id: no-nick\n"
    );
    let (_dir, root) = package(&[("contracts/greet.yaml", &contract)]);
    let url = url(&root, "contracts/greet.yaml");
    let mut client = Client::start(json!({ "target": [] }));
    client.open(&url, &contract);
    assert_eq!(client.diagnostics(&url), Vec::<Value>::new());
    let (line, character) = position(&contract, "no-nick", 0);
    let value = hover_text(&mut client, &url, (line, character + 1));
    assert!(
        value.starts_with("eval fixture `no-nick` cannot be rendered:\n- `TQX_VALUE_MISSING`: "),
        "{value}"
    );

    // A contract that does not compile names its errors, this fixture's
    // first.
    let broken = contract.replace(
        "  - id: no-nick\n",
        "  - id: no-nick\n    inputs: { nick: 7 }\n",
    );
    client.replace(&url, 2, &broken);
    assert_eq!(codes(&client.diagnostics(&url)), ["TQX_EVAL_INVALID"]);
    let value = hover_text(&mut client, &url, (line, character + 1));
    assert!(
        value.starts_with("eval fixture `no-nick`\n\nThe contract does not compile, so the fixture cannot be rendered:\n- `TQX_EVAL_INVALID`: "),
        "{value}"
    );
    client.shutdown();
}

#[test]
fn initialize_announces_completion_with_its_trigger_characters() {
    let client = Client::start(json!({ "target": [] }));
    assert_eq!(
        client.capabilities["completionProvider"]["triggerCharacters"],
        json!([".", ":", "[", ","])
    );
    client.shutdown();
}

#[test]
fn references_complete_with_types_and_descriptions() {
    let (_pkg, url, text, mut client) =
        crm3_open(DRAFTING, json!({ "target": ["structured_output"] }));

    // After `inputs.`: the inputs, typed and described.
    let (line, character) = position(&text, "inputs.lease_terms.start_date", 0);
    let items = complete(&mut client, &url, (line, character + 7));
    assert_eq!(labels(&items), ["lease_terms", "formal"]);
    let formal = item(&items, "formal");
    assert_eq!(formal["kind"], 5, "a field");
    assert_eq!(formal["detail"], "boolean, required");
    assert!(
        formal["documentation"]["value"]
            .as_str()
            .unwrap()
            .starts_with("`inputs.formal`: `boolean` — input, required\n\nWhether to address the client formally."),
        "{formal}"
    );
    // The replaced range is the segment up to the cursor.
    assert_eq!(
        formal["textEdit"]["range"],
        json!({
            "start": { "line": line, "character": character + 7 },
            "end": { "line": line, "character": character + 7 },
        })
    );

    // Nested properties, on a half-written segment.
    let items = complete(&mut client, &url, (line, character + 21));
    assert_eq!(
        labels(&items),
        [
            "start_date",
            "end_date",
            "monthly_rent",
            "notice_days",
            "evidence"
        ]
    );
    assert_eq!(
        item(&items, "start_date")["detail"],
        "string (date), required"
    );
    assert_eq!(
        item(&items, "evidence")["detail"],
        "array of object, required"
    );
    assert_eq!(
        item(&items, "start_date")["textEdit"],
        json!({
            "range": {
                "start": { "line": line, "character": character + 19 },
                "end": { "line": line, "character": character + 21 },
            },
            "newText": "start_date",
        })
    );

    // After `context.`.
    let (line, character) = position(&text, "context.client_name }", 0);
    let items = complete(&mut client, &url, (line, character + 8));
    assert_eq!(
        labels(&items),
        ["client_name", "matter_reference", "locale"]
    );
    assert_eq!(item(&items, "locale")["detail"], "string, optional");

    // In a component's content: its parameters come first.
    let (line, character) = position(&text, "path: formal }", 0);
    let items = complete(&mut client, &url, (line, character + 6));
    assert_eq!(labels(&items), ["name", "formal", "inputs", "context"]);
    assert_eq!(item(&items, "name")["detail"], "string, required");

    // In an eval check: `output` and its properties.
    let (line, character) = position(&text, "output.merge_fields.client", 0);
    let items = complete(&mut client, &url, (line, character + 6));
    assert_eq!(labels(&items), ["inputs", "context", "output"]);
    let items = complete(&mut client, &url, (line, character + 20));
    assert_eq!(labels(&items), ["client", "term", "rent"]);
    client.shutdown();
}

#[test]
fn a_for_each_item_completes_with_the_element_type() {
    let (_pkg, url, text, mut client) =
        crm3_open(EXTRACTION, json!({ "target": ["structured_output"] }));
    let (line, character) = position(&text, "path: field }", 0);
    let items = complete(&mut client, &url, (line, character + 6));
    assert_eq!(labels(&items), ["field", "inputs", "context"]);
    let field = item(&items, "field");
    assert_eq!(field["kind"], 6, "a variable");
    assert_eq!(
        field["detail"],
        "string, one of \"start_date\", \"end_date\", \"monthly_rent\", \"notice_days\""
    );

    // Nested: a `for_each` over an item's array property.
    let edited = text.replace(
        "            expression: { kind: ref, path: field }\n",
        "            expression: { kind: ref, path: field }\n          - kind: for_each\n            collection: { kind: ref, path: inputs.focus_fields }\n            item: inner\n            body: [{ kind: interpolate, expression: { kind: ref, path: in } }]\n",
    );
    client.replace(&url, 2, &edited);
    client.diagnostics(&url);
    let (line, character) = position(&edited, "path: in }", 0);
    let items = complete(&mut client, &url, (line, character + 8));
    assert_eq!(labels(&items), ["inner", "field", "inputs", "context"]);
    client.shutdown();
}

#[test]
fn filters_kinds_and_component_names_complete_where_they_belong() {
    let (_pkg, url, text, mut client) =
        crm3_open(DRAFTING, json!({ "target": ["structured_output"] }));

    // A filter list.
    let (edited, at) = cursor(&text.replacen("[trim]", "[trim, |]", 1), "|");
    client.replace(&url, 2, &edited);
    let items = complete(&mut client, &url, at);
    assert_eq!(
        labels(&items),
        [
            "trim",
            "lower",
            "upper",
            "json",
            "format_date",
            "format_number"
        ]
    );
    assert_eq!(item(&items, "format_date")["kind"], 3, "a function");
    assert!(
        item(&items, "format_date")["detail"]
            .as_str()
            .unwrap()
            .starts_with("filter: accepts a string, a `YYYY-MM-DD` date"),
    );

    // `filters:` with nothing yet, right after the `:` trigger: a list.
    let (edited, at) = cursor(&text.replacen("filters: [json]", "filters:|", 1), "|");
    client.replace(&url, 3, &edited);
    let items = complete(&mut client, &url, at);
    assert_eq!(item(&items, "json")["textEdit"]["newText"], " [json]");

    // Content node kinds in content, expression kinds in expressions.
    let (edited, at) = cursor(
        &text.replacen(
            "      - kind: text\n        value: \"\\nMatter: \"\n",
            "      - kind: |\n",
            1,
        ),
        "|",
    );
    client.replace(&url, 4, &edited);
    let items = complete(&mut client, &url, at);
    assert_eq!(
        labels(&items),
        [
            "text",
            "interpolate",
            "when",
            "for_each",
            "component",
            "include"
        ]
    );
    assert_eq!(
        item(&items, "for_each")["detail"],
        "content node: collection, item, body, separator?"
    );
    let (edited, at) = cursor(
        &text.replacen("condition: { kind: ref,", "condition: { kind: |,", 1),
        "|",
    );
    client.replace(&url, 5, &edited);
    let items = complete(&mut client, &url, at);
    // Content keeps to the format's kinds (`docs/format.md`, "Where each
    // kind is allowed"): the eval operators are not offered in a condition.
    assert_eq!(
        labels(&items),
        ["ref", "literal", "equals", "not", "and", "or"]
    );
    assert_eq!(item(&items, "equals")["detail"], "expression: left, right");
    // An eval check offers every kind.
    let (edited, at) = cursor(
        &text.replacen(
            "        check:\n          kind: compare\n",
            "        check:\n          kind: |\n",
            1,
        ),
        "|",
    );
    client.replace(&url, 6, &edited);
    let items = complete(&mut client, &url, at);
    assert_eq!(
        labels(&items),
        [
            "ref", "literal", "equals", "not", "and", "or", "compare", "contains", "length",
            "judge"
        ]
    );
    assert_eq!(
        item(&items, "compare")["detail"],
        "expression: op, left, right"
    );

    // A component invocation's name.
    let (edited, at) = cursor(&text.replacen("name: salutation", "name: sal|", 1), "|");
    client.replace(&url, 7, &edited);
    let items = complete(&mut client, &url, at);
    assert_eq!(labels(&items), ["salutation"]);
    let salutation = item(&items, "salutation");
    assert_eq!(salutation["detail"], "component(name, formal)");
    assert_eq!(
        salutation["textEdit"]["newText"], "salutation",
        "{salutation}"
    );
    assert!(
        salutation["documentation"]["value"]
            .as_str()
            .unwrap()
            .contains("- `formal`: `boolean`, required"),
    );
    client.shutdown();
}

#[test]
fn capabilities_complete_from_the_target_and_the_package() {
    let (_pkg, url, text, mut client) = crm3_open(
        EXTRACTION,
        json!({ "target": ["structured_output", "tools"] }),
    );
    let (edited, at) = cursor(
        &text.replacen("[structured_output]", "[structured_output, |]", 1),
        "|",
    );
    client.replace(&url, 2, &edited);
    let items = complete(&mut client, &url, at);
    assert_eq!(labels(&items), ["tools"], "listed ones are left out");
    assert_eq!(
        item(&items, "tools")["detail"],
        "capability: in the target profile"
    );
    let (edited, at) = cursor(&text.replacen("[structured_output]", "[|]", 1), "|");
    client.replace(&url, 3, &edited);
    let items = complete(&mut client, &url, at);
    assert_eq!(labels(&items), ["structured_output", "tools"]);
    assert_eq!(
        item(&items, "structured_output")["detail"],
        // The drafting contract and its judge (the other contracts).
        "capability: in the target profile; needed by 2 contracts"
    );
    client.shutdown();
}

#[test]
fn schema_keywords_complete_where_a_schema_is_expected() {
    let (_pkg, url, text, mut client) =
        crm3_open(EXTRACTION, json!({ "target": ["structured_output"] }));

    // A block schema: a key begun on its own line.
    let (edited, at) = cursor(
        &text.replacen("      type: array\n", "      type: array\n      max|\n", 1),
        "|",
    );
    client.replace(&url, 2, &edited);
    let items = complete(&mut client, &url, at);
    let names = labels(&items);
    assert!(names.contains(&"maxItems"), "{names:?}");
    assert!(
        !names.contains(&"type") && !names.contains(&"items"),
        "{names:?}"
    );
    assert_eq!(names.len(), templiqx_build::schema::KEYWORDS.len() - 2);
    assert_eq!(item(&items, "maxItems")["kind"], 14, "a keyword");
    assert_eq!(
        item(&items, "maxItems")["textEdit"]["newText"],
        "maxItems: "
    );

    // A flow schema inside `output_schema`'s properties.
    let (edited, at) = cursor(
        &text.replacen(
            "monthly_rent: { type: number, minimum: 0,",
            "monthly_rent: { type: number, minimum: 0, |",
            1,
        ),
        "|",
    );
    client.replace(&url, 3, &edited);
    let names: Vec<String> = labels(&complete(&mut client, &url, at))
        .into_iter()
        .map(str::to_owned)
        .collect();
    assert!(names.contains(&"exclusiveMaximum".to_owned()), "{names:?}");
    assert!(!names.contains(&"minimum".to_owned()), "{names:?}");

    // Not in a field declaration (its keys are not a schema's).
    let (edited, at) = cursor(
        &text.replacen(
            "    required: true\n    description: Stable identifier",
            "    required: true\n    desc|\n    description: Stable identifier",
            1,
        ),
        "|",
    );
    client.replace(&url, 4, &edited);
    assert_eq!(complete(&mut client, &url, at), Vec::<Value>::new());
    client.shutdown();
}

#[test]
fn a_half_typed_document_still_completes_and_never_errs() {
    let (_pkg, url, text, mut client) =
        crm3_open(DRAFTING, json!({ "target": ["structured_output"] }));

    // Typed up to `inputs.lease_terms.`: the flow mapping is not closed.
    let (edited, at) = cursor(
        &text.replacen(
            "expression: { kind: ref, path: inputs.lease_terms.monthly_rent }",
            "expression: { kind: ref, path: inputs.lease_terms.|",
            1,
        ),
        "|",
    );
    client.replace(&url, 2, &edited);
    assert_eq!(codes(&client.diagnostics(&url)), ["TQX_PARSE_YAML"]);
    let items = complete(&mut client, &url, at);
    assert_eq!(
        labels(&items),
        [
            "start_date",
            "end_date",
            "monthly_rent",
            "notice_days",
            "evidence"
        ]
    );

    // Broken elsewhere too (a tab where indentation belongs, far above):
    // the line the parser stops at is set aside.
    let tabbed = edited.replacen("  formal:\n", "\tformal:\n", 1);
    client.replace(&url, 3, &tabbed);
    let items = complete(&mut client, &url, at);
    assert!(labels(&items).contains(&"monthly_rent"), "{items:#?}");

    // Nothing parses around the cursor: the key before it on the line
    // decides, with the declarations of the last tree that parsed.
    let hopeless = format!(
        "{}\n  - role: user\n    content: [{{ kind: ref, path: context.",
        &tabbed[..tabbed.find("\nmessages:").unwrap()]
    );
    let hopeless = hopeless.replacen(
        "api_version: templiqx/v1alpha1",
        "api_version: \"templiqx/v1alpha1",
        1,
    );
    client.replace(&url, 4, &hopeless);
    let at = position(&hopeless, "context.", 0);
    let items = complete(&mut client, &url, (at.0, at.1 + 8));
    assert_eq!(
        labels(&items),
        ["client_name", "matter_reference", "locale"]
    );

    // Random prefixes of the file: a list every time (maybe empty).
    for cut in (0..text.len()).step_by(97) {
        let mut cut = cut;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let prefix = &text[..cut];
        client.replace(&url, 10 + cut as i32, prefix);
        let line = prefix.matches('\n').count() as u32;
        let character = prefix.rsplit('\n').next().unwrap().encode_utf16().count() as u32;
        let result = client.at("textDocument/completion", &url, (line, character));
        assert!(result.is_array(), "{result}");
    }
    client.shutdown();
}

#[test]
fn a_partial_completes_from_the_contract_that_includes_it() {
    let pkg = Package::crm3();
    let partial = pkg.url(PARTIAL);
    let (text, at) = cursor(
        &format!(
            "{}- {{ kind: interpolate, expression: {{ kind: ref, path: context.| }} }}\n",
            pkg.text(PARTIAL)
        ),
        "|",
    );
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&partial, &text);
    client.diagnostics(&partial);
    let items = complete(&mut client, &partial, at);
    // Both contracts include it and declare `matter_reference`; the first
    // compiled (the manifest's first) declares nothing else.
    assert_eq!(labels(&items), ["matter_reference"]);
    assert_eq!(
        item(&items, "matter_reference")["documentation"]["value"]
            .as_str()
            .unwrap(),
        "`context.matter_reference`: `string` — context field, required\n\nHost-owned opaque matter reference.\n\n```json\n{\n  \"type\": \"string\",\n  \"minLength\": 1\n}\n```"
    );
    // A node kind, in the partial's top-level list.
    let (text, at) = cursor(&format!("{}- kind: |\n", pkg.text(PARTIAL)), "|");
    client.replace(&partial, 2, &text);
    let items = complete(&mut client, &partial, at);
    assert_eq!(labels(&items)[0], "text");
    assert_eq!(labels(&items).len(), templiqx_build::NODE_KINDS.len());
    client.shutdown();
}

#[test]
fn case_completes_from_the_case_schema_and_a_bad_row_shows_at_its_line() {
    let pkg = Package::crm3();
    // Row 3 of the dataset with an empty clause: its diagnostic is
    // published on the data file, at the row's line.
    let data = pkg.path("evals/labelled-leases.jsonl");
    let rows = std::fs::read_to_string(&data).unwrap();
    let mut lines: Vec<String> = rows.lines().map(str::to_owned).collect();
    let clause = lines[2].find("\"clause_text\": \"").unwrap() + "\"clause_text\": \"".len();
    let end = clause + lines[2][clause..].find('"').unwrap();
    lines[2].replace_range(clause..end, "");
    std::fs::write(&data, lines.join("\n") + "\n").unwrap();

    let url = pkg.url(EXTRACTION);
    let text = pkg.text(EXTRACTION);
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&url, &text);
    let data_url = Url::from_file_path(data.canonicalize().unwrap()).unwrap();
    let diagnostics = client.diagnostics(&data_url);
    assert_eq!(
        codes(&diagnostics),
        ["TQX_EVAL_INVALID"],
        "{diagnostics:#?}"
    );
    // At the emptied value (`""`), in the row's line.
    assert_eq!(
        diagnostics[0]["range"],
        json!({
            "start": { "line": 2, "character": clause - 1 },
            "end": { "line": 2, "character": clause + 1 },
        })
    );
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .unwrap()
            .contains("at /inputs/clause_text"),
        "{diagnostics:#?}"
    );

    // In a check of the dataset entry: `case` beside the roots, then the
    // properties of its `case_schema`.
    let (line, character) = position(&text, "path: case.monthly_rent", 0);
    let items = complete(&mut client, &url, (line, character + 6));
    assert_eq!(labels(&items), ["inputs", "context", "output", "case"]);
    assert_eq!(item(&items, "case")["detail"], "object, required");
    let items = complete(&mut client, &url, (line, character + 11));
    assert_eq!(
        labels(&items),
        ["start_date", "end_date", "monthly_rent", "notice_days"]
    );
    // Not in the checks of an inline fixture.
    let (line, character) = position(
        &text,
        "path: output.start_date }, right: { kind: literal",
        0,
    );
    let items = complete(&mut client, &url, (line, character + 6));
    assert_eq!(labels(&items), ["inputs", "context", "output"]);
    client.shutdown();
}

#[test]
fn a_judge_check_completes_the_judge_output_in_pass_and_its_inputs_in_with() {
    let pkg = Package::crm3();
    let url = pkg.url(DRAFTING);
    let text = pkg.text(DRAFTING);
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&url, &text);
    assert_eq!(client.diagnostics(&url), Vec::<Value>::new());

    // In `pass`: the roots of a check and `judge`, the judge's output.
    let (line, character) = position(&text, "path: judge.score", 0);
    let items = complete(&mut client, &url, (line, character + 6));
    assert_eq!(labels(&items), ["inputs", "context", "output", "judge"]);
    assert_eq!(item(&items, "judge")["detail"], "object, required");
    // After `judge.`: the properties of lease-summary-judge's output_schema.
    let items = complete(&mut client, &url, (line, character + 12));
    assert_eq!(labels(&items), ["score", "unsupported", "reasons"]);
    assert_eq!(item(&items, "score")["detail"], "integer, required");
    assert_eq!(
        item(&items, "unsupported")["detail"],
        "array of string, required"
    );
    assert_eq!(
        item(&items, "score")["textEdit"]["newText"],
        "score",
        "{items:#?}"
    );
    // A `pass` operand's kind: every kind but `judge`.
    let (line, character) = position(
        &text,
        "kind: compare, op: ge, left: { kind: ref, path: judge",
        0,
    );
    let items = complete(&mut client, &url, (line, character + 6));
    assert_eq!(
        labels(&items),
        [
            "ref", "literal", "equals", "not", "and", "or", "compare", "contains", "length"
        ]
    );

    // In a `with` value: a check's roots, no `judge` (`TQX_REF_UNKNOWN`
    // there), and nothing after it.
    let (line, character) = position(&text, "path: output.summary }", 0);
    let items = complete(&mut client, &url, (line, character + 6));
    assert_eq!(labels(&items), ["inputs", "context", "output"]);
    let with_judge = text.replacen("path: output.summary }", "path: judge.summary }", 1);
    client.replace(&url, 2, &with_judge);
    let items = complete(&mut client, &url, (line, character + 12));
    assert_eq!(labels(&items), Vec::<&str>::new());

    // A key of `with` begun on its own line: the judge's inputs not given
    // yet, with their types, inserted with `: `.
    let (begun, at) = cursor(
        &text.replacen(
            "            lease_terms: { kind: ref, path: inputs.lease_terms }\n",
            "            le|\n",
            1,
        ),
        "|",
    );
    client.replace(&url, 3, &begun);
    let items = complete(&mut client, &url, at);
    assert_eq!(labels(&items), ["lease_terms"]);
    assert_eq!(item(&items, "lease_terms")["detail"], "object, required");
    assert_eq!(
        item(&items, "lease_terms")["textEdit"]["newText"],
        "lease_terms: "
    );
    assert!(
        item(&items, "lease_terms")["documentation"]["value"]
            .as_str()
            .unwrap()
            .contains("The validated terms the summary was drafted from."),
        "{items:#?}"
    );
    // In a flow mapping, nothing given yet: every input, in their order.
    let (flow, at) = cursor(
        &text.replacen(
            "          with:\n            summary: { kind: ref, path: output.summary }\n            lease_terms: { kind: ref, path: inputs.lease_terms }\n",
            "          with: { | }\n",
            1,
        ),
        "|",
    );
    client.replace(&url, 4, &flow);
    let items = complete(&mut client, &url, at);
    assert_eq!(labels(&items), ["summary", "lease_terms"]);
    // On the line of `with:`, a word is its value: no key to complete
    // (`with: summary: ` would not parse).
    let (inline, at) = cursor(
        &text.replacen(
            "          with:\n            summary: { kind: ref, path: output.summary }\n            lease_terms: { kind: ref, path: inputs.lease_terms }\n",
            "          with: su|\n",
            1,
        ),
        "|",
    );
    client.replace(&url, 5, &inline);
    assert_eq!(labels(&complete(&mut client, &url, at)), Vec::<&str>::new());
    client.shutdown();
}

/// The judge of the drafting contract's `faithful-to-the-terms` check.
const LEASE_JUDGE: &str = "contracts/lease-summary-judge.yaml";

#[test]
fn a_judge_check_hovers_and_goes_to_its_judge_contract() {
    let pkg = Package::crm3();
    let url = pkg.url(DRAFTING);
    let text = pkg.text(DRAFTING);
    let judge_url = pkg.url(LEASE_JUDGE);
    let judge = pkg.text(LEASE_JUDGE);
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&url, &text);
    assert_eq!(client.diagnostics(&url), Vec::<Value>::new());

    // Hover on `judge.score` in `pass`: the property of the judge's
    // output_schema, with its type and schema, over the segment.
    let (line, character) = position(&text, "path: judge.score", 0);
    let hover = client.at("textDocument/hover", &url, (line, character + 13));
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(
        value.starts_with("`judge.score`: `integer` — property, required"),
        "{value}"
    );
    assert!(value.contains("\"maximum\": 5"), "{value}");
    assert_eq!(
        hover["range"],
        json!({
            "start": { "line": line, "character": character + 12 },
            "end": { "line": line, "character": character + 17 },
        })
    );
    let (line, character) = position(&text, "path: judge.unsupported", 0);
    assert!(
        hover_text(&mut client, &url, (line, character + 14))
            .starts_with("`judge.unsupported`: `array of string` — property, required"),
    );

    // Definition: `judge.score` to its key in the judge's output_schema,
    // `judge` to the output_schema.
    let (line, character) = position(&text, "path: judge.score", 0);
    let location = client.at("textDocument/definition", &url, (line, character + 13));
    assert_eq!(location["uri"], judge_url.as_str());
    let (score, at) = position(&judge, "score: { type: integer", 0);
    assert_eq!(
        location["range"],
        json!({
            "start": { "line": score, "character": at },
            "end": { "line": score, "character": at + 5 },
        })
    );
    let location = client.at("textDocument/definition", &url, (line, character + 8));
    assert_eq!(location["uri"], judge_url.as_str());
    let (output, _) = position(&judge, "output_schema:", 0);
    assert_eq!(
        location["range"]["start"],
        json!({ "line": output, "character": 0 })
    );

    // `contract: lease-summary-judge`: the judge contract, at its id.
    let (line, character) = position(&text, "contract: lease-summary-judge", 0);
    let location = client.at("textDocument/definition", &url, (line, character + 14));
    assert_eq!(location["uri"], judge_url.as_str());
    let (id, _) = position(&judge, "id: lease-summary-judge", 0);
    assert_eq!(
        location["range"],
        json!({
            "start": { "line": id, "character": 4 },
            "end": { "line": id, "character": 4 + "lease-summary-judge".len() },
        })
    );

    // A key of `with`: the judge's input (definition and hover); its
    // value references the drafting contract's own output.
    let (line, character) = position(&text, "summary: { kind: ref, path: output.summary }", 0);
    let location = client.at("textDocument/definition", &url, (line, character + 2));
    assert_eq!(location["uri"], judge_url.as_str());
    let (input, _) = position(&judge, "  summary:\n    schema", 0);
    assert_eq!(
        location["range"]["start"],
        json!({ "line": input, "character": 2 })
    );
    assert!(
        hover_text(&mut client, &url, (line, character + 2)).starts_with(
            "`summary`: `string` — judge input, required\n\nThe drafted summary (lease-summary-drafting's output.summary)."
        ),
    );
    let location = client.at("textDocument/definition", &url, (line, character + 38));
    assert_eq!(location["uri"], url.as_str());

    // The judge as the editor shows it: a description given in its
    // unsaved buffer is what the hover shows.
    let described = judge.replacen(
        "score: { type: integer, minimum: 1, maximum: 5 }",
        "score: { type: integer, minimum: 1, maximum: 5, description: How faithful the summary is. }",
        1,
    );
    assert_ne!(described, judge);
    client.open(&judge_url, &described);
    assert_eq!(client.diagnostics(&judge_url), Vec::<Value>::new());
    let (line, character) = position(&text, "path: judge.score", 0);
    assert!(
        hover_text(&mut client, &url, (line, character + 13)).starts_with(
            "`judge.score`: `integer` — property, required\n\nHow faithful the summary is."
        ),
    );
    client.shutdown();
}

#[test]
fn a_judge_is_not_offered_as_an_operand_when_nothing_parses() {
    let (_pkg, url, text, mut client) =
        crm3_open(DRAFTING, json!({ "target": ["structured_output"] }));
    // The document up to a `kind:` in the `pass` of faithful-to-the-terms,
    // with more lines indented by tabs far above than completion sets
    // aside: nothing parses, the lines decide.
    let cut = text
        .find("              - { kind: compare, op: ge, left: { kind: ref, path: judge.score }")
        .unwrap();
    let broken = text[..cut].replacen(
        "api_version: templiqx/v1alpha1\n",
        &format!(
            "api_version: templiqx/v1alpha1\n{}",
            "\tbroken: 1\n".repeat(6)
        ),
        1,
    );
    let operands = [
        "ref", "literal", "equals", "not", "and", "or", "compare", "contains", "length",
    ];
    let mut version = 2;
    let mut kinds = |typed: String| {
        let at = position(&typed, "kind: |", 0);
        let typed = typed.replacen("kind: |", "kind: ", 1);
        client.replace(&url, version, &typed);
        version += 1;
        assert_eq!(codes(&client.diagnostics(&url)), ["TQX_PARSE_YAML"]);
        let items = complete(&mut client, &url, (at.0, at.1 + 6));
        labels(&items)
            .iter()
            .map(|l| l.to_string())
            .collect::<Vec<String>>()
    };
    // A `pass` operand, a `with` value: every kind but `judge`.
    assert_eq!(
        kinds(format!(
            "{broken}              - {{ kind: compare, op: ge, left: {{ kind: |"
        )),
        operands
    );
    let with = &broken[..broken.find("            summary: { kind: ref").unwrap()];
    assert_eq!(
        kinds(format!("{with}            summary: {{ kind: |")),
        operands
    );
    // The whole check: `judge` too.
    let check = &broken[..broken.rfind("          kind: judge").unwrap()];
    let mut every = operands.to_vec();
    every.push("judge");
    assert_eq!(kinds(format!("{check}          kind: |")), every);
    client.shutdown();
}

#[test]
fn judge_paths_complete_through_nested_objects_of_the_judge_output() {
    let judge = format!(
        "{}{JUDGE}",
        HEAD.replace("output_schema: { type: object }\n", "")
    );
    let judged = format!("{HEAD}{JUDGED}");
    let (judged, at) = cursor(&judged, "|");
    let (_dir, root) = package(&[
        ("contracts/grader.yaml", &judge),
        ("contracts/drafting.yaml", &judged),
    ]);
    let url = url(&root, "contracts/drafting.yaml");
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&url, &judged);
    client.diagnostics(&url);
    let items = complete(&mut client, &url, at);
    assert_eq!(labels(&items), ["grade", "notes"]);
    assert_eq!(item(&items, "grade")["detail"], "integer, required");
    assert_eq!(item(&items, "notes")["detail"], "array of string, optional");
    assert!(
        item(&items, "grade")["documentation"]["value"]
            .as_str()
            .unwrap()
            .starts_with("`judge.verdict.grade`: `integer` — property, required\n\nFrom 1 to 5."),
        "{items:#?}"
    );
    // A judge the package does not list declares nothing.
    let unknown = judged.replace("contract: grader", "contract: nobody");
    client.replace(&url, 2, &unknown);
    assert_eq!(labels(&complete(&mut client, &url, at)), Vec::<&str>::new());
    client.shutdown();
}

/// A judge whose output nests an object (after [`HEAD`] without its
/// `output_schema`).
const JUDGE: &str = "\
inputs:
  text: { schema: { type: string }, required: true }
messages:
  - role: user
    content:
      - { kind: interpolate, expression: { kind: ref, path: inputs.text } }
output_schema:
  type: object
  required: [verdict]
  properties:
    verdict:
      type: object
      required: [grade]
      properties:
        grade: { type: integer, description: From 1 to 5. }
        notes: { type: array, items: { type: string } }
";

/// A contract judged by `grader`; `|` is after `judge.verdict.`.
const JUDGED: &str = "\
inputs:
  text: { schema: { type: string }, required: true }
messages:
  - role: user
    content:
      - { kind: interpolate, expression: { kind: ref, path: inputs.text } }
evals:
  - id: one
    inputs: { text: a }
    expect:
      - id: graded
        check:
          kind: judge
          contract: grader
          with: { text: { kind: ref, path: inputs.text } }
          pass: { kind: compare, op: ge, left: { kind: ref, path: judge.verdict.| }, right: { kind: literal, value: 3 } }
";
