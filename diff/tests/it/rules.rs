//! Every rule has a minimal pair: the `before` and `after` blocks of
//! `docs/diff.md`, run through the library, produce exactly that rule; and
//! the rule table of `docs/diff.md` is the library's (`docs/diff.md`,
//! "Rules").

use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use templiqx_build::RealFileSystem;
use templiqx_diff::{Class, Rule, Side, diff};

fn docs() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/diff.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A fenced block tagged `tqx-diff=RULE` or `tqx-diff-schema=NAME`.
#[derive(Clone, Debug)]
struct Block {
    line: usize,
    /// `RULE` or, for a schema pair, `schema:NAME`.
    key: String,
    /// `before`, `after` or `both`.
    side: String,
    /// A whole file of the package, or a fragment of the contract.
    path: Option<String>,
    /// `tqx-compare=files`: the pair compares the two contract files, not
    /// the two packages.
    files: bool,
    text: String,
}

fn blocks(docs: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines = docs.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let Some(info) = line.strip_prefix("```yaml ") else {
            continue;
        };
        let mut key = None;
        let mut side = None;
        let mut path = None;
        let mut files = false;
        for word in info.split_whitespace() {
            if let Some(r) = word.strip_prefix("tqx-diff=") {
                key = Some(r.to_owned());
            } else if let Some(r) = word.strip_prefix("tqx-diff-schema=") {
                key = Some(format!("schema:{r}"));
            } else if let Some(s) = word.strip_prefix("tqx-side=") {
                side = Some(s.to_owned());
            } else if let Some(p) = word.strip_prefix("tqx-path=") {
                path = Some(p.to_owned());
            } else if let Some(c) = word.strip_prefix("tqx-compare=") {
                assert_eq!(c, "files", "docs/diff.md:{}: tqx-compare=files", n + 1);
                files = true;
            }
        }
        let mut text = String::new();
        for (_, l) in lines.by_ref() {
            if l == "```" {
                break;
            }
            text.push_str(l);
            text.push('\n');
        }
        if let Some(key) = key {
            let side = side.unwrap_or_else(|| panic!("docs/diff.md:{}: no tqx-side", n + 1));
            out.push(Block {
                line: n + 1,
                key,
                side,
                path,
                files,
                text,
            });
        }
    }
    out
}

fn yaml(text: &str) -> Value {
    templiqx_build::yaml::parse(text)
        .unwrap_or_else(|d| panic!("{}: {text}", d.message))
        .to_json()
}

const MANIFEST: &str =
    "api_version: templiqx/v1alpha1\npackage: example\nversion: 1.0.0\ncontracts: [example]\n";

fn base_contract() -> Map<String, Value> {
    let Value::Object(m) = yaml(
        r#"
api_version: templiqx/v1alpha1
id: example
version: 1.0.0
inputs:
  name: { schema: { type: string }, required: true }
messages:
  - role: user
    content:
      - { kind: text, value: "Hello " }
      - { kind: interpolate, expression: { kind: ref, path: inputs.name } }
output_schema: { type: object }
"#,
    ) else {
        unreachable!()
    };
    m
}

/// Writes the package of one side: the base, then the blocks.
fn package(dir: &Path, blocks: &[&Block]) {
    std::fs::create_dir_all(dir.join("contracts")).unwrap();
    std::fs::write(dir.join("templiqx.yaml"), MANIFEST).unwrap();
    let mut contract = base_contract();
    for b in blocks {
        match &b.path {
            Some(p) => {
                let file = dir.join(p);
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(file, &b.text).unwrap();
            }
            None => {
                let Value::Object(fragment) = yaml(&b.text) else {
                    panic!("docs/diff.md:{}: a fragment is a mapping", b.line)
                };
                contract.extend(fragment);
            }
        }
    }
    std::fs::write(
        dir.join("contracts/example.yaml"),
        serde_json::to_string_pretty(&Value::Object(contract)).unwrap(),
    )
    .unwrap();
}

/// The rules the diff of two packages (or of their contract files, with
/// `files`) reports, after checking that every change is located and
/// nothing failed to compile.
fn rules_between(root: &Path, origin: &str, files: bool) -> BTreeSet<String> {
    let fs = Arc::new(RealFileSystem);
    let file = if files { "contracts/example.yaml" } else { "" };
    let (before, after) = (
        Path::new("before").join(file),
        Path::new("after").join(file),
    );
    let old = Side::load(fs.clone(), root, &before, None, "old", false);
    let new = Side::load(fs, root, &after, None, "new", false);
    let report = diff(&old, &new);
    for d in &report.diagnostics {
        assert_eq!(
            d.diagnostic.code.as_str(),
            "TQX_VERSION_BUMP",
            "{origin}: {:?}",
            d.diagnostic
        );
    }
    for c in &report.changes {
        let at = c.new.as_ref().or(c.old.as_ref());
        assert!(
            at.is_some_and(|l| l.span.is_some()),
            "{origin}: {} has no located side",
            c.rule
        );
    }
    report
        .changes
        .iter()
        .map(|c| c.rule.id().to_owned())
        .collect()
}

fn run_pair(before: &[&Block], after: &[&Block], origin: &str) -> BTreeSet<String> {
    let dir = tempfile::tempdir().unwrap();
    package(&dir.path().join("before"), before);
    package(&dir.path().join("after"), after);
    let files = before.iter().chain(after).any(|b| b.files);
    rules_between(dir.path(), origin, files)
}

/// A schema pair as an input field's schema and as the output schema.
fn schema_blocks(schema: &Value, line: usize) -> [Block; 2] {
    let mut inputs = Map::new();
    inputs.insert(
        "name".into(),
        yaml("{ schema: { type: string }, required: true }"),
    );
    let mut field = Map::new();
    field.insert("schema".into(), schema.clone());
    field.insert("required".into(), Value::Bool(true));
    inputs.insert("value".into(), Value::Object(field));
    let as_input = serde_json::json!({ "inputs": inputs });
    let as_output = serde_json::json!({ "output_schema": schema });
    let block = |v: Value| Block {
        line,
        key: String::new(),
        side: String::new(),
        path: None,
        files: false,
        text: serde_json::to_string(&v).unwrap(),
    };
    [block(as_input), block(as_output)]
}

#[test]
fn the_rule_table_is_the_librarys() {
    let docs = docs();
    let mut table = BTreeMap::new();
    for line in docs.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if let ["", id, class, ""] = cells.as_slice()
            && let Some(id) = id.strip_prefix('`').and_then(|i| i.strip_suffix('`'))
            && id.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
        {
            assert!(
                table.insert(id.to_owned(), class.to_string()).is_none(),
                "{id} twice"
            );
        }
    }
    for rule in Rule::ALL {
        let class = table
            .remove(rule.id())
            .unwrap_or_else(|| panic!("docs/diff.md lists no `{}`", rule.id()));
        assert_eq!(class, rule.class().as_str(), "{}", rule.id());
    }
    assert!(
        table.is_empty(),
        "docs/diff.md lists unknown rules: {table:?}"
    );
    // Every class is used by some rule.
    for class in Class::ALL {
        assert!(Rule::ALL.iter().any(|r| r.class() == class), "{class}");
    }
}

#[test]
fn every_rule_has_a_minimal_pair_that_produces_exactly_it() {
    let docs = docs();
    let blocks = blocks(&docs);
    let mut covered: BTreeSet<String> = BTreeSet::new();
    let mut keys: Vec<&str> = blocks.iter().map(|b| b.key.as_str()).collect();
    keys.dedup();
    let mut problems = Vec::new();
    for key in keys {
        let of = |side: &str| -> Vec<&Block> {
            blocks
                .iter()
                .filter(|b| b.key == key && (b.side == side || b.side == "both"))
                .collect()
        };
        let (before, after) = (of("before"), of("after"));
        let origin = format!(
            "docs/diff.md:{} ({key})",
            before.first().map_or(0, |b| b.line)
        );
        if let Some(name) = key.strip_prefix("schema:") {
            let schema = |bs: &[&Block]| match bs {
                [one] => yaml(&one.text),
                _ => panic!("{origin}: one schema per side"),
            };
            let (b, a) = (
                schema_blocks(&schema(&before), 0),
                schema_blocks(&schema(&after), 0),
            );
            for (i, side) in ["INPUT", "OUTPUT"].into_iter().enumerate() {
                let expected = format!("{side}_{name}");
                let got = run_pair(&[&b[i]], &[&a[i]], &origin);
                if got != BTreeSet::from([expected.clone()]) {
                    problems.push(format!(
                        "{origin}: as {side} expected {{{expected}}}, got {got:?}"
                    ));
                }
                covered.insert(expected);
            }
        } else {
            let got = run_pair(&before, &after, &origin);
            if got != BTreeSet::from([key.to_owned()]) {
                problems.push(format!("{origin}: expected {{{key}}}, got {got:?}"));
            }
            covered.insert(key.to_owned());
        }
    }
    for rule in Rule::ALL {
        if !covered.contains(rule.id()) {
            problems.push(format!("{}: no minimal pair in docs/diff.md", rule.id()));
        }
    }
    for c in &covered {
        if Rule::parse(c).is_none() {
            problems.push(format!("docs/diff.md has a pair for unknown rule {c}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A pair that changes nothing but spelling — key order, flow style, the
/// order of a type list, an inclusive bound for an exclusive one on
/// integers, a default made explicit — reports nothing, and the gate
/// passes at the same version.
#[test]
fn respelling_a_contract_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let write = |side: &str, contract: &str| {
        let d: PathBuf = dir.path().join(side);
        std::fs::create_dir_all(d.join("contracts")).unwrap();
        std::fs::write(d.join("templiqx.yaml"), MANIFEST).unwrap();
        std::fs::write(d.join("contracts/example.yaml"), contract).unwrap();
    };
    write(
        "before",
        r#"api_version: templiqx/v1alpha1
id: example
version: 1.0.0
inputs:
  name: { schema: { type: [string, "null"] }, required: true }
  age: { schema: { type: integer, minimum: 0 } }
messages:
  - role: user
    content:
      - { kind: text, value: "Hello " }
      - { kind: interpolate, expression: { kind: ref, path: inputs.name }, filters: [json] }
output_schema: { type: object, properties: { n: { type: integer, exclusiveMaximum: 10 } } }
"#,
    );
    write(
        "after",
        r#"version: "1.0.0"
id: example
api_version: templiqx/v1alpha1
inputs:
  age:
    required: false
    schema: { exclusiveMinimum: -1, type: integer }
  name:
    schema:
      type: ["null", string]
    required: true
output_schema:
  properties:
    n: { maximum: 9, type: integer }
  type: object
messages:
  - content:
      - value: 'Hello '
        kind: text
      - kind: interpolate
        filters: [json]
        expression: { path: inputs.name, kind: ref }
    role: user
"#,
    );
    let fs = Arc::new(RealFileSystem);
    let old = Side::load(
        fs.clone(),
        dir.path(),
        Path::new("before"),
        None,
        "old",
        false,
    );
    let new = Side::load(fs, dir.path(), Path::new("after"), None, "new", false);
    let report = diff(&old, &new);
    assert_eq!(report.changes, [], "{:#?}", report.changes);
    assert!(report.sufficient);
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
}
