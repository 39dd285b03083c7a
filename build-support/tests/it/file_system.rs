//! The loader's file abstraction (`docs/decisions.md`, "The compiler reads
//! files through a FileSystem"): compiling through an [`Overlay`] of
//! in-memory documents, and the paths the loader looked for and did not
//! find ([`Loader::looked_for`]).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use templiqx_build::{CompiledContract, FileSystem, Loader, MANIFEST, Overlay, RealFileSystem};
use templiqx_contracts::{CapabilityProfile, Code, Diagnostic};

fn target() -> CapabilityProfile {
    CapabilityProfile::parse_list("structured_output")
}

const PACKAGE: &str =
    "api_version: templiqx/v1alpha1\npackage: scratch\nversion: 0.1.0\ncontracts: [main]\n";

/// A contract `id` whose one user message holds `content` (content-node
/// lines, indented for the list).
fn contract(id: &str, content: &str) -> String {
    format!(
        "api_version: templiqx/v1alpha1\nid: {id}\nversion: 0.1.0\ninputs:\n  name: {{ schema: {{ type: string }}, required: true }}\ncapabilities: [structured_output]\nmessages:\n  - role: user\n    content:\n{content}output_schema: {{ type: object }}\n"
    )
}

const HELLO: &str = "      - { kind: text, value: 'Hello ' }\n      - { kind: interpolate, expression: { kind: ref, path: inputs.name } }\n";

/// A temporary directory (canonicalised: the loader reports real paths).
struct Dir {
    dir: tempfile::TempDir,
}

impl Dir {
    fn new() -> Dir {
        Dir {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.path(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, text).unwrap();
        p
    }

    /// A package: the manifest and `contracts/main.yaml`.
    fn package(main: &str) -> Dir {
        let d = Dir::new();
        d.write(MANIFEST, PACKAGE);
        d.write("contracts/main.yaml", main);
        d
    }
}

fn overlay() -> Overlay {
    Overlay::new(Arc::new(RealFileSystem))
}

/// Compiles the package in `root` through `fs` (names relative to `root`).
fn compile_through(root: &Path, fs: Overlay) -> (Loader, Vec<CompiledContract>) {
    let mut loader = Loader::with_file_system(root, Arc::new(fs));
    let compiled = loader
        .compile_package(root, &target())
        .unwrap_or_else(|d| panic!("manifest: {d:#?}"));
    (loader, compiled)
}

fn one(diags: &[Diagnostic], code: Code) -> &Diagnostic {
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0].code, code, "{diags:#?}");
    &diags[0]
}

/// Line and column (1-based, in characters) of `needle` in `text`.
fn position_of(text: &str, needle: &str) -> (u32, u32) {
    let at = text.find(needle).unwrap();
    let line = text[..at].matches('\n').count() + 1;
    let column = text[..at].rsplit('\n').next().unwrap().chars().count() + 1;
    (u32::try_from(line).unwrap(), u32::try_from(column).unwrap())
}

fn text_of(c: &CompiledContract) -> String {
    let i = c
        .interaction
        .as_ref()
        .unwrap_or_else(|| panic!("{:#?}", c.diagnostics));
    format!("{:?}", i.messages)
}

#[test]
fn an_overlaid_contract_gets_the_overlays_diagnostics() {
    let p = Dir::package(&contract("main", HELLO));
    let (_, on_disk) = compile_through(&p.root(), overlay());
    assert!(on_disk[0].diagnostics.is_empty(), "{on_disk:#?}");

    // The buffer moved the reference two lines down and misspelt it.
    let buffer = format!(
        "# unsaved\n# edits\n{}",
        contract("main", &HELLO.replace("inputs.name", "inputs.nmae"))
    );
    let mut o = overlay();
    o.insert(p.path("contracts/main.yaml"), buffer.as_str());
    let (loader, compiled) = compile_through(&p.root(), o);
    let d = one(&compiled[0].diagnostics, Code::RefUnknown);
    assert_eq!(d.file.as_deref(), Some("contracts/main.yaml"));
    let span = d.span.unwrap();
    assert_eq!(
        (span.start.line, span.start.column),
        position_of(&buffer, "inputs.nmae")
    );
    assert_eq!(d.help.as_deref(), Some("did you mean `inputs.name`?"));
    // The snippet source is the buffer, not the file on disk.
    let source = loader.sources.by_name("contracts/main.yaml").unwrap();
    assert_eq!(source.text, buffer);
    // The disk is untouched.
    assert_eq!(
        fs::read_to_string(p.path("contracts/main.yaml")).unwrap(),
        contract("main", HELLO)
    );
}

#[test]
fn the_fingerprint_hashes_what_the_overlay_shows() {
    let p = Dir::package(&contract("main", HELLO));
    let edited = contract("main", &HELLO.replace("Hello", "Hi"));
    let mut o = overlay();
    o.insert(p.path("contracts/main.yaml"), edited.as_str());
    let (through, compiled) = compile_through(&p.root(), o);
    assert!(text_of(&compiled[0]).contains("Hi "));

    // The same package with the buffer saved, read from disk.
    let saved = Dir::package(&edited);
    let mut from_disk = Loader::new(saved.root());
    let on_disk = from_disk.compile_package(&saved.root(), &target()).unwrap();
    assert_eq!(through.fingerprint(), from_disk.fingerprint());
    assert_eq!(
        compiled[0]
            .interaction
            .as_ref()
            .unwrap()
            .interaction_fingerprint,
        on_disk[0]
            .interaction
            .as_ref()
            .unwrap()
            .interaction_fingerprint
    );
    assert_eq!(
        through.files_read,
        vec![p.path(MANIFEST), p.path("contracts/main.yaml")]
    );

    // An empty overlay is the disk, byte for byte.
    let (empty, _) = compile_through(&p.root(), overlay());
    let mut plain = Loader::new(p.root());
    plain.compile_package(&p.root(), &target()).unwrap();
    assert_eq!(empty.fingerprint(), plain.fingerprint());
    assert_ne!(empty.fingerprint(), through.fingerprint());
}

#[test]
fn an_overlaid_partial_is_used_by_a_contract_on_disk() {
    let p = Dir::package(&contract(
        "main",
        "      - { kind: include, path: partials/intro.yaml }\n",
    ));
    p.write(
        "partials/intro.yaml",
        "- { kind: text, value: from-disk }\n",
    );
    let mut o = overlay();
    o.insert(
        p.path("partials/intro.yaml"),
        "- { kind: text, value: from-the-buffer }\n",
    );
    let (loader, compiled) = compile_through(&p.root(), o);
    let text = text_of(&compiled[0]);
    assert!(text.contains("from-the-buffer"), "{text}");
    assert!(!text.contains("from-disk"), "{text}");
    assert!(loader.files_read.contains(&p.path("partials/intro.yaml")));

    // A diagnostic inside the overlaid partial points into the buffer.
    let mut o = overlay();
    o.insert(
        p.path("partials/intro.yaml"),
        "# buffer\n- { kind: interpolate, expression: { kind: ref, path: inputs.nmae } }\n",
    );
    let (_, compiled) = compile_through(&p.root(), o);
    let d = one(&compiled[0].diagnostics, Code::RefUnknown);
    assert_eq!(d.file.as_deref(), Some("partials/intro.yaml"));
    assert_eq!(d.span.unwrap().start.line, 2);
}

#[test]
fn documents_only_in_the_overlay_compile() {
    // A partial and a second contract that exist only as buffers.
    let p = Dir::package(&contract(
        "main",
        "      - { kind: include, path: partials/new.yaml }\n",
    ));
    p.write(
        MANIFEST,
        "api_version: templiqx/v1alpha1\npackage: scratch\nversion: 0.1.0\ncontracts: [main, extra]\n",
    );
    let mut o = overlay();
    o.insert(
        p.path("partials/new.yaml"),
        "- { kind: text, value: unsaved-partial }\n",
    );
    o.insert(p.path("contracts/extra.yaml"), contract("extra", HELLO));
    assert!(!p.path("partials").exists());
    let (loader, compiled) = compile_through(&p.root(), o);
    assert_eq!(compiled.len(), 2);
    assert!(text_of(&compiled[0]).contains("unsaved-partial"));
    assert_eq!(compiled[1].id, "extra");
    assert_eq!(compiled[1].file, "contracts/extra.yaml");
    assert!(compiled[1].diagnostics.is_empty(), "{compiled:#?}");
    assert!(loader.looked_for.is_empty(), "{:?}", loader.looked_for);

    // A contract file and a manifest that exist only as buffers: the
    // package search finds the overlaid manifest.
    let d = Dir::new();
    let mut o = overlay();
    o.insert(d.path(MANIFEST), PACKAGE);
    o.insert(d.path("contracts/main.yaml"), contract("main", HELLO));
    let mut loader = Loader::with_file_system(d.root(), Arc::new(o));
    let c = loader.compile_file(&d.path("contracts/main.yaml"), &target());
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    assert_eq!(c.file, "contracts/main.yaml");
    assert_eq!(
        loader.files_read,
        vec![d.path(MANIFEST), d.path("contracts/main.yaml")]
    );
    // One directory searched before the package root was found.
    assert_eq!(loader.looked_for, vec![d.path("contracts").join(MANIFEST)]);
    assert!(fs::read_dir(d.root()).unwrap().next().is_none());
}

#[test]
fn looked_for_lists_the_ancestor_manifests_of_a_contract_without_a_package() {
    let d = Dir::new();
    let file = d.write("a/b/alone.yaml", &contract("alone", HELLO));
    let mut loader = Loader::new(d.root());
    let c = loader.compile_file(&file, &target());
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    assert_eq!(loader.files_read, vec![file.clone()]);
    // Every directory from the file's up: no manifest anywhere (unless the
    // machine has one above the temporary directory, where the search stops).
    let expected: Vec<PathBuf> = file
        .parent()
        .unwrap()
        .ancestors()
        .map(|a| a.join(MANIFEST))
        .take_while(|m| !m.is_file())
        .collect();
    assert_eq!(loader.looked_for, expected);
    assert_eq!(
        loader.looked_for[..3],
        [
            d.path("a/b").join(MANIFEST),
            d.path("a").join(MANIFEST),
            d.root().join(MANIFEST)
        ]
    );

    // Creating one of them changes the result: the file is now a contract of
    // a package that does not list it… compiled as a file of that package.
    d.write(
        "a/templiqx.yaml",
        "api_version: templiqx/v1alpha1\npackage: p\nversion: 0.1.0\ncontracts: []\n",
    );
    let mut loader = Loader::new(d.root());
    loader.compile_file(&file, &target());
    assert_eq!(loader.looked_for, vec![d.path("a/b").join(MANIFEST)]);
    assert_eq!(loader.files_read, vec![d.path("a/templiqx.yaml"), file]);
}

#[test]
fn looked_for_lists_include_and_dependency_paths_that_do_not_resolve() {
    let outer = Dir::new();
    let app = outer.path("app");
    let app_dir = |rel: &str| app.join(rel);
    fs::create_dir_all(app_dir("contracts")).unwrap();
    fs::write(
        app_dir(MANIFEST),
        format!("{PACKAGE}dependencies:\n  lib: ../lib\n  gone: ../gone/deeper\n"),
    )
    .unwrap();
    fs::create_dir_all(outer.path("lib")).unwrap();
    fs::write(
        app_dir("contracts/main.yaml"),
        contract(
            "main",
            "      - { kind: include, path: partials/missing.yaml }\n      - { kind: include, path: new/dir/partial.yaml }\n      - { kind: include, path: ../outside.yaml }\n      - { kind: include, path: partials/missing.yaml }\n      - { kind: include, path: p.yaml, from_dependency: lib }\n      - { kind: include, path: p.yaml, from_dependency: gone }\n      - { kind: include, path: p.yaml, from_dependency: undeclared }\n",
        ),
    )
    .unwrap();
    let mut loader = Loader::new(&app);
    let c = loader.compile_package(&app, &target()).unwrap().remove(0);
    assert_eq!(
        c.diagnostics
            .iter()
            .filter(|d| d.code == Code::IncludeUnresolved)
            .count(),
        7,
        "{:#?}",
        c.diagnostics
    );
    assert_eq!(
        loader.looked_for,
        vec![
            // Each once, made absolute inside the package root.
            app_dir("partials/missing.yaml"),
            app_dir("new/dir/partial.yaml"),
            // `lib` exists but is no package: its manifest is what is missing.
            outer.path("lib").join(MANIFEST),
            // `../gone/deeper`, without its `..`.
            outer.path("gone/deeper"),
        ]
    );
    assert_eq!(
        loader.files_read,
        vec![app_dir(MANIFEST), app_dir("contracts/main.yaml")]
    );

    // A listed contract whose file is missing.
    fs::remove_file(app_dir("contracts/main.yaml")).unwrap();
    let mut loader = Loader::new(&app);
    let c = loader.compile_package(&app, &target()).unwrap().remove(0);
    assert_eq!(c.diagnostics[0].code, Code::Io);
    assert_eq!(loader.looked_for, vec![app_dir("contracts/main.yaml")]);
}

#[test]
fn the_overlay_resolves_paths_through_its_base() {
    let d = Dir::new();
    d.write("on-disk.yaml", "disk\n");
    fs::create_dir_all(d.path("a-dir")).unwrap();
    let mut o = overlay();

    // A document only in memory: its parent is canonicalised on the disk.
    let new = d.path("sub/../new.yaml");
    fs::create_dir_all(d.path("sub")).unwrap();
    o.insert(&new, "new\n");
    assert!(o.is_file(&d.path("new.yaml")));
    assert!(!o.is_dir(&d.path("new.yaml")));
    assert_eq!(o.canonicalize(&new).unwrap(), d.path("new.yaml"));
    assert_eq!(o.read(&d.path("new.yaml")).unwrap(), b"new\n");
    assert!(!RealFileSystem.is_file(&d.path("new.yaml")));

    // A document over a file and over a directory.
    o.insert(d.path("on-disk.yaml"), b"\xEF\xBB\xBFbuffer\n".to_vec());
    assert_eq!(
        o.read(&d.path("on-disk.yaml")).unwrap(),
        b"\xEF\xBB\xBFbuffer\n"
    );
    o.insert(d.path("a-dir"), "a file now\n");
    assert!(o.is_file(&d.path("a-dir")) && !o.is_dir(&d.path("a-dir")));

    // Everything else is the base's.
    assert!(o.is_dir(&d.root()));
    assert_eq!(
        o.read(&d.path("absent.yaml")).unwrap_err().kind(),
        std::io::ErrorKind::NotFound
    );
    assert!(o.canonicalize(&d.path("absent.yaml")).is_err());

    // Removing a document shows the base again.
    assert!(o.remove(d.path("on-disk.yaml")));
    assert!(!o.remove(d.path("on-disk.yaml")));
    assert_eq!(o.read(&d.path("on-disk.yaml")).unwrap(), b"disk\n");
    assert!(o.remove(&new));
    assert!(!o.is_file(&d.path("new.yaml")));
    assert!(o.canonicalize(&d.path("new.yaml")).is_err());
}

#[test]
fn an_overlaid_document_too_large_is_an_io_error() {
    let p = Dir::package(&contract("main", HELLO));
    let mut o = overlay();
    let huge = vec![b'#'; usize::try_from(templiqx_build::text::MAX_SOURCE_BYTES).unwrap() + 1];
    o.insert(p.path("contracts/main.yaml"), huge);
    let (loader, compiled) = compile_through(&p.root(), o);
    let d = one(&compiled[0].diagnostics, Code::Io);
    assert!(d.message.contains("larger than 16 MiB"), "{}", d.message);
    assert!(!loader.files_read.contains(&p.path("contracts/main.yaml")));
}

/// Compiles the package at `root` through `fs`, with `cache` when given:
/// the loader, and each contract's diagnostics and interaction as text.
fn compile_cached(
    root: &Path,
    fs: Arc<dyn FileSystem>,
    cache: Option<&Arc<templiqx_build::ParseCache>>,
) -> (Loader, Vec<String>) {
    let mut loader = Loader::with_file_system(root, fs);
    if let Some(cache) = cache {
        loader = loader.with_parse_cache(Arc::clone(cache));
    }
    let compiled = loader.compile_package(root, &target()).unwrap();
    let shown = compiled
        .iter()
        .map(|c| format!("{:?}\n{:?}", c.diagnostics, c.interaction))
        .collect();
    (loader, shown)
}

#[test]
fn a_parse_cache_changes_no_result_and_parses_an_unchanged_text_once() {
    let crm3 = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/crm3")
        .canonicalize()
        .unwrap();
    let disk: Arc<dyn FileSystem> = Arc::new(RealFileSystem);
    let cache = Arc::new(templiqx_build::ParseCache::new());
    let (plain, expected) = compile_cached(&crm3, Arc::clone(&disk), None);
    let (first, once) = compile_cached(&crm3, Arc::clone(&disk), Some(&cache));
    let (second, twice) = compile_cached(&crm3, Arc::clone(&disk), Some(&cache));
    assert_eq!(once, expected);
    assert_eq!(twice, expected);
    assert_eq!(first.fingerprint(), plain.fingerprint());
    assert_eq!(second.fingerprint(), plain.fingerprint());
    // Every tree of the second compilation is the first one's.
    let files = first.sources.files().len();
    assert!(files >= 4, "{files} files read");
    for (a, b) in first.sources.files().iter().zip(second.sources.files()) {
        assert_eq!(a.name, b.name);
        assert!(Arc::ptr_eq(
            a.root.as_ref().unwrap(),
            b.root.as_ref().unwrap()
        ));
    }

    // An edited buffer is parsed anew: its diagnostics are its own.
    let extraction = crm3.join("contracts/lease-term-extraction.yaml");
    let text = fs::read_to_string(&extraction).unwrap();
    assert!(text.contains("inputs.clause_id"));
    let mut o = Overlay::new(Arc::clone(&disk));
    o.insert(
        &extraction,
        text.replacen("inputs.clause_id", "inputs.nmae", 1),
    );
    let fs: Arc<dyn FileSystem> = Arc::new(o);
    let (_, cached) = compile_cached(&crm3, Arc::clone(&fs), Some(&cache));
    let (_, fresh) = compile_cached(&crm3, fs, None);
    assert_eq!(cached, fresh);
    assert!(
        cached.iter().any(|c| c.contains("RefUnknown")),
        "{cached:?}"
    );
    assert_ne!(cached, expected);

    // A text that does not parse: the same diagnostic, cached or not.
    let p = Dir::package("id: [unclosed\n");
    let disk: Arc<dyn FileSystem> = Arc::new(RealFileSystem);
    let (_, plain) = compile_cached(&p.root(), Arc::clone(&disk), None);
    let (_, cached) = compile_cached(&p.root(), Arc::clone(&disk), Some(&cache));
    let (_, again) = compile_cached(&p.root(), disk, Some(&cache));
    assert!(plain[0].contains("ParseYaml"), "{plain:?}");
    assert_eq!(cached, plain);
    assert_eq!(again, plain);
}

#[test]
fn leaving_fingerprints_out_changes_nothing_else() {
    let crm3 = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/crm3")
        .canonicalize()
        .unwrap();
    let mut full = Loader::new(&crm3);
    let with = full.compile_package(&crm3, &target()).unwrap();
    let mut quick = Loader::new(&crm3).with_options(templiqx_build::CompileOptions {
        without_fingerprints: true,
        ..templiqx_build::CompileOptions::default()
    });
    let without = quick.compile_package(&crm3, &target()).unwrap();
    assert_eq!(with.len(), without.len());
    for (a, b) in with.iter().zip(&without) {
        assert_eq!(a.diagnostics, b.diagnostics);
        let (a, b) = (
            a.interaction.as_ref().unwrap(),
            b.interaction.as_ref().unwrap(),
        );
        assert_eq!(a.contract_fingerprint.len(), 64);
        assert_eq!(a.interaction_fingerprint.len(), 64);
        assert_eq!(b.contract_fingerprint, "");
        assert_eq!(b.interaction_fingerprint, "");
        let mut b = b.clone();
        b.contract_fingerprint = a.contract_fingerprint.clone();
        b.interaction_fingerprint = a.interaction_fingerprint.clone();
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
    }
}
