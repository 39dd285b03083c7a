//! Find references, rename, quick fixes and the package-level jumps of go
//! to definition, driven over the in-memory connection on copies of the
//! CRM3 example and on small packages written for a case CRM3 lacks (a
//! partial using a field, nested fields, fixtures setting them, a partial
//! two contracts share).

use crate::common::*;
use lsp_types::Url;
use serde_json::{Value, json};
use std::path::PathBuf;

/// The CRM3 request file the manifest lists under `evals` for the
/// extraction contract.
const REQUEST: &str = "evals/extraction-request.json";

/// The byte offset of a protocol position (UTF-16 characters) in `text`.
fn offset(text: &str, position: &Value) -> usize {
    let line = position["line"].as_u64().unwrap() as usize;
    let character = position["character"].as_u64().unwrap() as usize;
    let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        if units >= character || c == '\n' {
            return start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// `text` with protocol text edits applied.
fn apply(text: &str, edits: &[Value]) -> String {
    let mut edits: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                offset(text, &e["range"]["start"]),
                offset(text, &e["range"]["end"]),
                e["newText"].as_str().unwrap(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_owned();
    for (start, end, new) in edits {
        out.replace_range(start..end, new);
    }
    out
}

/// The edits of a workspace edit's `changes`, by URL.
fn changes(edit: &Value) -> Vec<(String, Vec<Value>)> {
    let mut out: Vec<(String, Vec<Value>)> = edit["changes"]
        .as_object()
        .unwrap_or_else(|| panic!("no `changes` in {edit:#}"))
        .iter()
        .map(|(uri, edits)| (uri.clone(), edits.as_array().unwrap().clone()))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Locations as (file name, line, the text they cover).
fn spots(locations: &Value) -> Vec<(String, u64, String)> {
    locations
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {locations}"))
        .iter()
        .map(|l| {
            let path = Url::parse(l["uri"].as_str().unwrap())
                .unwrap()
                .to_file_path()
                .unwrap();
            let text = std::fs::read_to_string(&path).unwrap();
            let (start, end) = (
                offset(&text, &l["range"]["start"]),
                offset(&text, &l["range"]["end"]),
            );
            (
                path.file_name().unwrap().to_string_lossy().into_owned(),
                l["range"]["start"]["line"].as_u64().unwrap(),
                text[start..end].to_owned(),
            )
        })
        .collect()
}

/// The 0-based line of the `nth` line holding `needle`.
fn line(text: &str, needle: &str, nth: usize) -> u64 {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .nth(nth)
        .unwrap_or_else(|| panic!("no {nth}th `{needle}`"))
        .0 as u64
}

fn references(client: &mut Client, url: &Url, at: (u32, u32), declaration: bool) -> Value {
    client.request(
        "textDocument/references",
        json!({
            "textDocument": { "uri": url },
            "position": { "line": at.0, "character": at.1 },
            "context": { "includeDeclaration": declaration },
        }),
    )
}

fn rename(
    client: &mut Client,
    url: &Url,
    at: (u32, u32),
    name: &str,
) -> Result<Value, lsp_server::ResponseError> {
    client.try_request(
        "textDocument/rename",
        json!({
            "textDocument": { "uri": url },
            "position": { "line": at.0, "character": at.1 },
            "newName": name,
        }),
    )
}

/// `at` moved right by `delta` characters.
fn right(at: (u32, u32), delta: u32) -> (u32, u32) {
    (at.0, at.1 + delta)
}

#[test]
fn initialize_announces_references_rename_and_quick_fixes() {
    let client = Client::start(json!({ "target": ["structured_output"] }));
    let caps = client.capabilities.clone();
    assert_eq!(caps["referencesProvider"], true);
    // Without the client's `prepareSupport`, no `prepareProvider`.
    assert_eq!(caps["renameProvider"], true);
    assert_eq!(
        caps["codeActionProvider"]["codeActionKinds"],
        json!(["quickfix"])
    );
    client.shutdown();

    let client = Client::start_with(
        json!({ "textDocument": { "rename": { "prepareSupport": true } } }),
        json!({ "target": ["structured_output"] }),
    );
    assert_eq!(
        client.capabilities["renameProvider"],
        json!({ "prepareProvider": true })
    );
    client.shutdown();
}

#[test]
fn references_of_an_input_are_its_reads_checks_and_fixture_keys() {
    let (pkg, url, text, mut client) =
        crm3_open(EXTRACTION, json!({ "target": ["structured_output"] }));
    let content = position(&text, "path: inputs.clause_text }", 0);
    let found = spots(&references(&mut client, &url, right(content, 14), true));
    let file = "lease-term-extraction.yaml".to_owned();
    let want = [
        (
            file.clone(),
            line(&text, "  clause_text:", 0),
            "clause_text".to_owned(),
        ),
        (
            file.clone(),
            line(&text, "path: inputs.clause_text }", 0),
            "clause_text".to_owned(),
        ),
        (
            file.clone(),
            line(&text, "      clause_text: \"The lease", 0),
            "clause_text".to_owned(),
        ),
        (
            file.clone(),
            line(
                &text,
                "container: { kind: ref, path: inputs.clause_text }",
                0,
            ),
            "clause_text".to_owned(),
        ),
        // The key of the request file the manifest lists under `evals`.
        (
            "extraction-request.json".to_owned(),
            line(&pkg.text(REQUEST), "\"clause_text\":", 0),
            "clause_text".to_owned(),
        ),
    ];
    // Then the key in each of the 24 rows of its dataset, one a line
    // (`docs/format.md`, "Datasets").
    let want: Vec<_> = want
        .into_iter()
        .chain((0..24).map(|row| {
            (
                "labelled-leases.jsonl".to_owned(),
                row,
                "clause_text".to_owned(),
            )
        }))
        .collect();
    assert_eq!(found, want);
    // Not the description that mentions it, nor `clause_id`.
    assert!(text.contains("whose text is in `clause_text`"));

    // The same from the declaration key and from the fixture key; without
    // the declaration when asked.
    let declaration = position(&text, "  clause_text:", 0);
    assert_eq!(
        spots(&references(&mut client, &url, right(declaration, 4), true)),
        want
    );
    let fixture = position(&text, "      clause_text: \"The lease", 0);
    assert_eq!(
        spots(&references(&mut client, &url, right(fixture, 7), false)),
        want[1..]
    );
    // `inputs` of `inputs.clause_text` stands for the field.
    assert_eq!(
        spots(&references(&mut client, &url, right(content, 7), true)),
        want
    );
    // On no field: `null`.
    let role = position(&text, "role: system", 0);
    assert_eq!(references(&mut client, &url, role, true), Value::Null);
    client.shutdown();
}

/// A package of two contracts that include one partial, with nested
/// fields: `order` (a customer with a name and orders, each with a name)
/// and `invoice` (a customer with a name).
struct Shop {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

const ORDER: &str = "\
api_version: templiqx/v1alpha1
id: order
version: 0.1.0
inputs:
  customer:
    schema:
      type: object
      required: [name, orders]
      properties:
        name: { type: string }
        orders:
          type: array
          items: { type: object, required: [name], properties: { name: { type: string } } }
    required: true
context:
  name: { schema: { type: string }, required: true }
capabilities: [structured_output]
messages:
  - role: user
    content:
      - { kind: include, path: partials/greeting.yaml }
      - kind: for_each
        collection: { kind: ref, path: inputs.customer.orders }
        item: order
        body:
          - { kind: interpolate, expression: { kind: ref, path: order.name } }
      - { kind: interpolate, expression: { kind: ref, path: context.name } }
output_schema: { type: object, required: [ok], properties: { ok: { type: boolean } } }
evals:
  - id: ada
    inputs: { customer: { name: Ada, orders: [{ name: tea }] } }
    context: { name: shop }
    fake_output: { ok: true }
    expect:
      - id: named
        check: { kind: equals, left: { kind: ref, path: inputs.customer.name }, right: { kind: literal, value: Ada } }
";

const INVOICE: &str = "\
api_version: templiqx/v1alpha1
id: invoice
version: 0.1.0
inputs:
  customer:
    schema: { type: object, required: [name], properties: { name: { type: string } } }
    required: true
capabilities: [structured_output]
messages:
  - role: user
    content:
      - { kind: include, path: partials/greeting.yaml }
output_schema: { type: object }
evals:
  - id: bob
    inputs: { customer: { name: Bob } }
";

const GREETING: &str = "\
- { kind: text, value: \"Dear \" }
- { kind: interpolate, expression: { kind: ref, path: inputs.customer.name } }
";

impl Shop {
    fn new() -> Shop {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("shop");
        let shop = Shop { _dir: dir, root };
        shop.write(
            "templiqx.yaml",
            "api_version: templiqx/v1alpha1\npackage: shop\nversion: 0.1.0\ncontracts: [order, invoice]\n",
        );
        shop.write("contracts/order.yaml", ORDER);
        shop.write("contracts/invoice.yaml", INVOICE);
        shop.write("partials/greeting.yaml", GREETING);
        shop
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn url(&self, rel: &str) -> Url {
        Url::from_file_path(self.root.join(rel)).unwrap()
    }

    fn rel(&self, uri: &str) -> String {
        let path = Url::parse(uri).unwrap().to_file_path().unwrap();
        path.strip_prefix(&self.root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/")
    }

    fn text(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }

    /// A client with `order.yaml` open and compiled clean.
    fn client(&self) -> Client {
        let mut client = Client::start(json!({ "target": ["structured_output"] }));
        let url = self.url("contracts/order.yaml");
        client.open(&url, ORDER);
        assert_eq!(client.diagnostics(&url), Vec::<Value>::new());
        client
    }

    /// Applies a workspace edit's `changes` as an editor does, to the
    /// buffers (`order.yaml` is open; the others are opened with the
    /// edited text, unsaved), and returns the edited texts by relative
    /// path and the diagnostics each file has once all are compiled.
    fn apply(&self, client: &mut Client, edit: &Value) -> Vec<(String, String, Vec<Value>)> {
        let mut out = Vec::new();
        for (uri, edits) in changes(edit) {
            let rel = self.rel(&uri);
            let url = Url::parse(&uri).unwrap();
            let edited = apply(&self.text(&rel), &edits);
            if rel == "contracts/order.yaml" {
                client.replace(&url, 2, &edited);
            } else {
                client.open(&url, &edited);
            }
            out.push((rel, edited, Vec::new()));
        }
        // A request answers from what the editor shows: everything sent so
        // far is compiled and published before its answer.
        client.request(
            "textDocument/documentSymbol",
            json!({ "textDocument": { "uri": self.url("contracts/order.yaml") } }),
        );
        for n in &client.pending {
            if n.method == "textDocument/publishDiagnostics" {
                let rel = self.rel(n.params["uri"].as_str().unwrap());
                if let Some(file) = out.iter_mut().find(|f| f.0 == rel) {
                    file.2 = n.params["diagnostics"].as_array().unwrap().clone();
                }
            }
        }
        client.pending.clear();
        out
    }
}

#[test]
fn references_of_a_nested_field_include_a_partial_and_exclude_look_alikes() {
    let shop = Shop::new();
    let mut client = shop.client();
    let partial = shop.url("partials/greeting.yaml");
    // From the partial (it resolves in `order`, the first contract that
    // includes it): `name` under `customer`, not `orders[].name`,
    // `context.name` or `invoice`'s own `customer.name`.
    let at = position(GREETING, "inputs.customer.name", 0);
    let found = spots(&references(&mut client, &partial, right(at, 17), true));
    let order = |needle: &str| {
        (
            "order.yaml".to_owned(),
            line(ORDER, needle, 0),
            "name".to_owned(),
        )
    };
    assert_eq!(
        found,
        [
            order("      required: [name, orders]"),
            order("        name: { type: string }"),
            order("inputs: { customer: { name: Ada"),
            order("path: inputs.customer.name"),
            ("greeting.yaml".to_owned(), 1, "name".to_owned()),
        ],
        "{found:#?}"
    );

    // `order.name` in a `for_each` over `inputs.customer.orders`: the
    // property of the items.
    let order_url = shop.url("contracts/order.yaml");
    let at = position(ORDER, "path: order.name", 0);
    let found = spots(&references(&mut client, &order_url, right(at, 13), false));
    assert_eq!(
        found,
        [order("path: order.name"), order("[{ name: tea }]")],
        "{found:#?}"
    );
    let found = spots(&references(&mut client, &order_url, right(at, 13), true));
    let items = "          items: { type: object, required: [name], properties: { name:";
    assert_eq!(
        found,
        [
            order(items),
            order(items),
            order("path: order.name"),
            order("[{ name: tea }]")
        ],
        "{found:#?}"
    );
    client.shutdown();
}

#[test]
fn rename_of_a_nested_field_edits_its_declaration_references_fixtures_and_shared_partial() {
    let shop = Shop::new();
    let mut client = shop.client();
    let url = shop.url("contracts/order.yaml");
    // On the declaration key of `customer.name`.
    let at = position(ORDER, "        name: { type: string }", 0);
    let edit = rename(&mut client, &url, right(at, 9), "full_name").unwrap();
    let edited = shop.apply(&mut client, &edit);
    let files: Vec<&str> = edited.iter().map(|(f, _, _)| f.as_str()).collect();
    // The partial resolves in both contracts: `invoice`'s field is renamed too.
    assert_eq!(
        files,
        [
            "contracts/invoice.yaml",
            "contracts/order.yaml",
            "partials/greeting.yaml"
        ]
    );
    let want_order = ORDER
        .replace("required: [name, orders]", "required: [full_name, orders]")
        .replace(
            "        name: { type: string }",
            "        full_name: { type: string }",
        )
        .replace("{ customer: { name: Ada", "{ customer: { full_name: Ada")
        .replace(
            "path: inputs.customer.name",
            "path: inputs.customer.full_name",
        );
    assert_eq!(edited[1].1, want_order);
    // `orders[].name`, `order.name`, `context.name` are left alone.
    assert!(want_order.contains("path: order.name") && want_order.contains("[{ name: tea }]"));
    let want_invoice = INVOICE
        .replace("required: [name]", "required: [full_name]")
        .replace("properties: { name:", "properties: { full_name:")
        .replace("{ customer: { name: Bob", "{ customer: { full_name: Bob");
    assert_eq!(edited[0].1, want_invoice);
    assert_eq!(
        edited[2].1,
        GREETING.replace("inputs.customer.name", "inputs.customer.full_name")
    );
    // Everything compiles.
    for (rel, _, diagnostics) in &edited {
        assert_eq!(diagnostics, &Vec::<Value>::new(), "{rel}");
    }
    client.shutdown();
}

#[test]
fn a_name_that_is_not_a_plain_word_is_written_quoted() {
    let shop = Shop::new();
    let mut client = shop.client();
    let partial = shop.url("partials/greeting.yaml");
    let at = position(GREETING, "inputs.customer.name", 0);
    let edit = rename(&mut client, &partial, right(at, 17), "first name").unwrap();
    let edited = shop.apply(&mut client, &edit);
    assert_eq!(
        edited[2].1,
        GREETING.replace(
            "path: inputs.customer.name",
            "path: \"inputs.customer.first name\""
        )
    );
    assert!(
        edited[1].1.contains("required: [\"first name\", orders]"),
        "{}",
        edited[1].1
    );
    for (rel, _, diagnostics) in &edited {
        assert_eq!(diagnostics, &Vec::<Value>::new(), "{rel}");
    }
    client.shutdown();
}

/// `order` with an eval entry whose cases are the rows of a CSV file.
fn order_with_rows() -> String {
    format!("{ORDER}{ROWS_ENTRY}")
}

/// An eval entry of `order` whose cases are the rows of [`ROWS`], with a
/// `case_schema` and a check of `case`.
const ROWS_ENTRY: &str = "  - id: rows
    dataset: evals/orders.csv
    case_schema: { type: object, required: [label], properties: { label: { type: string } } }
    expect:
      - id: labelled
        check: { kind: equals, left: { kind: ref, path: case.label }, right: { kind: literal, value: x } }
";

/// The CSV dataset of [`order_with_rows`]: its header names nested
/// inputs, one column quoted, a context field and a case field; cells of
/// the records spell header names too (data, never renamed).
const ROWS: &str = "\
id,inputs.customer.name,\"inputs.customer.orders\",context.name,case.label\r
ada,Ada,\"[{\"\"name\"\": \"\"tea\"\"}]\",shop,case.label\r
bob,Bob,[],inputs.customer.name,x\r
";

#[test]
fn rename_rewrites_the_header_cells_of_a_csv_dataset_and_only_them() {
    let shop = Shop::new();
    let order = order_with_rows();
    shop.write("contracts/order.yaml", &order);
    shop.write("evals/orders.csv", ROWS);
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    let url = shop.url("contracts/order.yaml");
    client.open(&url, &order);
    assert_eq!(client.diagnostics(&url), Vec::<Value>::new());
    let csv = |edit: &Value| {
        let all = changes(edit);
        let uri = shop.url("evals/orders.csv");
        let (_, edits) = all
            .iter()
            .find(|(u, _)| u == uri.as_str())
            .unwrap_or_else(|| panic!("no edit of the CSV file in {edit:#}"));
        apply(ROWS, edits)
    };

    // A nested input: the segment that names it, in its column only (the
    // cell that spells it in a row is data).
    let at = position(&order, "        name: { type: string }", 0);
    let edit = rename(&mut client, &url, right(at, 9), "full_name").unwrap();
    assert_eq!(
        csv(&edit),
        ROWS.replacen(
            "id,inputs.customer.name,",
            "id,inputs.customer.full_name,",
            1
        )
    );
    // Find references lists the header cell, at the name.
    let found = spots(&references(&mut client, &url, right(at, 9), false));
    assert!(
        found.contains(&("orders.csv".to_owned(), 0, "name".to_owned())),
        "{found:?}"
    );
    // Its parent: every column below it, a quoted cell between its quotes.
    let at = position(&order, "  customer:", 0);
    let edit = rename(&mut client, &url, right(at, 3), "buyer").unwrap();
    let want = ROWS.replacen(
        "id,inputs.customer.name,\"inputs.customer.orders\",",
        "id,inputs.buyer.name,\"inputs.buyer.orders\",",
        1,
    );
    assert_eq!(csv(&edit), want);
    let edited = shop.apply(&mut client, &edit);
    assert!(
        edited
            .iter()
            .any(|(rel, text, _)| rel == "evals/orders.csv" && *text == want)
    );
    for (rel, _, diagnostics) in &edited {
        assert_eq!(diagnostics, &Vec::<Value>::new(), "{rel} compiles");
    }
    client.shutdown();

    // A name CSV must quote: the whole cell, quoted.
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&url, &order);
    assert_eq!(client.diagnostics(&url), Vec::<Value>::new());
    let at = position(
        &order,
        "  name: { schema: { type: string }, required: true }",
        0,
    );
    let edit = rename(&mut client, &url, right(at, 3), "shop, name").unwrap();
    assert_eq!(
        csv(&edit),
        ROWS.replacen(",context.name,", ",\"context.shop, name\",", 1)
    );
    // A quoted cell with a `""` (its value is not as written): rewritten
    // whole, still quoted, the `"` still doubled.
    let quoted = ROWS.replacen(
        "\"inputs.customer.orders\"",
        "\"inputs.customer.orders.x\"\"y\"",
        1,
    );
    shop.write("evals/orders.csv", &quoted);
    let rows = shop.url("evals/orders.csv");
    client.open(&rows, &quoted);
    client.diagnostics(&rows);
    let at = position(&order, "  customer:", 0);
    let edit = rename(&mut client, &url, right(at, 3), "buyer").unwrap();
    let all = changes(&edit);
    let (_, edits) = all.iter().find(|(u, _)| u == rows.as_str()).unwrap();
    assert_eq!(
        apply(&quoted, edits),
        ROWS.replacen(
            "id,inputs.customer.name,\"inputs.customer.orders\",",
            "id,inputs.buyer.name,\"inputs.buyer.orders.x\"\"y\",",
            1
        )
    );
    client.shutdown();
}

#[test]
fn a_case_field_renames_in_its_entry_its_checks_and_its_csv_header() {
    let shop = Shop::new();
    let order = order_with_rows();
    shop.write("contracts/order.yaml", &order);
    shop.write("evals/orders.csv", ROWS);
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    let url = shop.url("contracts/order.yaml");
    client.open(&url, &order);
    assert_eq!(client.diagnostics(&url), Vec::<Value>::new());
    // From the reference in a check of the entry.
    let at = position(&order, "path: case.label", 0);
    let prepared = client.at("textDocument/prepareRename", &url, right(at, 12));
    assert_eq!(prepared["placeholder"], "label", "{prepared}");
    let edit = rename(&mut client, &url, right(at, 12), "tag").unwrap();
    let edited = shop.apply(&mut client, &edit);
    let files: Vec<&str> = edited.iter().map(|(f, _, _)| f.as_str()).collect();
    assert_eq!(files, ["contracts/order.yaml", "evals/orders.csv"]);
    assert_eq!(
        edited[0].1,
        order
            .replace(
                "required: [label], properties: { label:",
                "required: [tag], properties: { tag:"
            )
            .replace("path: case.label }", "path: case.tag }")
    );
    // The header only: `case.label` in a record is data.
    assert_eq!(
        edited[1].1,
        ROWS.replacen(",case.label\r", ",case.tag\r", 1)
    );
    for (rel, _, diagnostics) in &edited {
        assert_eq!(diagnostics, &Vec::<Value>::new(), "{rel} compiles");
    }
    client.shutdown();
}

#[test]
fn a_case_field_of_crm3_renames_in_its_rows_case_only_and_the_package_compiles() {
    let (pkg, url, text, mut client) =
        crm3_open(EXTRACTION, json!({ "target": ["structured_output"] }));
    // From its declaration key in the entry's `case_schema`.
    let at = position(
        &text,
        "        monthly_rent: { type: number, minimum: 0 }",
        0,
    );
    let found = spots(&references(&mut client, &url, right(at, 9), true));
    let name = "lease-term-extraction.yaml".to_owned();
    for (line, what) in [
        (159, "monthly_rent"),
        (163, "monthly_rent"),
        (174, "monthly_rent"),
    ] {
        assert!(
            found.contains(&(name.clone(), line - 1, what.to_owned())),
            "{line}: {found:?}"
        );
    }
    let edit = rename(&mut client, &url, right(at, 9), "rent").unwrap();
    let rows = pkg.text("evals/labelled-leases.jsonl");
    assert_eq!(
        save(&pkg, &edit),
        [EXTRACTION, "evals/labelled-leases.jsonl"]
    );
    let edited = pkg.text(EXTRACTION);
    // The output's field of the same name, and its checks, are left alone.
    assert_eq!(
        edited,
        text.replace(
            "      required: [start_date, end_date, monthly_rent, notice_days]\n      properties:\n        start_date: { type: string, format: date }\n        end_date: { type: string, format: date }\n        monthly_rent: { type: number, minimum: 0 }",
            "      required: [start_date, end_date, rent, notice_days]\n      properties:\n        start_date: { type: string, format: date }\n        end_date: { type: string, format: date }\n        rent: { type: number, minimum: 0 }",
        )
        .replace("path: case.monthly_rent }", "path: case.rent }")
    );
    // In each row, the key of its `case`; its `fake_output`'s stays.
    let renamed = pkg.text("evals/labelled-leases.jsonl");
    assert_eq!(renamed.lines().count(), rows.lines().count());
    for (before, after) in rows.lines().zip(renamed.lines()) {
        let case = before.find("\"case\": {").unwrap();
        let end = case + before[case..].find('}').unwrap();
        let want = format!(
            "{}{}",
            &before[..case],
            before[case..end].replace("\"monthly_rent\":", "\"rent\":")
        ) + &before[end..];
        assert_eq!(after, want);
        assert!(after.contains("\"monthly_rent\":"), "{after}");
    }
    let target = templiqx_contracts::CapabilityProfile::new(["structured_output"]);
    let compiled = templiqx_build::Loader::new(&pkg.root)
        .compile_package(&pkg.root, &target)
        .unwrap();
    for contract in &compiled {
        assert_eq!(contract.diagnostics, [], "{} compiles", contract.id);
    }
    client.shutdown();
}

#[test]
fn rename_refuses_invalid_and_taken_names_and_places_without_a_field() {
    let shop = Shop::new();
    let mut client = shop.client();
    let url = shop.url("contracts/order.yaml");
    let at = right(position(ORDER, "        name: { type: string }", 0), 9);
    for bad in ["", "first.name"] {
        let e = rename(&mut client, &url, at, bad).unwrap_err();
        assert_eq!(e.code, lsp_server::ErrorCode::InvalidParams as i32);
        assert!(e.message.contains("is not a field name"), "{}", e.message);
    }
    let e = rename(&mut client, &url, at, "orders").unwrap_err();
    assert_eq!(e.code, lsp_server::ErrorCode::InvalidParams as i32);
    assert_eq!(
        e.message,
        "`inputs.customer` already declares `orders` in order.yaml"
    );
    // The same name: nothing to change.
    assert_eq!(rename(&mut client, &url, at, "name").unwrap(), json!({}));

    // Not a field: a component-free `for_each` item, a role.
    let item = right(position(ORDER, "item: order", 0), 7);
    let e = rename(&mut client, &url, item, "o").unwrap_err();
    assert_eq!(e.code, lsp_server::ErrorCode::RequestFailed as i32);
    assert!(
        e.message.contains("input or context field"),
        "{}",
        e.message
    );
    let prepare = client.at(
        "textDocument/prepareRename",
        &url,
        position(ORDER, "role: user", 0),
    );
    assert_eq!(prepare, Value::Null);
    client.shutdown();
}

#[test]
fn prepare_rename_gives_the_name_under_the_cursor() {
    let (_pkg, url, text, mut client) =
        crm3_open(EXTRACTION, json!({ "target": ["structured_output"] }));
    let at = position(&text, "path: inputs.clause_id }", 0);
    let answer = client.at("textDocument/prepareRename", &url, right(at, 15));
    assert_eq!(answer["placeholder"], "clause_id");
    assert_eq!(
        answer["range"],
        json!({
            "start": { "line": at.0, "character": at.1 + 13 },
            "end": { "line": at.0, "character": at.1 + 22 },
        })
    );
    client.shutdown();
}

#[test]
fn rename_on_crm3_compiles_and_leaves_descriptions_alone() {
    let (pkg, url, text, mut client) =
        crm3_open(EXTRACTION, json!({ "target": ["structured_output"] }));
    let at = position(&text, "  clause_text:", 0);
    let edit = rename(&mut client, &url, right(at, 5), "clause_body").unwrap();
    let all = changes(&edit);
    assert_eq!(all.len(), 3, "{edit:#}");
    assert_eq!(all[0].0, url.as_str());
    assert_eq!(all[0].1.len(), 4);
    // Each row of the dataset's key, between its quotes.
    let rows = pkg.text("evals/labelled-leases.jsonl");
    assert_eq!(all[2].0, pkg.url("evals/labelled-leases.jsonl").as_str());
    assert_eq!(
        apply(&rows, &all[2].1),
        rows.replace("\"clause_text\":", "\"clause_body\":")
    );
    // The request file's key, between its quotes.
    assert_eq!(all[1].0, pkg.url(REQUEST).as_str());
    let request = pkg.text(REQUEST);
    assert_eq!(
        apply(&request, &all[1].1),
        request.replace("\"clause_text\":", "\"clause_body\":")
    );
    let edited = apply(&text, &all[0].1);
    let want = text
        .replace("  clause_text:\n", "  clause_body:\n")
        .replace("path: inputs.clause_text }", "path: inputs.clause_body }")
        .replace(
            "      clause_text: \"The lease",
            "      clause_body: \"The lease",
        );
    assert_eq!(edited, want);
    assert!(edited.contains("whose text is in `clause_text`"));
    client.replace(&url, 2, &edited);
    assert_eq!(client.diagnostics(&url), Vec::<Value>::new());
    // The other contract has no `clause_text`: untouched on disk.
    assert!(
        !pkg.text("contracts/lease-summary-drafting.yaml")
            .contains("clause_body")
    );
    client.shutdown();
}

#[test]
fn rename_after_an_unsaved_edit_uses_the_buffer_and_its_version() {
    let pkg = Package::crm3();
    let url = pkg.url(EXTRACTION);
    // A client that takes versioned document changes.
    let mut client = Client::start_with(
        json!({ "workspace": { "workspaceEdit": { "documentChanges": true } } }),
        json!({ "target": ["structured_output"] }),
    );
    let text = pkg.text(EXTRACTION);
    client.open(&url, &text);
    client.diagnostics(&url);
    // Unsaved: a second read of `inputs.clause_id`, on a new line.
    let edited = text.replacen(
        "      - kind: text\n        value: \":\\n\"\n",
        "      - kind: text\n        value: \":\\n\"\n      - { kind: interpolate, expression: { kind: ref, path: 'inputs.clause_id' } }\n",
        1,
    );
    assert_ne!(edited, text);
    client.replace(&url, 7, &edited);
    assert_eq!(client.diagnostics(&url), Vec::<Value>::new());
    let at = position(&edited, "'inputs.clause_id'", 0);
    let edit = rename(&mut client, &url, right(at, 10), "clause_ref").unwrap();
    assert!(edit.get("changes").is_none(), "{edit:#}");
    let documents = edit["documentChanges"].as_array().unwrap();
    // The contract, the request file and the dataset (neither open: no
    // version).
    assert_eq!(documents.len(), 3, "{edit:#}");
    assert_eq!(documents[2]["textDocument"]["version"], Value::Null);
    assert_eq!(
        documents[1]["textDocument"]["uri"],
        pkg.url(REQUEST).as_str()
    );
    assert_eq!(documents[1]["textDocument"]["version"], Value::Null);
    assert_eq!(documents[0]["textDocument"]["uri"], url.as_str());
    assert_eq!(documents[0]["textDocument"]["version"], 7);
    let edits = documents[0]["edits"].as_array().unwrap();
    let renamed = apply(&edited, edits);
    assert_eq!(
        renamed,
        edited
            .replace("  clause_id:\n", "  clause_ref:\n")
            .replace("inputs.clause_id", "inputs.clause_ref")
            .replace("      clause_id: clause-3", "      clause_ref: clause-3")
    );
    assert!(renamed.contains("path: 'inputs.clause_ref' }"));
    client.shutdown();
}

/// [`app_and_lib`], with a tool contract in `app`'s manifest that `main`
/// pins in an extension.
fn app_with_a_tool_contract() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let (dir, app, lib) = app_and_lib();
    let schema = json!({ "type": "object", "properties": { "query": { "type": "string" } } });
    let pin = format!(
        "sha256:{}",
        templiqx_contracts::canonical::fingerprint(&schema)
    );
    let manifest = std::fs::read_to_string(app.join("templiqx.yaml")).unwrap();
    std::fs::write(
        app.join("templiqx.yaml"),
        format!(
            "{manifest}tool_contracts:\n  search:\n    fingerprint: {pin}\n    schema: {schema}\n"
        ),
    )
    .unwrap();
    let main = std::fs::read_to_string(app.join("contracts/main.yaml")).unwrap();
    let extension = format!(
        "extensions:\n  vendor.search:\n    capability: tools\n    schema:\n      $ref: tool_contract:search\n      fingerprint: {pin}\n    value: {{ query: acme }}\nmessages:\n"
    );
    std::fs::write(
        app.join("contracts/main.yaml"),
        main.replacen("messages:\n", &extension, 1),
    )
    .unwrap();
    (dir, app, lib)
}

#[test]
fn definition_goes_from_dependencies_and_tool_contracts_to_the_manifest() {
    let (_dir, app, lib) = app_with_a_tool_contract();
    let main = Url::from_file_path(app.join("contracts/main.yaml")).unwrap();
    let manifest = Url::from_file_path(app.join("templiqx.yaml")).unwrap();
    let main_text = std::fs::read_to_string(app.join("contracts/main.yaml")).unwrap();
    let manifest_text = std::fs::read_to_string(app.join("templiqx.yaml")).unwrap();
    let mut client = Client::start(Value::Null);
    client.open(&main, &main_text);
    assert_eq!(client.diagnostics(&main), Vec::<Value>::new());

    // `from_dependency: common`: the entry of `dependencies`.
    let at = position(&main_text, "from_dependency: common", 0);
    let location = client.at("textDocument/definition", &main, right(at, 19));
    assert_eq!(location["uri"], manifest.as_str());
    let key = position(&manifest_text, "  common: ../lib", 0);
    assert_eq!(
        location["range"],
        json!({
            "start": { "line": key.0, "character": 2 },
            "end": { "line": key.0, "character": 8 },
        })
    );
    // `$ref: tool_contract:search`: the entry of `tool_contracts`.
    let at = position(&main_text, "tool_contract:search", 0);
    let location = client.at("textDocument/definition", &main, right(at, 16));
    assert_eq!(location["uri"], manifest.as_str());
    let key = position(&manifest_text, "  search:", 0);
    assert_eq!(
        location["range"]["start"],
        json!({ "line": key.0, "character": 2 })
    );
    // From the manifest's dependency path: the dependency's manifest.
    client.open(&manifest, &manifest_text);
    let at = position(&manifest_text, "../lib", 0);
    let location = client.at("textDocument/definition", &manifest, right(at, 2));
    assert_eq!(
        location["uri"],
        Url::from_file_path(lib.join("templiqx.yaml"))
            .unwrap()
            .as_str()
    );
    // An unknown tool contract: nowhere to go.
    client.replace(
        &main,
        2,
        &main_text.replace("tool_contract:search", "tool_contract:serch"),
    );
    let at = position(&main_text, "tool_contract:search", 0);
    let location = client.at("textDocument/definition", &main, right(at, 16));
    assert_eq!(location, Value::Null);
    client.shutdown();
}

/// The TQX_REF_UNKNOWN of `inputs.clasue_id` in the CRM3 extraction
/// contract (the misspelling an editor test types), with the text.
fn misspelt(client: &mut Client, url: &Url, text: &str) -> (String, Value) {
    let edited = text.replacen("path: inputs.clause_id }", "path: inputs.clasue_id }", 1);
    client.replace(url, 2, &edited);
    let diagnostics = client.diagnostics(url);
    assert_eq!(codes(&diagnostics), ["TQX_REF_UNKNOWN"], "{diagnostics:#?}");
    (edited, diagnostics[0].clone())
}

fn code_actions(client: &mut Client, url: &Url, diagnostic: &Value, only: Option<&str>) -> Value {
    let mut context = json!({ "diagnostics": [diagnostic] });
    if let Some(kind) = only {
        context["only"] = json!([kind]);
    }
    client.request(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": url },
            "range": diagnostic["range"],
            "context": context,
        }),
    )
}

#[test]
fn the_quick_fix_of_a_misspelt_reference_makes_the_diagnostic_go_away() {
    let (_pkg, url, text, mut client) =
        crm3_open(EXTRACTION, json!({ "target": ["structured_output"] }));
    let (edited, diagnostic) = misspelt(&mut client, &url, &text);
    assert!(
        diagnostic["message"]
            .as_str()
            .unwrap()
            .ends_with("help: did you mean `inputs.clause_id`?"),
        "{diagnostic}"
    );
    let (l, c) = position(&edited, "inputs.clasue_id", 0);
    let range = json!({
        "start": { "line": l, "character": c },
        "end": { "line": l, "character": c + 16 },
    });
    assert_eq!(
        diagnostic["data"],
        json!({ "suggestion": { "range": range, "replacement": "inputs.clause_id", "replaces": "inputs.clasue_id" } })
    );
    let actions = code_actions(&mut client, &url, &diagnostic, None);
    assert_eq!(
        actions,
        json!([{
            "title": "Change to `inputs.clause_id`",
            "kind": "quickfix",
            "diagnostics": [diagnostic],
            "isPreferred": true,
            "edit": { "changes": { url.as_str(): [{ "range": range, "newText": "inputs.clause_id" }] } },
        }])
    );
    let fixed = apply(&edited, &changes(&actions[0]["edit"])[0].1);
    assert_eq!(fixed, text);
    client.replace(&url, 3, &fixed);
    assert!(
        !codes(&client.diagnostics(&url)).contains(&"TQX_REF_UNKNOWN"),
        "the diagnostic stays after the fix"
    );
    client.shutdown();
}

#[test]
fn quick_fixes_without_data_when_stale_and_by_kind() {
    let (_pkg, url, text, mut client) =
        crm3_open(EXTRACTION, json!({ "target": ["structured_output"] }));
    let (edited, diagnostic) = misspelt(&mut client, &url, &text);
    // A client that drops `data`: the published diagnostic's suggestion.
    let mut bare = diagnostic.clone();
    bare.as_object_mut().unwrap().remove("data");
    let actions = code_actions(&mut client, &url, &bare, None);
    assert_eq!(actions[0]["title"], "Change to `inputs.clause_id`");
    assert_eq!(actions[0]["diagnostics"][0], bare);
    // Only other kinds: none; the empty kind (every kind) and `quickfix`:
    // the fix.
    assert_eq!(
        code_actions(&mut client, &url, &diagnostic, Some("refactor")),
        json!([])
    );
    assert_eq!(
        code_actions(&mut client, &url, &diagnostic, Some("quickfix"))
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        code_actions(&mut client, &url, &diagnostic, Some(""))
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // Another server's diagnostic: not ours to fix.
    let mut foreign = diagnostic.clone();
    foreign["source"] = json!("yaml");
    assert_eq!(code_actions(&mut client, &url, &foreign, None), json!([]));
    // The text changed under the diagnostic (fixed by hand): no action.
    client.replace(
        &url,
        3,
        &edited.replace("inputs.clasue_id", "inputs.clause_xd"),
    );
    client.diagnostics(&url);
    assert_eq!(
        code_actions(&mut client, &url, &diagnostic, None),
        json!([])
    );
    client.shutdown();
}

#[test]
fn a_misspelt_field_of_the_format_gets_a_quick_fix_too() {
    let (_pkg, url, text, mut client) =
        crm3_open(EXTRACTION, json!({ "target": ["structured_output"] }));
    let edited = text.replacen("filters: [trim]", "filters: [trmi]", 1);
    client.replace(&url, 2, &edited);
    let diagnostics = client.diagnostics(&url);
    assert_eq!(
        codes(&diagnostics),
        ["TQX_UNKNOWN_VARIANT"],
        "{diagnostics:#?}"
    );
    let actions = code_actions(&mut client, &url, &diagnostics[0], None);
    assert_eq!(actions[0]["title"], "Change to `trim`");
    let fixed = apply(&edited, &changes(&actions[0]["edit"])[0].1);
    assert_eq!(fixed, text);
    // A diagnostic without a suggestion: no action.
    let unrelated = text.replacen("path: inputs.clause_id }", "path: inputs.zzzzzzzz }", 1);
    client.replace(&url, 3, &unrelated);
    let diagnostics = client.diagnostics(&url);
    assert_eq!(codes(&diagnostics), ["TQX_REF_UNKNOWN"]);
    assert!(diagnostics[0].get("data").is_none(), "{:#}", diagnostics[0]);
    assert_eq!(
        code_actions(&mut client, &url, &diagnostics[0], None),
        json!([])
    );
    client.shutdown();
}

/// A misspelt expression kind gets a quick fix only to a kind its place
/// allows (`docs/format.md`, "Where each kind is allowed"): in content,
/// `lenght` is no "Change to `length`", which would be refused next.
#[test]
fn a_misspelt_kind_gets_no_quick_fix_to_a_kind_refused_there() {
    let (_pkg, url, text, mut client) =
        crm3_open(EXTRACTION, json!({ "target": ["structured_output"] }));
    let reference = "expression: { kind: ref, path: inputs.clause_id }";
    let edited = text.replacen(
        reference,
        "expression: { kind: lenght, of: { kind: ref, path: inputs.clause_id } }",
        1,
    );
    assert_ne!(edited, text);
    client.replace(&url, 2, &edited);
    let diagnostics = client.diagnostics(&url);
    assert_eq!(
        codes(&diagnostics),
        ["TQX_UNKNOWN_VARIANT"],
        "{diagnostics:#?}"
    );
    let message = diagnostics[0]["message"].as_str().unwrap();
    assert!(
        message.ends_with("`length` is allowed only in the `expect` checks of eval fixtures"),
        "{message}"
    );
    assert_eq!(
        code_actions(&mut client, &url, &diagnostics[0], None),
        json!([])
    );
    // A kind content allows keeps its fix.
    let edited = text.replacen(
        reference,
        "expression: { kind: rfe, path: inputs.clause_id }",
        1,
    );
    client.replace(&url, 3, &edited);
    let diagnostics = client.diagnostics(&url);
    assert_eq!(codes(&diagnostics), ["TQX_UNKNOWN_VARIANT"]);
    let actions = code_actions(&mut client, &url, &diagnostics[0], None);
    assert_eq!(actions[0]["title"], "Change to `ref`");
    assert_eq!(apply(&edited, &changes(&actions[0]["edit"])[0].1), text);
    client.shutdown();
}

/// Renders each of the package's request files `(contract id, request)`
/// as `templiqx render CONTRACT --request REQUEST` does: the package
/// compiled from the disk, the request read by the strict JSON reader,
/// validated and rendered. The rendered text of each, or its `TQX_*` codes.
fn render_requests(
    root: &std::path::Path,
    requests: &[(&str, &str)],
) -> Vec<Result<String, Vec<String>>> {
    let target = templiqx_contracts::CapabilityProfile::new(["structured_output"]);
    let mut loader = templiqx_build::Loader::new(root);
    let compiled = loader.compile_package(root, &target).unwrap();
    requests
        .iter()
        .map(|(id, request)| {
            let contract = compiled.iter().find(|c| c.id == *id).unwrap();
            assert_eq!(contract.diagnostics, [], "{id} compiles");
            let interaction = contract.interaction.as_ref().unwrap();
            let text = std::fs::read_to_string(root.join(request)).unwrap();
            let value = templiqx_contracts::json::parse(&text).unwrap();
            let scope = |name: &str| match value.as_object().and_then(|o| o.get(name)) {
                Some(templiqx_contracts::Json::Object(m)) => m.clone(),
                _ => templiqx_contracts::JsonMap::new(),
            };
            let (inputs, context) = (scope("inputs"), scope("context"));
            templiqx::render(interaction, &inputs, &context)
                .map(|r| r.messages.iter().map(|m| m.content.as_str()).collect())
                .map_err(|e| {
                    e.diagnostics
                        .iter()
                        .map(|d| d.code.as_str().to_owned())
                        .collect()
                })
        })
        .collect()
}

/// Writes a workspace edit's `changes` to the disk, as an editor saving
/// every file it edited does; returns the relative paths edited.
fn save(pkg: &Package, edit: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (uri, edits) in changes(edit) {
        let path = Url::parse(&uri).unwrap().to_file_path().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, apply(&text, &edits)).unwrap();
        let rel = path.strip_prefix(&pkg.root).unwrap();
        out.push(rel.to_string_lossy().replace('\\', "/"));
    }
    out
}

#[test]
fn rename_edits_the_request_files_the_manifest_lists_so_they_still_render() {
    let (pkg, url, text, mut client) =
        crm3_open(EXTRACTION, json!({ "target": ["structured_output"] }));
    let requests = [
        ("lease-term-extraction", REQUEST),
        ("lease-summary-drafting", "evals/drafting-request.json"),
    ];
    assert!(
        render_requests(&pkg.root, &requests)
            .iter()
            .all(Result::is_ok)
    );

    // An input: its contract, the request that targets it and the rows of
    // its dataset (`docs/format.md`, "Datasets").
    let at = position(&text, "  clause_text:", 0);
    let edit = rename(&mut client, &url, right(at, 3), "passage").unwrap();
    assert_eq!(
        save(&pkg, &edit),
        [EXTRACTION, REQUEST, "evals/labelled-leases.jsonl"]
    );
    let request = pkg.text(REQUEST);
    assert!(request.contains("    \"passage\": \"The lease starts"));
    assert!(!request.contains("clause_text"));
    let rows = pkg.text("evals/labelled-leases.jsonl");
    assert_eq!(rows.matches("\"passage\": \"").count(), 24, "{rows}");
    assert!(!rows.contains("clause_text"));
    let rendered = render_requests(&pkg.root, &requests);
    let extraction = rendered[0].as_ref().unwrap();
    assert!(
        extraction.contains("The lease starts on 2026-03-01"),
        "{extraction}"
    );
    assert!(rendered[1].is_ok());

    // A context field both contracts declare and both requests set:
    // renamed in the drafting contract, only the drafting request (the
    // extraction request sets inputs the drafting contract lacks) changes.
    let drafting = pkg.url("contracts/lease-summary-drafting.yaml");
    let drafting_text = pkg.text("contracts/lease-summary-drafting.yaml");
    client.open(&drafting, &drafting_text);
    let at = position(&drafting_text, "  matter_reference:", 0);
    let found = spots(&references(&mut client, &drafting, right(at, 3), false));
    assert!(
        found.contains(&(
            "drafting-request.json".to_owned(),
            line(
                &pkg.text("evals/drafting-request.json"),
                "\"matter_reference\"",
                0
            ),
            "matter_reference".to_owned()
        )),
        "{found:?}"
    );
    assert!(
        found.iter().all(|f| f.0 != "extraction-request.json"),
        "{found:?}"
    );
    let edit = rename(&mut client, &drafting, right(at, 3), "matter").unwrap();
    assert_eq!(
        save(&pkg, &edit),
        [
            "contracts/lease-summary-drafting.yaml",
            "evals/drafting-request.json"
        ]
    );
    assert!(pkg.text(REQUEST).contains("\"matter_reference\""));
    let rendered = render_requests(&pkg.root, &requests);
    assert!(rendered.iter().all(Result::is_ok), "{rendered:?}");
    client.shutdown();
}

#[test]
fn a_request_file_is_read_from_its_buffer_and_its_key_written_as_json() {
    let (pkg, url, text, mut client) =
        crm3_open(EXTRACTION, json!({ "target": ["structured_output"] }));
    // Open and unsaved: the key written with an escape, on another line.
    let request = pkg.url(REQUEST);
    let buffer = pkg
        .text(REQUEST)
        .replace("\"clause_text\":", "\n\"clause\\u005ftext\" :");
    client.open(&request, &buffer);
    let at = position(&text, "  clause_text:", 0);
    let found = references(&mut client, &url, right(at, 3), false);
    let in_request: Vec<&Value> = found
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["uri"] == request.as_str())
        .collect();
    assert_eq!(in_request.len(), 1, "{found:#}");
    // The whole token, on the buffer's line.
    let (start, end) = (
        offset(&buffer, &in_request[0]["range"]["start"]),
        offset(&buffer, &in_request[0]["range"]["end"]),
    );
    assert_eq!(&buffer[start..end], "\"clause\\u005ftext\"");

    let name = "clause \"text\" \u{e9}\t2";
    let edit = rename(&mut client, &url, right(at, 3), name).unwrap();
    let all = changes(&edit);
    let (_, edits) = all.iter().find(|(u, _)| u == request.as_str()).unwrap();
    let edited = apply(&buffer, edits);
    assert!(
        edited.contains("\n\"clause \\\"text\\\" \u{e9}\\t2\" :"),
        "{edited}"
    );
    let value = templiqx_contracts::json::parse(&edited).unwrap();
    let inputs = value.as_object().unwrap()["inputs"].as_object().unwrap();
    assert!(inputs.contains_key(name));
    assert!(!inputs.contains_key("clause_text"));
    client.shutdown();
}

#[test]
fn files_the_manifest_does_not_list_or_that_are_not_requests_are_left_alone() {
    let pkg = Package::crm3();
    // A request file for the contract that the manifest does not list.
    let stray = "{ \"inputs\": { \"clause_text\": \"x\" } }";
    std::fs::write(pkg.path("evals/stray-request.json"), stray).unwrap();
    let url = pkg.url(EXTRACTION);
    let text = pkg.text(EXTRACTION);
    let mut client = Client::start(json!({ "target": ["structured_output"] }));
    client.open(&url, &text);
    client.diagnostics(&url);
    let at = position(&text, "  clause_text:", 0);
    let edit = rename(&mut client, &url, right(at, 3), "passage").unwrap();
    let files: Vec<String> = changes(&edit)
        .into_iter()
        .map(|(u, _)| u.rsplit('/').next().unwrap().to_owned())
        .collect();
    // The outputs the manifest lists are not requests either; the
    // contract's dataset is edited.
    assert_eq!(
        files,
        [
            "lease-term-extraction.yaml",
            "extraction-request.json",
            "labelled-leases.jsonl"
        ]
    );
    client.shutdown();
}
