//! The server over an in-memory connection, driven as an editor drives it:
//! the CRM3 example package copied into a temporary directory, documents
//! opened and edited, diagnostics, hover, definition and symbols read back.

use crate::common::*;
use lsp_types::Url;
use serde_json::{Value, json};

#[test]
fn initialize_announces_the_features_and_the_missing_target() {
    let mut client = Client::start(Value::Null);
    let caps = &client.capabilities;
    assert_eq!(caps["positionEncoding"], "utf-16");
    assert_eq!(caps["textDocumentSync"]["change"], 2, "incremental");
    assert_eq!(caps["textDocumentSync"]["openClose"], true);
    assert_eq!(caps["hoverProvider"], true);
    assert_eq!(caps["definitionProvider"], true);
    assert_eq!(caps["documentSymbolProvider"], true);
    let message = client.next("window/showMessage");
    assert!(
        message["message"]
            .as_str()
            .unwrap()
            .contains("capability checks are skipped"),
        "{message}"
    );
    client.shutdown();
}

#[test]
fn an_unknown_reference_is_reported_where_it_is_and_cleared_when_fixed() {
    let pkg = Package::crm3();
    let url = pkg.url(EXTRACTION);
    let text = pkg.text(EXTRACTION);
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&url, &text);
    assert_eq!(client.diagnostics(&url), Vec::<Value>::new());

    // Rename `inputs.clause_id` to `inputs.nmae` with an incremental edit.
    let (line, character) = position(&text, "inputs.clause_id }", 0);
    let range = json!({
        "start": { "line": line, "character": character + 7 },
        "end": { "line": line, "character": character + 16 },
    });
    client.edit(&url, 2, range, "nmae");
    let diagnostics = client.diagnostics(&url);
    assert_eq!(codes(&diagnostics), ["TQX_REF_UNKNOWN"], "{diagnostics:#?}");
    let d = &diagnostics[0];
    assert_eq!(
        d["range"]["start"],
        json!({ "line": line, "character": character })
    );
    assert_eq!(
        d["range"]["end"],
        json!({ "line": line, "character": character + 11 })
    );
    assert_eq!(d["severity"], 1);
    assert_eq!(d["source"], "templiqx");
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .starts_with("`inputs` declares no field `nmae`\nhelp: "),
        "{d}"
    );
    let href = d["codeDescription"]["href"].as_str().unwrap();
    assert!(href.starts_with("file://"), "{href}");
    assert!(
        href.ends_with("/docs/diagnostics.md#tqx_ref_unknown"),
        "{href}"
    );

    // Fixing it clears the file.
    client.replace(&url, 3, &text);
    assert_eq!(client.diagnostics(&url), Vec::<Value>::new());
    client.shutdown();
}

/// An eval operator in content is the compiler's
/// `TQX_EXPR_KIND_NOT_ALLOWED`, on its `kind` (`docs/format.md`, "Where
/// each kind is allowed").
#[test]
fn an_eval_operator_in_content_is_reported_on_its_kind() {
    let pkg = Package::crm3();
    let url = pkg.url(EXTRACTION);
    let text = pkg.text(EXTRACTION);
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&url, &text);
    assert_eq!(client.diagnostics(&url), Vec::<Value>::new());
    let edited = text.replacen(
        "expression: { kind: ref, path: inputs.clause_id }",
        "expression: { kind: length, of: { kind: ref, path: inputs.clause_id } }",
        1,
    );
    assert_ne!(edited, text);
    client.replace(&url, 2, &edited);
    let diagnostics = client.diagnostics(&url);
    assert_eq!(
        codes(&diagnostics),
        ["TQX_EXPR_KIND_NOT_ALLOWED"],
        "{diagnostics:#?}"
    );
    let (line, character) = position(&edited, "length, of:", 0);
    assert_eq!(
        diagnostics[0]["range"],
        json!({
            "start": { "line": line, "character": character },
            "end": { "line": line, "character": character + 6 },
        })
    );
    let message = diagnostics[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "`length` is not allowed in an interpolation\nhelp: `length` is allowed only in the `expect` checks of eval fixtures"
        ),
        "{message}"
    );
    client.shutdown();
}

#[test]
fn columns_are_utf16_code_units_on_non_ascii_lines() {
    let pkg = Package::crm3();
    let url = pkg.url(EXTRACTION);
    let original = pkg.text(EXTRACTION);
    // One line with two- and four-byte characters before the reference
    // (`𝄞` is two UTF-16 units and one column for the compiler).
    let text = original.replacen(
        "  - role: user\n    content:\n",
        "  - role: user\n    content:\n      - [{ kind: text, value: \"Grüße 𝄞 \" }, { kind: interpolate, expression: { kind: ref, path: inputs.nmae } }]\n",
        1,
    );
    let text = text.replace(
        "      - [{",
        "      - { kind: when, condition: { kind: literal, value: true }, then: [{",
    );
    let text = text.replace("inputs.nmae } }]\n", "inputs.nmae } }] }\n");
    let mut client = Client::start(json!({ "target": "structured_output" }));
    client.open(&url, &text);
    let diagnostics = client.diagnostics(&url);
    assert_eq!(codes(&diagnostics), ["TQX_REF_UNKNOWN"], "{diagnostics:#?}");
    let (line, character) = position(&text, "inputs.nmae", 0);
    assert!(text.lines().nth(line as usize).unwrap().contains('𝄞'));
    assert_eq!(
        diagnostics[0]["range"]["start"],
        json!({ "line": line, "character": character })
    );
    client.shutdown();
}

#[test]
fn a_partials_error_is_on_the_partial_with_the_include_as_related_information() {
    let pkg = Package::crm3();
    let partial = pkg.url(PARTIAL);
    let contract = pkg.url(EXTRACTION);
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&partial, &pkg.text(PARTIAL));
    assert_eq!(client.diagnostics(&partial), Vec::<Value>::new());
    let broken = format!(
        "{}- {{ kind: interpolate, expression: {{ kind: ref, path: inputs.nmae }} }}\n",
        pkg.text(PARTIAL)
    );
    client.replace(&partial, 2, &broken);
    let diagnostics = client.diagnostics(&partial);
    // Both contracts include it: one diagnostic per inclusion.
    assert_eq!(
        codes(&diagnostics),
        ["TQX_REF_UNKNOWN", "TQX_REF_UNKNOWN"],
        "{diagnostics:#?}"
    );
    let (line, character) = position(&broken, "inputs.nmae", 0);
    assert_eq!(
        diagnostics[0]["range"]["start"],
        json!({ "line": line, "character": character })
    );
    let related = &diagnostics[0]["relatedInformation"][0];
    assert_eq!(related["message"], "included from here");
    let includer = related["location"]["uri"].as_str().unwrap();
    assert!(
        includer.ends_with(".yaml") && includer.contains("/contracts/"),
        "{related}"
    );
    let includer_text =
        std::fs::read_to_string(Url::parse(includer).unwrap().to_file_path().unwrap()).unwrap();
    let (include_line, _) = position(&includer_text, "kind: include", 0);
    assert_eq!(related["location"]["range"]["start"]["line"], include_line);
    // The contracts themselves are clean: nothing was published for them.
    assert!(
        client
            .pending
            .iter()
            .all(|n| n.params["uri"] != contract.as_str())
    );

    // A half-typed partial: the parse error, on the partial.
    client.replace(&partial, 3, "- kind: text\n  value: \"unterminated\n");
    let diagnostics = client.diagnostics(&partial);
    assert!(!diagnostics.is_empty());
    assert!(
        diagnostics
            .iter()
            .all(|d| d["code"] == "TQX_INCLUDE_INVALID"
                && d["message"].as_str().unwrap().contains("TQX_PARSE_YAML")),
        "{diagnostics:#?}"
    );
    client.shutdown();
}

#[test]
fn a_manifest_change_recompiles_the_package() {
    let pkg = Package::crm3();
    let manifest = pkg.url("templiqx.yaml");
    let text = pkg.text("templiqx.yaml");
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&manifest, &text);
    assert_eq!(client.diagnostics(&manifest), Vec::<Value>::new());
    // A listed contract without a file: reported on the manifest.
    client.replace(
        &manifest,
        2,
        &text.replace(
            "  - lease-summary-drafting\n",
            "  - lease-summary-draftin\n",
        ),
    );
    let diagnostics = client.diagnostics(&manifest);
    assert_eq!(codes(&diagnostics), ["TQX_IO"], "{diagnostics:#?}");
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .unwrap()
            .contains("lease-summary-draftin.yaml")
    );
    client.replace(&manifest, 3, &text);
    assert_eq!(client.diagnostics(&manifest), Vec::<Value>::new());
    client.shutdown();
}

#[test]
fn without_a_target_capability_checks_are_skipped() {
    let pkg = Package::crm3();
    let url = pkg.url(EXTRACTION);
    let text = pkg.text(EXTRACTION);
    // An explicitly empty target: the contract needs `structured_output`.
    let mut client = Client::start(json!({ "target": [] }));
    client.open(&url, &text);
    let diagnostics = client.diagnostics(&url);
    assert_eq!(
        codes(&diagnostics),
        ["TQX_CAPABILITY_UNSUPPORTED"],
        "{diagnostics:#?}"
    );
    client.shutdown();

    let mut client = Client::start(Value::Null);
    client.open(
        &url,
        &text.replace(
            "capabilities: [structured_output]",
            "capabilities: [structured_output, tools]",
        ),
    );
    assert_eq!(client.diagnostics(&url), Vec::<Value>::new());
    client.shutdown();
}

/// A tiny deterministic generator (no dependency for a test).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

#[test]
fn half_typed_and_random_text_gets_diagnostics_never_a_crash() {
    let pkg = Package::crm3();
    let url = pkg.url(EXTRACTION);
    let text = pkg.text(EXTRACTION);
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&url, &text);
    client.diagnostics(&url);
    let mut version = 1;

    // Cut in the middle of `{ kind: ref, path: inputs.doc`: a parse error.
    let cut = text.find("inputs.document_id }").unwrap() + "inputs.doc".len();
    version += 1;
    client.replace(&url, version, &text[..cut]);
    let diagnostics = client.diagnostics(&url);
    assert_eq!(codes(&diagnostics), ["TQX_PARSE_YAML"], "{diagnostics:#?}");

    // Every 53rd prefix.
    let mut parse_errors = 0;
    for end in (0..text.len()).step_by(53) {
        let mut end = end;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        version += 1;
        client.replace(&url, version, &text[..end]);
        let diagnostics = client.diagnostics(&url);
        parse_errors += usize::from(codes(&diagnostics).contains(&"TQX_PARSE_YAML"));
    }
    assert!(parse_errors > 0);

    // Random characters, and random edits of the contract.
    let mut rng = Lcg(24);
    let alphabet: Vec<char> = "ab:-{}[]\"' \n\t#&*!|>%@`,?é𝄞\u{0}\u{feff}\r"
        .chars()
        .collect();
    for round in 0..40 {
        let random: String = (0..rng.next() % 400)
            .map(|_| alphabet[(rng.next() % alphabet.len() as u64) as usize])
            .collect();
        let edited = if round % 2 == 0 {
            random
        } else {
            let mut t = text.clone();
            let mut at = (rng.next() as usize) % t.len();
            while !t.is_char_boundary(at) {
                at -= 1;
            }
            t.insert_str(at, &random);
            t
        };
        version += 1;
        client.replace(&url, version, &edited);
        client.diagnostics(&url);
        // Still answering requests.
        client.at(
            "textDocument/hover",
            &url,
            (rng.next() as u32 % 60, rng.next() as u32 % 40),
        );
        client.request(
            "textDocument/documentSymbol",
            json!({ "textDocument": { "uri": url } }),
        );
    }
    client.shutdown();
}

#[test]
fn hover_shows_the_declared_type_requiredness_and_description() {
    let pkg = Package::crm3();
    let url = pkg.url(EXTRACTION);
    let text = pkg.text(EXTRACTION);
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&url, &text);
    client.diagnostics(&url);

    let (line, character) = position(&text, "inputs.clause_text }", 0);
    let hover = client.at("textDocument/hover", &url, (line, character + 9));
    let value = hover["contents"]["value"].as_str().unwrap();
    assert_eq!(hover["contents"]["kind"], "markdown");
    assert!(
        value
            .starts_with("`inputs.clause_text`: `string` — input, required\n\nThe clause to read."),
        "{value}"
    );
    // The range is the segment under the cursor.
    assert_eq!(
        hover["range"],
        json!({
            "start": { "line": line, "character": character + 7 },
            "end": { "line": line, "character": character + 18 },
        })
    );

    // An array input.
    let (line, character) = position(&text, "inputs.focus_fields }", 0);
    let hover = client.at("textDocument/hover", &url, (line, character + 8));
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(
        value.starts_with("`inputs.focus_fields`: `array of string, one of \"start_date\""),
        "{value}"
    );

    // `output.…` in an eval check: the output schema's property.
    let (line, character) = position(&text, "output.start_date }", 0);
    let hover = client.at("textDocument/hover", &url, (line, character + 8));
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(
        value.starts_with(
            "`output.start_date`: `string (date)` — property, required\n\nFirst day of the lease."
        ),
        "{value}"
    );
    // `output.evidence.0.document_id`: through the array's items.
    let (line, character) = position(&text, "output.evidence.0.document_id", 0);
    let hover = client.at("textDocument/hover", &url, (line, character + 20));
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(
        value.starts_with("`output.evidence.0.document_id`: `string` — property, required"),
        "{value}"
    );
    // A `for_each` item: its element type.
    let (line, character) = position(&text, "path: field }", 0);
    let hover = client.at("textDocument/hover", &url, (line, character + 7));
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(value.starts_with("`field`: `string, one of"), "{value}");

    // Nothing to say elsewhere.
    let hover = client.at("textDocument/hover", &url, (0, 2));
    assert_eq!(hover, Value::Null);
    client.shutdown();
}

#[test]
fn definition_goes_to_declarations_and_partials() {
    let pkg = Package::crm3();
    let url = pkg.url(EXTRACTION);
    let text = pkg.text(EXTRACTION);
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&url, &text);
    client.diagnostics(&url);

    let (line, character) = position(&text, "inputs.clause_id }", 0);
    let location = client.at("textDocument/definition", &url, (line, character + 10));
    assert_eq!(location["uri"], url.as_str());
    let (decl_line, decl_character) = position(&text, "  clause_id:", 0);
    assert_eq!(
        location["range"],
        json!({
            "start": { "line": decl_line, "character": decl_character + 2 },
            "end": { "line": decl_line, "character": decl_character + 11 },
        })
    );

    let (line, character) = position(&text, "context.matter_reference", 0);
    let location = client.at("textDocument/definition", &url, (line, character + 3));
    let (decl_line, _) = position(&text, "  matter_reference:", 0);
    assert_eq!(location["range"]["start"]["line"], decl_line);

    let (line, character) = position(&text, "output.notice_days }", 0);
    let location = client.at("textDocument/definition", &url, (line, character + 9));
    let (decl_line, _) = position(&text, "    notice_days: { type: integer", 0);
    assert_eq!(location["range"]["start"]["line"], decl_line);

    // An include path: the partial.
    let (line, character) = position(&text, "partials/grounding-rules.yaml", 0);
    let location = client.at("textDocument/definition", &url, (line, character + 3));
    assert_eq!(location["uri"], pkg.url(PARTIAL).as_str());
    assert_eq!(
        location["range"]["start"],
        json!({ "line": 0, "character": 0 })
    );
    client.shutdown();
}

#[test]
fn references_in_a_partial_resolve_in_the_including_contract() {
    let pkg = Package::crm3();
    let partial = pkg.url(PARTIAL);
    let text = format!(
        "{}- {{ kind: interpolate, expression: {{ kind: ref, path: context.matter_reference }} }}\n",
        pkg.text(PARTIAL)
    );
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&partial, &text);
    assert_eq!(client.diagnostics(&partial), Vec::<Value>::new());
    let (line, character) = position(&text, "context.matter_reference", 0);
    let hover = client.at("textDocument/hover", &partial, (line, character + 8));
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(value.starts_with("`context.matter_reference`: `string` — context field, required\n\nHost-owned opaque matter reference."), "{value}");
    let location = client.at("textDocument/definition", &partial, (line, character + 8));
    assert!(
        location["uri"].as_str().unwrap().contains("/contracts/"),
        "{location}"
    );
    client.shutdown();
}

#[test]
fn document_symbols_outline_a_contract() {
    let pkg = Package::crm3();
    let url = pkg.url(EXTRACTION);
    let text = pkg.text(EXTRACTION);
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&url, &text);
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": url } }),
    );
    let names: Vec<&str> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "inputs",
            "context",
            "messages",
            "output_schema",
            "components",
            "evals"
        ]
    );
    let inputs = &symbols[0]["children"];
    assert_eq!(inputs[2]["name"], "clause_text");
    assert_eq!(inputs[2]["detail"], "string");
    let (line, _) = position(&text, "  clause_text:", 0);
    assert_eq!(inputs[2]["selectionRange"]["start"]["line"], line);
    let evals = &symbols[5]["children"];
    assert_eq!(evals[0]["name"], "fixed-term-lease");
    assert_eq!(evals[0]["children"][0]["name"], "term-dates");
    client.shutdown();
}

#[test]
fn closing_a_document_forgets_its_package() {
    let pkg = Package::crm3();
    let url = pkg.url(EXTRACTION);
    let text = pkg.text(EXTRACTION);
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&url, &text.replace("inputs.clause_id", "inputs.nmae"));
    assert_eq!(codes(&client.diagnostics(&url)), ["TQX_REF_UNKNOWN"]);
    client.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": url } }),
    );
    // The disk holds the clean contract; nothing is open: cleared.
    assert_eq!(client.diagnostics(&url), Vec::<Value>::new());
    client.shutdown();
}

#[test]
fn a_dependencys_partial_refreshes_the_packages_that_include_it() {
    let (_dir, app, lib) = app_and_lib();
    let main = Url::from_file_path(app.join("contracts/main.yaml")).unwrap();
    let sig = Url::from_file_path(lib.join("partials/sig.yaml")).unwrap();
    let main_text = std::fs::read_to_string(app.join("contracts/main.yaml")).unwrap();
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&main, &main_text);
    assert_eq!(client.diagnostics(&main), Vec::<Value>::new());

    // Go to definition on the include path: the dependency's partial.
    let (line, character) = position(&main_text, "partials/sig.yaml", 0);
    let location = client.at("textDocument/definition", &main, (line, character + 2));
    assert_eq!(location["uri"], sig.as_str());

    // Editing the partial (in `lib`, which `app` depends on) recompiles
    // `app`: the error is on the partial, included from `main`.
    client.open(&sig, "- { kind: text, value: signature }\n");
    client.replace(
        &sig,
        2,
        "- { kind: interpolate, expression: { kind: ref, path: inputs.nmae } }\n",
    );
    let diagnostics = loop {
        let d = client.diagnostics(&sig);
        if !d.is_empty() {
            break d;
        }
    };
    assert_eq!(codes(&diagnostics), ["TQX_REF_UNKNOWN"], "{diagnostics:#?}");
    assert_eq!(
        diagnostics[0]["relatedInformation"][0]["location"]["uri"],
        main.as_str()
    );
    client.shutdown();
}

#[test]
fn a_contract_outside_packages_is_its_own_unit_and_other_yaml_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let lone = Url::from_file_path(root.join("lone.yaml")).unwrap();
    let other = Url::from_file_path(root.join("ci.yaml")).unwrap();
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(
        &lone,
        "api_version: templiqx/v1alpha1\nid: lone\nversion: 0.1.0\nmessages:\n  - role: user\n    content:\n      - { kind: interpolate, expression: { kind: ref, path: inputs.x } }\noutput_schema: { type: object }\n",
    );
    assert_eq!(codes(&client.diagnostics(&lone)), ["TQX_REF_UNKNOWN"]);
    client.open(&other, "on: [push]\njobs: {}\n");
    assert_eq!(client.diagnostics(&other), Vec::<Value>::new());
    client.shutdown();
}

#[test]
fn the_diagnostics_link_can_be_configured() {
    let pkg = Package::crm3();
    let url = pkg.url(EXTRACTION);
    let text = pkg
        .text(EXTRACTION)
        .replace("inputs.clause_id", "inputs.nmae");
    let mut client = Client::start(json!({
        "target": ["structured_output"],
        "diagnosticsUrl": "https://docs.example/templiqx/diagnostics.html",
    }));
    client.open(&url, &text);
    let diagnostics = client.diagnostics(&url);
    assert_eq!(
        diagnostics[0]["codeDescription"]["href"],
        "https://docs.example/templiqx/diagnostics.html#tqx_ref_unknown"
    );
    client.shutdown();

    // An empty string: no link.
    let mut client =
        Client::start(json!({ "target": ["structured_output"], "diagnosticsUrl": "" }));
    client.open(&url, &text);
    let diagnostics = client.diagnostics(&url);
    assert!(diagnostics[0].get("codeDescription").is_none());
    client.shutdown();
}

#[test]
fn an_open_contract_the_manifest_does_not_list_is_checked_too() {
    let pkg = Package::crm3();
    let url = pkg.url("contracts/draft.yaml");
    // A new, unsaved contract beside the listed ones, including the
    // package's partial.
    let text = pkg
        .text(EXTRACTION)
        .replace("id: lease-term-extraction", "id: draft")
        .replace("inputs.clause_id", "inputs.nmae");
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&url, &text);
    let diagnostics = client.diagnostics(&url);
    assert_eq!(codes(&diagnostics), ["TQX_REF_UNKNOWN"], "{diagnostics:#?}");
    client.shutdown();
}
