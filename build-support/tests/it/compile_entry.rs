//! The one compile entry point ([`Compiler`]): over every package and
//! contract file of the repository's fixtures it reports exactly what the
//! per-front-end code it replaced reported (`templiqx check`'s loader calls
//! followed by `codegen::check_all`; the language server's compile-and-learn
//! loop without a target), and each of its choices — what a path is, why it
//! cannot be compiled, texts, extra files, `Target::Required` — is pinned
//! by a case.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use templiqx_build::{
    CompiledContract, CompiledInput, Compiler, InputKind, Loader, MANIFEST, Overlay,
    RealFileSystem, Target, codegen,
};
use templiqx_contracts::{CapabilityProfile, Code, Diagnostic};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .canonicalize()
        .unwrap()
}

fn profile() -> CapabilityProfile {
    CapabilityProfile::parse_list("structured_output,tools")
}

/// Every package directory and every contract file of the fixtures.
fn fixtures() -> (Vec<PathBuf>, Vec<PathBuf>) {
    let root = repo();
    let mut packages = Vec::new();
    let mut files = Vec::new();
    let mut stack: Vec<PathBuf> = ["examples", "tests/ui", "tests/contracts", "docs/examples"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    while let Some(dir) = stack.pop() {
        let mut entries: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n == "target") {
                    continue;
                }
                if path.join(MANIFEST).is_file() {
                    packages.push(path.clone());
                }
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml")
                && path.file_name().is_some_and(|n| n != MANIFEST)
                && fs::read_to_string(&path)
                    .is_ok_and(|t| t.contains("api_version: templiqx/v1alpha1"))
            {
                files.push(path);
            }
        }
    }
    assert!(packages.len() >= 6, "packages found: {packages:?}");
    assert!(files.len() >= 20, "contract files found: {}", files.len());
    (packages, files)
}

/// What `templiqx check` did before the entry point: load the package,
/// compile each listed contract, check code generation.
fn check_before(base: &Path, path: &Path, target: &CapabilityProfile) -> Vec<Diagnostic> {
    let mut loader = Loader::new(base);
    let mut problems = Vec::new();
    let mut contracts = Vec::new();
    if path.is_dir() {
        match loader.load_package(path) {
            Ok(index) => {
                for id in loader.package(index).manifest.contracts.clone() {
                    contracts.push(loader.compile_listed(index, &id, target));
                }
            }
            Err(d) => problems = d,
        }
    } else {
        contracts.push(loader.compile_file(path, target));
    }
    codegen_checked(&mut contracts, &loader);
    problems
        .into_iter()
        .chain(contracts.into_iter().flat_map(|c| c.diagnostics))
        .collect()
}

fn codegen_checked(contracts: &mut [CompiledContract], loader: &Loader) {
    let checked = codegen::check_all(contracts, &loader.sources);
    for (c, checked) in contracts.iter_mut().zip(checked) {
        if let Some(Err(diagnostics)) = checked {
            c.diagnostics.extend(diagnostics);
            c.interaction = None;
        }
    }
}

/// What the language server did without a target before the entry point:
/// compile for the capabilities learned so far, and again with the
/// contract's own when it needed more.
fn learned_before(base: &Path, path: &Path) -> Vec<Diagnostic> {
    let mut loader = Loader::new(base);
    let mut learned = CapabilityProfile::default();
    let mut compile =
        |loader: &mut Loader, f: &dyn Fn(&mut Loader, &CapabilityProfile) -> CompiledContract| {
            let compiled = f(loader, &learned);
            let unsupported = compiled.diagnostics.iter().any(|d| {
                matches!(
                    d.code,
                    Code::CapabilityUnsupported | Code::ExtensionUnsupported
                )
            });
            let Some(contract) = compiled.contract.as_ref().filter(|_| unsupported) else {
                return compiled;
            };
            learned
                .0
                .extend(templiqx_build::required_capabilities(contract).0);
            f(loader, &learned)
        };
    let mut problems = Vec::new();
    let mut contracts = Vec::new();
    if path.is_dir() {
        match loader.load_package(path) {
            Ok(index) => {
                for id in loader.package(index).manifest.contracts.clone() {
                    contracts.push(compile(&mut loader, &|l, p| {
                        l.compile_listed(index, &id, p)
                    }));
                }
            }
            Err(d) => problems = d,
        }
    } else {
        contracts.push(compile(&mut loader, &|l, p| l.compile_file(path, p)));
    }
    codegen_checked(&mut contracts, &loader);
    problems
        .into_iter()
        .chain(contracts.into_iter().flat_map(|c| c.diagnostics))
        .collect()
}

fn diagnostics(input: &CompiledInput) -> Vec<Diagnostic> {
    input.diagnostics().cloned().collect()
}

#[test]
fn a_profile_gives_what_check_gave_on_every_fixture() {
    let base = repo();
    let (packages, files) = fixtures();
    let compiler = Compiler::new(&base, Target::Profile(profile()));
    let mut with_errors = 0;
    for path in packages.iter().chain(&files) {
        let input = compiler.compile(path);
        let before = check_before(&base, path, &profile());
        assert_eq!(diagnostics(&input), before, "{}", path.display());
        with_errors += usize::from(input.has_errors());
    }
    // The fixtures hold broken contracts too: equality is not only of
    // empty lists.
    assert!(with_errors >= 10, "{with_errors} inputs with errors");
}

#[test]
fn required_capabilities_give_what_the_language_server_gave_on_every_fixture() {
    let base = repo();
    let (packages, files) = fixtures();
    let compiler = Compiler::new(&base, Target::Required);
    for path in packages.iter().chain(&files) {
        let input = compiler.compile(path);
        assert_eq!(
            diagnostics(&input),
            learned_before(&base, path),
            "{}",
            path.display()
        );
        assert!(
            !input.diagnostics().any(|d| matches!(
                d.code,
                Code::CapabilityUnsupported | Code::ExtensionUnsupported
            )),
            "{}",
            path.display()
        );
    }
}

#[test]
fn required_capabilities_are_the_contracts_own() {
    let base = repo();
    let input = Compiler::new(&base, Target::Required).compile(Path::new("examples/crm3"));
    assert_eq!(input.kind, InputKind::Package);
    assert!(!input.contracts.is_empty());
    for c in &input.contracts {
        let contract = c.contract.as_ref().unwrap();
        let interaction = c.interaction.as_ref().unwrap();
        let target: Vec<&str> = interaction
            .target_capabilities
            .iter()
            .map(|s| &**s)
            .collect();
        let required = templiqx_build::required_capabilities(contract);
        assert_eq!(target, required.iter().collect::<Vec<_>>(), "{}", c.id);
    }
    // An empty profile, by contrast, refuses them.
    let refused = Compiler::new(&base, Target::Profile(CapabilityProfile::default()))
        .compile(Path::new("examples/crm3"));
    assert!(
        refused
            .diagnostics()
            .any(|d| d.code == Code::CapabilityUnsupported)
    );
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

const CONTRACT: &str = "api_version: templiqx/v1alpha1
id: hello
version: 0.1.0
inputs:
  name: { schema: { type: string }, required: true }
capabilities: [structured_output]
messages:
  - role: user
    content:
      - { kind: text, value: \"Hello \" }
      - { kind: interpolate, expression: { kind: ref, path: inputs.name } }
output_schema: { type: object }
";

#[test]
fn what_a_path_is_and_why_it_cannot_be_compiled() {
    let dir = temp();
    let base = dir.path().canonicalize().unwrap();
    fs::create_dir_all(base.join("empty")).unwrap();
    fs::write(base.join("hello.yaml"), CONTRACT).unwrap();
    let compiler = Compiler::new(&base, Target::Profile(profile()));

    let file = compiler.compile(Path::new("hello.yaml"));
    assert_eq!(
        (file.kind, file.name.as_str()),
        (InputKind::File, "hello.yaml")
    );
    assert!(file.unusable.is_none());
    assert_eq!(file.contracts.len(), 1);
    assert!(!file.has_errors(), "{:?}", diagnostics(&file));

    let unusable = |input: &CompiledInput| {
        let d = input.unusable.as_ref().expect("unusable");
        assert_eq!(d.code, Code::Io);
        assert_eq!(d.file.as_deref(), Some(input.name.as_str()));
        assert!(d.help.is_some());
        assert!(input.contracts.is_empty());
        d.message.clone()
    };
    let empty = compiler.compile(Path::new("empty"));
    assert_eq!(empty.kind, InputKind::Absent);
    assert_eq!(
        unusable(&empty),
        "`empty` is not a package: it holds no `templiqx.yaml`"
    );
    let nowhere = compiler.compile(Path::new("nowhere"));
    assert_eq!(
        unusable(&nowhere),
        "cannot open `nowhere`: no such file or directory"
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("loop-b", base.join("loop-a")).unwrap();
        std::os::unix::fs::symlink("loop-a", base.join("loop-b")).unwrap();
        let looped = compiler.compile(Path::new("loop-a"));
        assert!(
            unusable(&looped).starts_with("`loop-a` is a loop of symbolic links ("),
            "{:?}",
            looped.unusable
        );
        let device = compiler.compile(Path::new("/dev/null"));
        assert_eq!(
            unusable(&device),
            "`/dev/null` is neither a regular file nor a directory (a device, a named pipe or a socket)"
        );
    }

    // A side that may be absent: nothing there is an empty input.
    let absent = compiler.clone().allow_absent(true);
    for path in ["empty", "nowhere"] {
        let input = absent.compile(Path::new(path));
        assert_eq!(input.kind, InputKind::Absent);
        assert!(input.diagnostics().next().is_none(), "{path}");
    }
}

#[test]
fn a_manifest_that_does_not_load_is_a_problem_of_the_package() {
    let dir = temp();
    let base = dir.path().canonicalize().unwrap();
    fs::write(base.join(MANIFEST), "package: [not a name\n").unwrap();
    let input = Compiler::new(&base, Target::Profile(profile())).compile(Path::new("."));
    assert_eq!((input.kind, input.name.as_str()), (InputKind::Package, "."));
    assert!(input.unusable.is_none());
    assert!(input.package.is_none());
    assert!(!input.problems.is_empty());
    assert_eq!(input.problems[0].code, Code::ParseYaml);
    assert!(input.contracts.is_empty());
}

#[test]
fn a_file_is_compiled_as_a_contract_whatever_is_there() {
    let dir = temp();
    let base = dir.path().canonicalize().unwrap();
    let compiler = Compiler::new(&base, Target::Profile(profile()));
    let input = compiler.compile_file(Path::new("."));
    assert_eq!(input.kind, InputKind::File);
    assert!(input.unusable.is_none());
    let [only] = input.contracts.as_slice() else {
        panic!("{:?}", input.contracts)
    };
    assert_eq!(only.diagnostics[0].code, Code::Io);
    assert!(
        only.diagnostics[0].message.ends_with("it is a directory"),
        "{}",
        only.diagnostics[0].message
    );
}

#[test]
fn a_text_compiles_as_the_file_at_its_path_with_its_package() {
    let dir = temp();
    let base = dir.path().canonicalize().unwrap();
    fs::write(
        base.join(MANIFEST),
        "api_version: templiqx/v1alpha1\npackage: demo\nversion: 0.1.0\ncontracts: []\n",
    )
    .unwrap();
    fs::create_dir_all(base.join("partials")).unwrap();
    fs::write(
        base.join("partials/tail.yaml"),
        "- { kind: text, value: \"!\" }\n",
    )
    .unwrap();
    let text = CONTRACT.replace(
        "inputs.name } }\n",
        "inputs.name } }\n      - { kind: include, path: partials/tail.yaml }\n",
    );
    let compiler = Compiler::new(&base, Target::Profile(profile()));
    // Nothing is on the disk at the path: the text is.
    let input = compiler.compile_text(Path::new("contracts/hello.yaml"), &text);
    assert_eq!(input.kind, InputKind::File);
    assert!(!input.has_errors(), "{:?}", diagnostics(&input));
    assert!(
        input
            .loader
            .files_read
            .contains(&base.join("partials/tail.yaml"))
    );
    assert!(!base.join("contracts/hello.yaml").exists());
    // A wrong text is located in the text's file.
    let wrong = compiler.compile_text(
        Path::new("contracts/hello.yaml"),
        &text.replace("inputs.name", "inputs.nmae"),
    );
    let d = wrong.diagnostics().next().unwrap();
    assert_eq!(d.code, Code::RefUnknown);
    assert_eq!(d.file.as_deref(), Some("contracts/hello.yaml"));
}

#[test]
fn extra_files_compile_after_the_listed_ones_unless_already_read() {
    let dir = temp();
    let base = dir.path().canonicalize().unwrap();
    fs::write(
        base.join(MANIFEST),
        "api_version: templiqx/v1alpha1\npackage: demo\nversion: 0.1.0\ncontracts: [hello]\n",
    )
    .unwrap();
    fs::create_dir_all(base.join("contracts")).unwrap();
    fs::write(base.join("contracts/hello.yaml"), CONTRACT).unwrap();
    let unlisted = base.join("contracts/bye.yaml");
    let mut overlay = Overlay::new(Arc::new(RealFileSystem));
    overlay.insert(&unlisted, CONTRACT.replace("id: hello", "id: bye"));
    let input = Compiler::new(&base, Target::Profile(profile()))
        .file_system(Arc::new(overlay))
        .extra_files(vec![base.join("contracts/hello.yaml"), unlisted])
        .compile(Path::new("."));
    let ids: Vec<&str> = input.contracts.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["hello", "bye"]);
    assert!(!input.has_errors(), "{:?}", diagnostics(&input));
}

#[test]
fn progress_names_each_contract_before_it_compiles() {
    let base = repo();
    let compiler = Compiler::new(&base, Target::Profile(profile()));
    let mut input = compiler.open(Path::new("examples/crm3"));
    let listed = input
        .loader
        .package(input.package.unwrap())
        .manifest
        .contracts
        .clone();
    assert_eq!(input.pending(), listed.len());
    assert!(input.contracts.is_empty());
    let mut seen = Vec::new();
    compiler.finish(&mut input, &mut |name| seen.push(name.to_owned()));
    assert_eq!(seen, listed);
    assert_eq!(input.pending(), 0);
    assert_eq!(input.contracts.len(), listed.len());
}

#[test]
fn code_generation_is_checked_unless_turned_off() {
    // Two fields that map to one Rust name.
    let colliding = CONTRACT.replace(
        "  name: { schema: { type: string }, required: true }\n",
        "  name: { schema: { type: string }, required: true }\n  Name: { schema: { type: string }, required: true }\n",
    );
    let dir = temp();
    let base = dir.path().canonicalize().unwrap();
    fs::write(base.join("hello.yaml"), colliding).unwrap();
    let compiler = Compiler::new(&base, Target::Profile(profile()));
    let checked = compiler.compile(Path::new("hello.yaml"));
    assert!(
        checked
            .diagnostics()
            .any(|d| d.code == Code::CodegenCollision),
        "{:?}",
        diagnostics(&checked)
    );
    assert!(checked.contracts[0].interaction.is_none());
    let unchecked = compiler
        .check_codegen(false)
        .compile(Path::new("hello.yaml"));
    assert!(!unchecked.has_errors(), "{:?}", diagnostics(&unchecked));
    assert!(unchecked.contracts[0].interaction.is_some());
}
