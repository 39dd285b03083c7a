//! Packages and composition: manifests, includes, dependencies and
//! tool contracts. Every test builds its package in a fresh temporary
//! directory (the shared corpus is only read).

use std::fs;
use std::path::Path;
use templiqx_build::{Loader, manifest_fingerprint};
use templiqx_contracts::{CapabilityProfile, Code, Diagnostic};

fn target() -> CapabilityProfile {
    CapabilityProfile::parse_list("structured_output,tools")
}

/// A scratch package: `templiqx.yaml` with `contracts: [main]`, plus files.
struct Pkg {
    dir: tempfile::TempDir,
}

const MANIFEST: &str =
    "api_version: templiqx/v1alpha1\npackage: scratch\nversion: 0.1.0\ncontracts: [main]\n";

fn contract(content: &str) -> String {
    format!(
        "api_version: templiqx/v1alpha1\nid: main\nversion: 0.1.0\ninputs:\n  name: {{ schema: {{ type: string }}, required: true }}\n  items: {{ schema: {{ type: array, items: {{ type: string }} }}, required: true }}\ncapabilities: [structured_output]\nmessages:\n  - role: user\n    content:\n{content}output_schema: {{ type: object }}\n"
    )
}

impl Pkg {
    fn new(manifest: &str, main: &str) -> Pkg {
        Pkg::new_in(&std::env::temp_dir(), manifest, main)
    }

    /// A package in a new directory inside `parent`.
    fn new_in(parent: &Path, manifest: &str, main: &str) -> Pkg {
        let pkg = Pkg {
            dir: tempfile::tempdir_in(parent).unwrap(),
        };
        pkg.write("templiqx.yaml", manifest);
        pkg.write("contracts/main.yaml", main);
        pkg
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.dir.path().join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    /// Compiles `contracts/main.yaml` through the package; file names in
    /// diagnostics are relative to the package root.
    fn compile(&self) -> (Loader, templiqx_build::CompiledContract) {
        let mut loader = Loader::new(self.root());
        let mut all = loader
            .compile_package(self.root(), &target())
            .unwrap_or_else(|d| panic!("manifest: {d:?}"));
        assert_eq!(all.len(), 1);
        let c = all.remove(0);
        (loader, c)
    }

    fn messages(&self) -> Vec<String> {
        let (_, c) = self.compile();
        let i = c
            .interaction
            .unwrap_or_else(|| panic!("{:#?}", c.diagnostics));
        let inputs = serde_json::json!({"name": "Ann", "items": ["x", "y"]});
        templiqx_render(&i, &inputs)
    }
}

/// Renders text nodes only (the runtime crate is not a dependency of the
/// compiler): walks the lowered IR, which is enough to see spliced content.
fn templiqx_render(
    i: &templiqx_contracts::Interaction,
    _inputs: &serde_json::Value,
) -> Vec<String> {
    fn walk(
        nodes: &[templiqx_contracts::ir::Node],
        comps: &[templiqx_contracts::ir::Component],
        out: &mut String,
    ) {
        for n in nodes {
            match n {
                templiqx_contracts::ir::Node::Text(t) => out.push_str(t),
                templiqx_contracts::ir::Node::Interpolate {
                    value: templiqx_contracts::ir::Expr::Ref(p),
                    ..
                } => out.push_str(&format!("{{{}}}", p.source)),
                templiqx_contracts::ir::Node::ForEach { body, .. } => {
                    out.push('[');
                    walk(body, comps, out);
                    out.push(']');
                }
                templiqx_contracts::ir::Node::When {
                    then, otherwise, ..
                } => {
                    walk(then, comps, out);
                    walk(otherwise, comps, out);
                }
                templiqx_contracts::ir::Node::Call { component, .. } => {
                    out.push('<');
                    walk(&comps[*component as usize].body, comps, out);
                    out.push('>');
                }
                _ => {}
            }
        }
    }
    i.messages
        .iter()
        .map(|m| {
            let mut s = String::new();
            walk(&m.content, &i.components, &mut s);
            s
        })
        .collect()
}

fn one(diags: &[Diagnostic], code: Code) -> &Diagnostic {
    diags
        .iter()
        .find(|d| d.code == code)
        .unwrap_or_else(|| panic!("no {code} in {diags:#?}"))
}

#[track_caller]
fn at(d: &Diagnostic, file: &str, line: u32) {
    assert_eq!(d.file.as_deref(), Some(file), "{d}");
    assert_eq!(d.span.map(|s| s.start.line), Some(line), "{d}");
}

const INCLUDE_INTRO: &str = "      - { kind: include, path: partials/intro.yaml }\n";

#[test]
fn include_inside_include_is_spliced_in_place() {
    let p = Pkg::new(
        MANIFEST,
        &contract(&format!(
            "      - {{ kind: text, value: '[' }}\n{INCLUDE_INTRO}      - {{ kind: text, value: ']' }}\n"
        )),
    );
    p.write(
        "partials/intro.yaml",
        "- { kind: text, value: 'Hi ' }\n- { kind: include, path: partials/name.yaml }\n",
    );
    p.write(
        "partials/name.yaml",
        "- kind: interpolate\n  expression: { kind: ref, path: inputs.name }\n",
    );
    assert_eq!(p.messages(), ["[Hi {inputs.name}]"]);
}

#[test]
fn includes_inside_component_bodies_and_for_each() {
    let main = contract(
        "      - kind: for_each\n        collection: { kind: ref, path: inputs.items }\n        item: it\n        body:\n          - { kind: include, path: partials/item.yaml }\n      - { kind: component, name: sig }\n",
    ) + "components:\n  sig:\n    parameters: {}\n    content:\n      - { kind: include, path: partials/sig.yaml }\n";
    let p = Pkg::new(MANIFEST, &main);
    p.write(
        "partials/item.yaml",
        "- { kind: interpolate, expression: { kind: ref, path: it } }\n",
    );
    p.write("partials/sig.yaml", "- { kind: text, value: '-- team' }\n");
    assert_eq!(p.messages(), ["[{it}]<-- team>"]);
}

#[test]
fn include_cycles_name_the_chain() {
    let p = Pkg::new(MANIFEST, &contract(INCLUDE_INTRO));
    p.write(
        "partials/intro.yaml",
        "- { kind: include, path: partials/b.yaml }\n",
    );
    p.write(
        "partials/b.yaml",
        "- { kind: text, value: x }\n- { kind: include, path: partials/intro.yaml }\n",
    );
    let (_, c) = p.compile();
    let d = one(&c.diagnostics, Code::IncludeCycle);
    assert!(
        d.message
            .contains("partials/intro.yaml → partials/b.yaml → partials/intro.yaml"),
        "{}",
        d.message
    );
    at(d, "partials/b.yaml", 2);
    assert!(
        d.notes.iter().any(|n| n.contains("contracts/main.yaml")),
        "{:?}",
        d.notes
    );

    let p = Pkg::new(MANIFEST, &contract(INCLUDE_INTRO));
    p.write(
        "partials/intro.yaml",
        "- { kind: include, path: partials/intro.yaml }\n",
    );
    let (_, c) = p.compile();
    let d = one(&c.diagnostics, Code::IncludeCycle);
    at(d, "partials/intro.yaml", 1);
}

const SECRET: &str = "TOP-SECRET-OUTSIDE-TEXT";

#[test]
fn traversal_is_rejected_and_nothing_outside_is_read() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.yaml");
    fs::write(&secret, format!("- {{ kind: text, value: {SECRET} }}\n")).unwrap();
    let abs = secret.to_string_lossy().into_owned();
    let cases: Vec<(String, &str)> = vec![
        ("../secret.yaml".to_owned(), "`..`"),
        ("partials/../../secret.yaml".to_owned(), "`..`"),
        (abs.clone(), "absolute"),
        ("partials\\\\intro.yaml".to_owned(), "backslash"),
        ("C:/secret.yaml".to_owned(), "drive letter"),
        ("partials/intro\\0.yaml".to_owned(), "NUL"),
    ];
    for (path, reason) in cases {
        // The package sits inside `outside`, so `../secret.yaml` (from the
        // package root) and `partials/../../secret.yaml` name the secret.
        let p = Pkg::new_in(
            outside.path(),
            MANIFEST,
            &contract(&format!(
                "      - kind: include\n        path: \"{}\"\n",
                path.replace('"', "\\\"")
            )),
        );
        p.write("partials/intro.yaml", "- { kind: text, value: fine }\n");
        let (loader, c) = p.compile();
        let d = one(&c.diagnostics, Code::IncludeUnresolved);
        at(
            d,
            "contracts/main.yaml",
            line_of(
                &fs::read_to_string(p.root().join("contracts/main.yaml")).unwrap(),
                "path:",
            ),
        );
        assert!(
            d.message.contains(reason) || d.message.contains("outside"),
            "{path}: {}",
            d.message
        );
        assert!(
            loader
                .files_read
                .iter()
                .all(|f| !f.ends_with("secret.yaml")),
            "{path} read the outside file: {:?}",
            loader.files_read
        );
        assert!(
            loader.files_read.iter().all(|f| f.starts_with(p.root())),
            "{path} read outside the package: {:?}",
            loader.files_read
        );
        assert!(!format!("{:?}", c.diagnostics).contains(SECRET));
    }
}

#[cfg(unix)]
#[test]
fn a_symlink_to_an_outside_file_is_rejected() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.yaml");
    fs::write(&secret, format!("- {{ kind: text, value: {SECRET} }}\n")).unwrap();
    let p = Pkg::new(MANIFEST, &contract(INCLUDE_INTRO));
    fs::create_dir_all(p.root().join("partials")).unwrap();
    std::os::unix::fs::symlink(&secret, p.root().join("partials/intro.yaml")).unwrap();
    let (loader, c) = p.compile();
    let d = one(&c.diagnostics, Code::IncludeUnresolved);
    at(d, "contracts/main.yaml", 11);
    assert!(d.message.contains("symlink"), "{}", d.message);
    assert!(c.interaction.is_none());
    assert!(!format!("{:?}", c.diagnostics).contains(SECRET));
    assert!(
        loader
            .sources
            .files()
            .iter()
            .all(|f| !f.text.contains(SECRET))
    );
    assert!(
        loader
            .files_read
            .iter()
            .all(|f| !f.starts_with(fs::canonicalize(outside.path()).unwrap()))
    );
}

#[cfg(unix)]
#[test]
fn a_listed_contract_symlinked_outside_the_package_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("c.yaml");
    fs::write(
        &secret,
        contract(&format!("      - {{ kind: text, value: {SECRET} }}\n")),
    )
    .unwrap();
    let p = Pkg::new(MANIFEST, "unused");
    fs::remove_file(p.root().join("contracts/main.yaml")).unwrap();
    std::os::unix::fs::symlink(&secret, p.root().join("contracts/main.yaml")).unwrap();
    let (loader, c) = p.compile();
    let d = one(&c.diagnostics, Code::Package);
    at(d, "templiqx.yaml", 4);
    assert_eq!(d.json_pointer.as_deref(), Some("/contracts/0"));
    assert!(d.message.contains("symlink"), "{}", d.message);
    assert!(c.interaction.is_none());
    assert!(!format!("{:?}", c.diagnostics).contains(SECRET));
    assert!(loader.files_read.iter().all(|f| !f.ends_with("c.yaml")));
}

#[test]
fn a_contract_listed_twice_is_a_manifest_error() {
    let p = Pkg::new(
        "api_version: templiqx/v1alpha1\npackage: scratch\nversion: 0.1.0\ncontracts: [main, main]\n",
        &contract("      - { kind: text, value: x }\n"),
    );
    let mut loader = Loader::new(p.root());
    let diags = loader.compile_package(p.root(), &target()).unwrap_err();
    let d = one(&diags, Code::Package);
    at(d, "templiqx.yaml", 4);
    assert_eq!(d.json_pointer.as_deref(), Some("/contracts/1"));
    assert!(d.message.contains("listed twice"), "{}", d.message);
}

fn line_of(text: &str, needle: &str) -> u32 {
    u32::try_from(text.lines().position(|l| l.contains(needle)).unwrap()).unwrap() + 1
}

#[test]
fn missing_and_malformed_partials() {
    let p = Pkg::new(MANIFEST, &contract(INCLUDE_INTRO));
    let (_, c) = p.compile();
    let d = one(&c.diagnostics, Code::IncludeUnresolved);
    at(d, "contracts/main.yaml", 11);
    assert_eq!(
        d.json_pointer.as_deref(),
        Some("/messages/0/content/0/path")
    );

    // YAML syntax error inside the partial: the partial's own file and line.
    let p = Pkg::new(MANIFEST, &contract(INCLUDE_INTRO));
    p.write(
        "partials/intro.yaml",
        "- { kind: text, value: ok }\n- { kind: text, value: [unclosed }\n",
    );
    let (_, c) = p.compile();
    let d = one(&c.diagnostics, Code::IncludeInvalid);
    at(d, "partials/intro.yaml", 2);
    assert!(
        d.notes.iter().any(|n| n.contains("contracts/main.yaml:11")),
        "{:?}",
        d.notes
    );

    // Not a list of content nodes.
    let p = Pkg::new(MANIFEST, &contract(INCLUDE_INTRO));
    p.write(
        "partials/intro.yaml",
        "- { kind: text, value: ok }\n- { kind: text, vaule: typo }\n",
    );
    let (_, c) = p.compile();
    let d = one(&c.diagnostics, Code::IncludeInvalid);
    at(d, "partials/intro.yaml", 2);
    assert_eq!(d.json_pointer.as_deref(), Some("/1/vaule"));

    let p = Pkg::new(MANIFEST, &contract(INCLUDE_INTRO));
    p.write("partials/intro.yaml", "kind: text\nvalue: not a list\n");
    let (_, c) = p.compile();
    let d = one(&c.diagnostics, Code::IncludeInvalid);
    at(d, "partials/intro.yaml", 1);
}

#[test]
fn an_unknown_reference_inside_a_partial_points_into_the_partial() {
    let p = Pkg::new(MANIFEST, &contract(INCLUDE_INTRO));
    p.write(
        "partials/intro.yaml",
        "- { kind: text, value: 'Hi ' }\n- { kind: include, path: partials/name.yaml }\n",
    );
    p.write(
        "partials/name.yaml",
        "# the name\n- kind: interpolate\n  expression: { kind: ref, path: inputs.nmae }\n",
    );
    let (_, c) = p.compile();
    let d = one(&c.diagnostics, Code::RefUnknown);
    at(d, "partials/name.yaml", 3);
    assert_eq!(d.json_pointer.as_deref(), Some("/0/expression/path"));
    assert_eq!(d.notes.len(), 2, "{:?}", d.notes);
    assert!(
        d.notes[0].starts_with("included from partials/intro.yaml:2:"),
        "{:?}",
        d.notes
    );
    assert!(
        d.notes[1].starts_with("included from contracts/main.yaml:11:"),
        "{:?}",
        d.notes
    );
}

#[test]
fn from_dependency_resolves_inside_the_dependency() {
    let outer = tempfile::tempdir().unwrap();
    let app = outer.path().join("app");
    let lib = outer.path().join("lib");
    fs::create_dir_all(app.join("contracts")).unwrap();
    fs::create_dir_all(lib.join("partials")).unwrap();
    fs::write(
        app.join("templiqx.yaml"),
        format!("{MANIFEST}dependencies:\n  common: ../lib\n"),
    )
    .unwrap();
    fs::write(
        app.join("contracts/main.yaml"),
        contract("      - { kind: include, path: partials/sig.yaml, from_dependency: common }\n"),
    )
    .unwrap();
    fs::write(
        lib.join("templiqx.yaml"),
        "api_version: templiqx/v1alpha1\npackage: common\nversion: 1.0.0\ncontracts: []\n",
    )
    .unwrap();
    fs::write(lib.join("partials/sig.yaml"), "- { kind: text, value: shared-signature }\n- { kind: include, path: partials/more.yaml }\n").unwrap();
    fs::write(
        lib.join("partials/more.yaml"),
        "- { kind: text, value: '+more' }\n",
    )
    .unwrap();
    let mut loader = Loader::new(&app);
    let c = loader.compile_package(&app, &target()).unwrap().remove(0);
    let i = c
        .interaction
        .unwrap_or_else(|| panic!("{:#?}", c.diagnostics));
    assert_eq!(
        templiqx_render(&i, &serde_json::Value::Null),
        ["shared-signature+more"]
    );
    let read: Vec<String> = loader
        .sources
        .files()
        .iter()
        .map(|f| f.name.clone())
        .collect();
    assert!(
        read.contains(&"../lib/templiqx.yaml".to_owned()),
        "{read:?}"
    );
    assert!(
        read.contains(&"../lib/partials/more.yaml".to_owned()),
        "{read:?}"
    );

    // An unknown dependency name.
    fs::write(
        app.join("contracts/main.yaml"),
        contract("      - { kind: include, path: partials/sig.yaml, from_dependency: comon }\n"),
    )
    .unwrap();
    let mut loader = Loader::new(&app);
    let c = loader.compile_package(&app, &target()).unwrap().remove(0);
    let d = one(&c.diagnostics, Code::IncludeUnresolved);
    at(d, "contracts/main.yaml", 11);
    assert_eq!(
        d.json_pointer.as_deref(),
        Some("/messages/0/content/0/from_dependency")
    );
    assert!(d.help.as_deref().unwrap().contains("common"));

    // Confinement applies inside the dependency too.
    fs::write(
        app.join("contracts/main.yaml"),
        contract("      - { kind: include, path: ../app/contracts/main.yaml, from_dependency: common }\n"),
    )
    .unwrap();
    let mut loader = Loader::new(&app);
    let c = loader.compile_package(&app, &target()).unwrap().remove(0);
    one(&c.diagnostics, Code::IncludeUnresolved);
}

#[test]
fn a_declared_dependency_that_cannot_be_loaded_is_not_suggested_back() {
    // `lib` is declared, but its directory holds no manifest.
    let outer = tempfile::tempdir().unwrap();
    let app = outer.path().join("app");
    fs::create_dir_all(app.join("contracts")).unwrap();
    fs::create_dir_all(outer.path().join("lib")).unwrap();
    fs::write(
        app.join("templiqx.yaml"),
        format!("{MANIFEST}dependencies:\n  lib: ../lib\n"),
    )
    .unwrap();
    fs::write(
        app.join("contracts/main.yaml"),
        contract("      - { kind: include, path: partials/sig.yaml, from_dependency: lib }\n"),
    )
    .unwrap();
    let mut loader = Loader::new(&app);
    let c = loader.compile_package(&app, &target()).unwrap().remove(0);
    let d = one(&c.diagnostics, Code::IncludeUnresolved);
    assert_eq!(
        d.json_pointer.as_deref(),
        Some("/messages/0/content/0/from_dependency")
    );
    assert!(
        d.message
            .starts_with("dependency `lib` (../lib) cannot be loaded: cannot read "),
        "{}",
        d.message
    );
    assert_eq!(
        d.help.as_deref(),
        Some(
            "`lib` is declared as `../lib`: make that directory a package (a readable, valid templiqx.yaml), or correct its path under `dependencies` in templiqx.yaml"
        )
    );
    assert!(!d.help.as_deref().unwrap().contains("did you mean"));
}

#[test]
fn absolute_dependency_paths_are_refused_at_the_manifest_entry() {
    let outer = tempfile::tempdir().unwrap();
    let lib = outer.path().join("lib");
    fs::create_dir_all(lib.join("partials")).unwrap();
    fs::write(
        lib.join("templiqx.yaml"),
        "api_version: templiqx/v1alpha1\npackage: lib\nversion: 1.0.0\ncontracts: []\n",
    )
    .unwrap();
    fs::write(
        lib.join("partials/sig.yaml"),
        "- { kind: text, value: sig }\n",
    )
    .unwrap();
    let include =
        contract("      - { kind: include, path: partials/sig.yaml, from_dependency: lib }\n");
    // The same dependency written relative to the package is accepted …
    let app = Pkg::new_in(
        outer.path(),
        &format!("{MANIFEST}dependencies:\n  lib: ../lib\n"),
        &include,
    );
    let (_, c) = app.compile();
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    // … and refused when absolute (here an existing package), with a drive
    // letter, a leading backslash, or empty.
    let absolute = lib.to_str().unwrap().to_owned();
    for (path, reason) in [
        (absolute.as_str(), "is absolute"),
        ("/opt/templiqx/lib", "is absolute"),
        ("\\\\server\\lib", "is absolute"),
        ("C:/lib", "starts with a drive letter"),
        ("c:lib", "starts with a drive letter"),
        ("''", "is empty"),
    ] {
        app.write(
            "templiqx.yaml",
            &format!("{MANIFEST}dependencies:\n  other: ../other\n  lib: {path}\n"),
        );
        let mut loader = Loader::new(app.root());
        let diags = loader
            .compile_package(app.root(), &target())
            .expect_err("the manifest is refused");
        let d = one(&diags, Code::Package);
        assert_eq!(
            d.json_pointer.as_deref(),
            Some("/dependencies/lib"),
            "{path}"
        );
        at(d, "templiqx.yaml", 7);
        let shown = if path == "''" { "" } else { path };
        assert_eq!(
            d.message,
            format!("dependency `lib` path `{}` {reason}", shown.escape_debug()),
        );
        assert_eq!(
            d.help.as_deref(),
            Some(
                "write the dependency's directory relative to this package (`../common`), so the package builds wherever it is checked out"
            )
        );
    }
}

const SEARCH_SCHEMA: &str =
    "{ type: object, properties: { query: { type: string } }, required: [query] }";

fn search_fp() -> String {
    let schema = serde_json::json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]});
    format!(
        "sha256:{}",
        templiqx_contracts::canonical::fingerprint(&schema)
    )
}

fn tool_pkg(table_fp: &str, schema_ref: &str) -> Pkg {
    let manifest = format!(
        "{MANIFEST}tool_contracts:\n  search_customers:\n    fingerprint: {table_fp}\n    schema: {SEARCH_SCHEMA}\n"
    );
    let main = contract("      - { kind: text, value: x }\n")
        + &format!(
            "extensions:\n  vendor.search:\n    capability: tools\n    schema: {schema_ref}\n    value: {{ query: acme }}\n"
        );
    Pkg::new(&manifest, &main)
}

#[test]
fn tool_contract_references() {
    let fp = search_fp();
    // Resolves: the schema is inlined and the value validated against it.
    let p = tool_pkg(
        &fp,
        &format!("{{ $ref: 'tool_contract:search_customers', fingerprint: '{fp}' }}"),
    );
    let (_, c) = p.compile();
    let i = c
        .interaction
        .unwrap_or_else(|| panic!("{:#?}", c.diagnostics));
    assert_eq!(i.extensions[0].schema.required.len(), 1);
    assert_eq!(
        i.required_capabilities
            .iter()
            .map(|s| s.as_ref())
            .collect::<Vec<&str>>(),
        ["structured_output", "tools"]
    );

    // Unknown name.
    let p = tool_pkg(
        &fp,
        &format!("{{ $ref: 'tool_contract:search_customer', fingerprint: '{fp}' }}"),
    );
    let (_, c) = p.compile();
    let d = one(&c.diagnostics, Code::ToolContractRefUnresolved);
    at(d, "contracts/main.yaml", 16);
    assert!(d.help.as_deref().unwrap().contains("search_customers"));

    // Missing pin.
    let p = tool_pkg(&fp, "{ $ref: 'tool_contract:search_customers' }");
    let (_, c) = p.compile();
    let d = one(&c.diagnostics, Code::ToolContractRefUnresolved);
    at(d, "contracts/main.yaml", 16);
    assert!(d.help.as_deref().unwrap().contains(&fp));

    // Mismatched pin.
    let wrong = format!("sha256:{}", "0".repeat(64));
    let p = tool_pkg(
        &fp,
        &format!("{{ $ref: 'tool_contract:search_customers', fingerprint: '{wrong}' }}"),
    );
    let (_, c) = p.compile();
    let d = one(&c.diagnostics, Code::ToolContractRefUnresolved);
    assert_eq!(
        d.json_pointer.as_deref(),
        Some("/extensions/vendor.search/schema/fingerprint")
    );
    at(d, "contracts/main.yaml", 16);
    assert!(c.interaction.is_none());

    // The table's declared digest is not the schema's: a package diagnostic.
    let p = tool_pkg(
        &wrong,
        &format!("{{ $ref: 'tool_contract:search_customers', fingerprint: '{wrong}' }}"),
    );
    let mut loader = Loader::new(p.root());
    let diags = loader.compile_package(p.root(), &target()).unwrap_err();
    let d = one(&diags, Code::Package);
    at(d, "templiqx.yaml", 7);
    assert_eq!(
        d.json_pointer.as_deref(),
        Some("/tool_contracts/search_customers/fingerprint")
    );
    assert!(d.message.contains(&fp), "{}", d.message);
}

#[test]
fn manifests_are_strict() {
    let p = Pkg::new(
        &format!("{MANIFEST}dependecies: {{}}\n"),
        &contract("      - { kind: text, value: x }\n"),
    );
    let mut loader = Loader::new(p.root());
    let diags = loader.compile_package(p.root(), &target()).unwrap_err();
    let d = one(&diags, Code::UnknownField);
    at(d, "templiqx.yaml", 5);
    assert!(d.help.as_deref().unwrap().contains("dependencies"));

    let p = Pkg::new(
        &format!("{MANIFEST}templates: [../outside.docx]\n"),
        &contract("      - { kind: text, value: x }\n"),
    );
    let mut loader = Loader::new(p.root());
    let diags = loader.compile_package(p.root(), &target()).unwrap_err();
    let d = one(&diags, Code::Package);
    assert_eq!(d.json_pointer.as_deref(), Some("/templates/0"));
}

#[test]
fn tool_contracts_are_additive_for_manifest_fingerprints() {
    // Golden: SHA-256 of the canonical JSON
    // {"api_version":"templiqx/v1alpha1","contracts":["main"],"package":"scratch","provenance":{},"version":"0.1.0"}
    // (computed independently). Supporting the additive `tool_contracts`
    // field must never change the fingerprint of a manifest without it.
    let p = Pkg::new(MANIFEST, &contract("      - { kind: text, value: x }\n"));
    let mut loader = Loader::new(p.root());
    let pkg = loader.load_package(p.root()).unwrap();
    let fp = manifest_fingerprint(&loader.package(pkg).manifest);
    assert_eq!(
        fp,
        "c09609dc1277432b172955a2b42e310913a8c4548f58eeb11c9dc7b3923897e5"
    );
    // Golden of the package fingerprint users see (`Loader::fingerprint`,
    // `fingerprints.package` of `templiqx check`): SHA-256 of the canonical
    // JSON {"contracts/main.yaml": sha256(contract), "templiqx.yaml":
    // sha256(manifest)}, computed independently (Python hashlib + json).
    let (loader, c) = p.compile();
    assert!(c.interaction.is_some(), "{:?}", c.diagnostics);
    assert_eq!(
        loader.fingerprint(),
        "85216c500c5db79cbc0d035e942e54df0d9d4788dd4750e61910572906630ede"
    );
    // An explicitly empty table fingerprints the same.
    let p2 = Pkg::new(
        &format!("{MANIFEST}tool_contracts: {{}}\n"),
        &contract("      - { kind: text, value: x }\n"),
    );
    let mut loader2 = Loader::new(p2.root());
    let pkg2 = loader2.load_package(p2.root()).unwrap();
    assert_eq!(manifest_fingerprint(&loader2.package(pkg2).manifest), fp);
}

#[test]
fn the_package_fingerprint_ignores_creation_order() {
    let files = [
        ("templiqx.yaml", MANIFEST.to_owned()),
        ("contracts/main.yaml", contract(INCLUDE_INTRO)),
        (
            "partials/intro.yaml",
            "- { kind: include, path: partials/b.yaml }\n".to_owned(),
        ),
        ("partials/b.yaml", "- { kind: text, value: b }\n".to_owned()),
    ];
    let make = |order: &[usize]| -> String {
        let dir = tempfile::tempdir().unwrap();
        for &i in order {
            let p = dir.path().join(files[i].0);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, &files[i].1).unwrap();
        }
        let mut loader = Loader::new(dir.path());
        let c = loader.compile_package(dir.path(), &target()).unwrap();
        assert!(c[0].diagnostics.is_empty(), "{:#?}", c[0].diagnostics);
        loader.fingerprint()
    };
    let a = make(&[0, 1, 2, 3]);
    let b = make(&[3, 2, 1, 0]);
    assert_eq!(a, b);
    // And it changes with any file's content.
    let dir = tempfile::tempdir().unwrap();
    for (rel, text) in &files {
        let p = dir.path().join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text.replace("value: b", "value: c")).unwrap();
    }
    let mut loader = Loader::new(dir.path());
    loader.compile_package(dir.path(), &target()).unwrap();
    assert_ne!(loader.fingerprint(), a);
}

/// Loads and compiles each package `(dir below root, contracts, files read)`
/// without a diagnostic (a dataset is a file read, as a partial is).
fn assert_packages_compile(root: &Path, packages: &[(&str, usize, usize)]) {
    for &(rel, n, files) in packages {
        let dir = root.join(rel);
        let mut loader = Loader::new(&dir);
        let compiled = loader
            .compile_package(&dir, &CapabilityProfile::parse_list("structured_output"))
            .unwrap_or_else(|d| panic!("{rel}: {d:#?}"));
        assert_eq!(compiled.len(), n);
        for c in compiled {
            assert!(
                c.diagnostics.is_empty(),
                "{rel}/{}: {:#?}",
                c.file,
                c.diagnostics
            );
            assert!(c.interaction.is_some());
        }
        // The manifest, every contract and every partial were read.
        assert_eq!(loader.files_read.len(), files, "{:?}", loader.files_read);
    }
}

#[test]
fn both_example_packages_load_and_compile() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    // crm3: the manifest, three contracts (the drafting summary's judge
    // among them), a partial and a dataset.
    assert_packages_compile(&examples, &[("packages/demo", 1, 2), ("crm3", 3, 6)]);
}

#[test]
fn both_corpus_packages_load_and_compile() {
    let Some(corpus) =
        templiqx_conformance_suites::locate(templiqx_conformance_suites::Suite::Corpus)
    else {
        return;
    };
    assert_packages_compile(&corpus, &[("packages/demo", 1, 2), ("crm3", 2, 3)]);
}

// ---------------------------------------------------------------------------
// Encodings and line breaks: every source is read through `templiqx_build::text`.

impl Pkg {
    fn write_bytes(&self, rel: &str, bytes: &[u8]) {
        let p = self.dir.path().join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, bytes).unwrap();
    }
}

/// `text` with `needle` replaced by `bytes` (which need not be UTF-8).
fn spliced(text: &str, needle: &str, bytes: &[u8]) -> Vec<u8> {
    let i = text.find(needle).unwrap();
    [
        &text.as_bytes()[..i],
        bytes,
        &text.as_bytes()[i + needle.len()..],
    ]
    .concat()
}

fn rendered(loader: &Loader, diagnostics: &[Diagnostic]) -> String {
    templiqx_build::report::render_all(diagnostics, &|name| {
        loader.sources.by_name(name).map(|f| f.text.clone())
    })
}

#[test]
fn a_contract_that_is_not_utf8_is_a_located_yaml_error_not_an_io_error() {
    let text = contract("      - { kind: text, value: \"Hello\" }\n");
    let p = Pkg::new(MANIFEST, "");
    // Latin-1 `é` (0xE9) in the text value, on line 11.
    p.write_bytes("contracts/main.yaml", &spliced(&text, "Hello", b"caf\xE9"));
    let (loader, c) = p.compile();
    assert_eq!(c.diagnostics.len(), 1, "{:#?}", c.diagnostics);
    let d = &c.diagnostics[0];
    assert_eq!(d.code, Code::ParseYaml);
    assert_eq!(
        d.message,
        "invalid YAML: the text is not UTF-8: invalid byte 0xE9"
    );
    assert!(
        d.help
            .as_deref()
            .unwrap()
            .contains("save the file as UTF-8")
    );
    at(d, "contracts/main.yaml", 11);
    assert_eq!(d.span.unwrap().start.column, 34);
    // The snippet is the valid text before the byte, the caret after it.
    let out = rendered(&loader, &c.diagnostics);
    let snippet = format!(
        " --> contracts/main.yaml:11:34\n   |\n11 |       - {{ kind: text, value: \"caf\n   |{}^\n",
        " ".repeat(34)
    );
    assert!(out.contains(&snippet), "{out}");
    // The file was read: a build reruns when it is fixed.
    assert!(
        loader
            .files_read
            .iter()
            .any(|f| f.ends_with("contracts/main.yaml"))
    );
}

#[test]
fn a_manifest_or_partial_that_is_not_utf8_is_a_located_yaml_error() {
    let p = Pkg::new(MANIFEST, &contract(INCLUDE_INTRO));
    p.write_bytes(
        "templiqx.yaml",
        &spliced(MANIFEST, "scratch", b"scr\xFFtch"),
    );
    let mut loader = Loader::new(p.root());
    let diagnostics = loader.load_package(p.root()).unwrap_err();
    let d = one(&diagnostics, Code::ParseYaml);
    assert_eq!(diagnostics.len(), 1);
    at(d, "templiqx.yaml", 2);
    assert_eq!(d.span.unwrap().start.column, 13);

    // A partial is reported as every malformed partial is: in the partial,
    // as `TQX_INCLUDE_INVALID` naming the parse code, with the chain.
    let p = Pkg::new(MANIFEST, &contract(INCLUDE_INTRO));
    p.write_bytes(
        "partials/intro.yaml",
        b"- { kind: text, value: ok }\n- \xC3",
    );
    let (_, c) = p.compile();
    assert_eq!(c.diagnostics.len(), 1, "{:#?}", c.diagnostics);
    let d = one(&c.diagnostics, Code::IncludeInvalid);
    assert_eq!(
        d.message,
        "malformed partial: invalid YAML: the text is not UTF-8: it ends inside a multi-byte character (TQX_PARSE_YAML)"
    );
    at(d, "partials/intro.yaml", 2);
    assert_eq!(d.span.unwrap().start.column, 3);
    assert!(
        d.notes.iter().any(|n| n.contains("contracts/main.yaml:11")),
        "{:?}",
        d.notes
    );
}

#[test]
fn a_byte_order_mark_is_skipped_without_moving_columns_or_fingerprints() {
    let text = contract("      - { kind: text, value: \"Hello\" }\n");
    let plain = Pkg::new(MANIFEST, &text);
    let bom = Pkg::new(MANIFEST, &format!("\u{feff}{text}"));
    let fingerprints = |p: &Pkg| {
        let (loader, c) = p.compile();
        let i = c
            .interaction
            .unwrap_or_else(|| panic!("{:#?}", c.diagnostics));
        (
            i.contract_fingerprint.to_string(),
            i.interaction_fingerprint.to_string(),
            loader.fingerprint(),
        )
    };
    let (a, b) = (fingerprints(&plain), fingerprints(&bom));
    assert_eq!((&a.0, &a.1), (&b.0, &b.1));
    // The package fingerprint is over the files' bytes, and a BOM is bytes.
    assert_ne!(a.2, b.2);

    // An error on line 1 has the column an editor shows.
    let wrong = text.replacen("api_version: templiqx/v1alpha1", "api_version: [x]", 1);
    let bom = Pkg::new(MANIFEST, &format!("\u{feff}{wrong}"));
    let (loader, c) = bom.compile();
    let d = &c.diagnostics[0];
    at(d, "contracts/main.yaml", 1);
    assert_eq!(d.span.unwrap().start.column, 14);
    let out = rendered(&loader, &c.diagnostics);
    assert!(
        out.contains("1 | api_version: [x]\n  |              ^^^\n"),
        "{out}"
    );
}

#[test]
fn lone_carriage_returns_end_lines() {
    let text = contract("      - { kind: text, value: \"Hello\" }\n");
    let plain = Pkg::new(MANIFEST, &text);
    let cr = Pkg::new(&MANIFEST.replace('\n', "\r"), &text.replace('\n', "\r"));
    let crlf = Pkg::new(MANIFEST, &text.replace('\n', "\r\n"));
    let fp = |p: &Pkg| {
        let (_, c) = p.compile();
        let i = c
            .interaction
            .unwrap_or_else(|| panic!("{:#?}", c.diagnostics));
        i.contract_fingerprint.to_string()
    };
    assert_eq!(fp(&plain), fp(&cr));
    assert_eq!(fp(&plain), fp(&crlf));

    // An unknown field on line 3, then line 11: located and shown as such.
    let wrong = text
        .replacen("version: 0.1.0", "versoin: 0.1.0", 1)
        .replacen("value: \"Hello\"", "vaule: \"Hello\"", 1);
    for (name, breaks) in [("lf", "\n"), ("cr", "\r"), ("crlf", "\r\n")] {
        let p = Pkg::new(MANIFEST, &wrong.replace('\n', breaks));
        let (loader, c) = p.compile();
        let d = one(&c.diagnostics, Code::UnknownField);
        at(d, "contracts/main.yaml", 3);
        assert_eq!(d.span.unwrap().start.column, 1, "{name}");
        let out = rendered(&loader, &c.diagnostics);
        assert!(
            out.contains(" --> contracts/main.yaml:3:1\n  |\n3 | versoin: 0.1.0\n  | ^^^^^^^\n"),
            "{name}: {out}"
        );
        assert!(
            out.contains(
                "11 |       - { kind: text, vaule: \"Hello\" }\n   |                       ^^^^^\n"
            ),
            "{name}: {out}"
        );
    }
}

/// The manifest is read with the contract readers: one wording for a
/// missing field, a value of the wrong kind and a closed tool-contract
/// entry, each located at its own line and pointer.
#[test]
fn manifests_are_read_with_the_contract_readers() {
    let manifest = "package: scratch\nversion: 1\ncontracts: main\nprovenance: [x]\ntool_contracts:\n  search: { fingerprint: 7, schem: {} }\napi_versoin: x\n";
    let p = Pkg::new(manifest, &contract("      - { kind: text, value: x }\n"));
    let mut loader = Loader::new(p.root());
    let diags = loader.compile_package(p.root(), &target()).unwrap_err();
    let shown: Vec<String> = diags
        .iter()
        .map(|d| {
            format!(
                "{} {} {} | {}",
                d.code,
                d.json_pointer.as_deref().unwrap_or("-"),
                d.message,
                d.help.as_deref().unwrap_or("-")
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            "TQX_UNKNOWN_FIELD /api_versoin unknown field `api_versoin` in the package manifest | did you mean `api_version`?",
            "TQX_MISSING_FIELD  missing field `api_version` in the package manifest | add `api_version:` to the package manifest",
            "TQX_INVALID_TYPE /version `version` must be a string, found a number | quote the value to make it a string",
            "TQX_INVALID_TYPE /contracts `contracts` must be an array, found a string | write an array here",
            "TQX_UNKNOWN_FIELD /tool_contracts/search/schem unknown field `schem` in a tool contract | did you mean `schema`?",
            "TQX_MISSING_FIELD /tool_contracts/search missing field `schema` in a tool contract | add `schema:` to a tool contract",
            "TQX_INVALID_TYPE /tool_contracts/search/fingerprint `fingerprint` must be a string, found a number | quote the value to make it a string",
            "TQX_INVALID_TYPE /provenance `provenance` must be an object, found an array | write an object here",
        ],
        "{shown:#?}"
    );
    assert!(
        diags
            .iter()
            .all(|d| d.file.as_deref() == Some("templiqx.yaml"))
    );
    at(one(&diags, Code::UnknownField), "templiqx.yaml", 7);
    at(one(&diags, Code::InvalidType), "templiqx.yaml", 2);

    // A manifest that is not a mapping at all.
    let p = Pkg::new("- a\n", &contract("      - { kind: text, value: x }\n"));
    let mut loader = Loader::new(p.root());
    let diags = loader.compile_package(p.root(), &target()).unwrap_err();
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(
        diags[0].message,
        "the package manifest must be an object, found an array"
    );
}

#[test]
fn one_contract_of_a_package_compiles_alone_and_reads_only_what_it_needs() {
    // Two contracts, each with its own partial: compiling `main` alone must
    // read the manifest, `main` and its partial, never `other` or its
    // partial, and give exactly the interaction the whole-package compile
    // gives for `main` (what `include_contract!(package = …)` relies on).
    let manifest = "api_version: templiqx/v1alpha1\npackage: scratch\nversion: 0.1.0\ncontracts: [main, other]\n";
    let p = Pkg::new(
        manifest,
        &contract("      - { kind: include, path: partials/main.yaml }\n"),
    );
    p.write(
        "partials/main.yaml",
        "- { kind: text, value: \"main partial\" }\n",
    );
    p.write(
        "contracts/other.yaml",
        &contract("      - { kind: include, path: partials/other.yaml }\n")
            .replace("id: main", "id: other"),
    );
    p.write(
        "partials/other.yaml",
        "- { kind: text, value: \"other partial\" }\n",
    );

    let mut alone = Loader::new(p.root());
    let main = alone
        .compile_package_contract(p.root(), "main", &target())
        .unwrap_or_else(|d| panic!("manifest: {d:?}"));
    assert!(main.diagnostics.is_empty(), "{:#?}", main.diagnostics);
    let read: Vec<String> = alone
        .files_read
        .iter()
        .map(|f| {
            f.strip_prefix(p.root().canonicalize().unwrap())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    assert_eq!(
        read,
        ["templiqx.yaml", "contracts/main.yaml", "partials/main.yaml"]
    );

    let mut whole = Loader::new(p.root());
    let all = whole.compile_package(p.root(), &target()).unwrap();
    let from_whole = all.into_iter().find(|c| c.id == "main").unwrap();
    assert_eq!(main.interaction, from_whole.interaction);
    assert_eq!(
        main.interaction.as_ref().unwrap().interaction_fingerprint,
        from_whole
            .interaction
            .as_ref()
            .unwrap()
            .interaction_fingerprint
    );
    assert!(whole.files_read.len() > alone.files_read.len());

    // A contract the manifest does not list is `TQX_PACKAGE` at the
    // manifest's list, with the closest id suggested; a broken manifest is
    // still its own error.
    let diags = Loader::new(p.root())
        .compile_package_contract(p.root(), "mian", &target())
        .unwrap_err();
    let d = one(&diags, Code::Package);
    assert_eq!(d.message, "package `scratch` lists no contract `mian`");
    assert_eq!(d.json_pointer.as_deref(), Some("/contracts"));
    assert_eq!(d.help.as_deref(), Some("did you mean `main`?"));
    at(d, "templiqx.yaml", 4);
    let diags = Loader::new(p.root())
        .compile_package_contract(p.root(), "zzz", &target())
        .unwrap_err();
    assert_eq!(
        one(&diags, Code::Package).help.as_deref(),
        Some("the package lists `main`, `other`")
    );
    p.write("templiqx.yaml", "api_version: templiqx/v1alpha1\n");
    assert!(
        Loader::new(p.root())
            .compile_package_contract(p.root(), "main", &target())
            .is_err()
    );
}
