//! Keeps `docs/diagnostics.md` honest: every `Code` has a section, every
//! compile-time example produces exactly its code and exactly the
//! diagnostics the catalogue quotes, and every test the catalogue names
//! exists. (Render-time examples are run by `tests/tests/it/catalogue_render.rs`,
//! whose crate depends on the runtime; scenario examples, and every example
//! again through the `templiqx` binary, by `cli/tests/it/catalogue.rs`.)

use crate::catalogue_doc::{
    self, Example, Section, catalogue_path, check_produced, describe, matches, repo_root,
};
use std::fs;
use templiqx_build::Loader;
use templiqx_build::codegen::{self, Options};
use templiqx_build::compile_str;
use templiqx_contracts::{CapabilityProfile, Code, Diagnostic};

fn sections() -> Vec<Section> {
    let path = catalogue_path();
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    catalogue_doc::parse(&text)
}

/// The default manifest of a packaged example: it lists the contract.
fn manifest(id: &str) -> String {
    format!("api_version: templiqx/v1alpha1\npackage: example\nversion: 0.1.0\ncontracts: [{id}]\n")
}

/// Compiles an example as a front end does (compile, then generate code),
/// returning every diagnostic.
fn compile(example: &Example) -> Vec<Diagnostic> {
    let target = CapabilityProfile::parse_list(&example.target());
    if !example.packaged() {
        let c = compile_str(&example.contract.body, &example.contract_path(), &target);
        if let (Some(contract), Some(interaction)) = (&c.contract, &c.interaction) {
            return codegen::generate(contract, interaction, &c.sources, &Options::default())
                .err()
                .unwrap_or_default();
        }
        return c.diagnostics;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let write = |rel: &str, text: &str| {
        let p = dir.path().join(rel);
        fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        fs::write(p, text).expect("write");
    };
    if !example.files.iter().any(|(p, _)| p == "templiqx.yaml") {
        write("templiqx.yaml", &manifest(&example.id()));
    }
    write(&example.contract_path(), &example.contract.body);
    for (rel, text) in &example.files {
        write(rel, text);
    }
    let mut loader = Loader::new(dir.path());
    let compiled = match loader.compile_package(dir.path(), &target) {
        Ok(compiled) => compiled,
        Err(diagnostics) => return diagnostics,
    };
    let mut diagnostics = Vec::new();
    for c in &compiled {
        diagnostics.extend(c.diagnostics.iter().cloned());
        if let (Some(contract), Some(interaction)) = (&c.contract, &c.interaction)
            && let Err(d) =
                codegen::generate(contract, interaction, &loader.sources, &Options::default())
        {
            diagnostics.extend(d);
        }
    }
    diagnostics
}

#[test]
fn every_code_has_a_section_with_an_example_or_a_named_test() {
    let sections = sections();
    let mut problems = Vec::new();
    for code in Code::ALL {
        let found: Vec<&Section> = sections
            .iter()
            .filter(|s| s.code == code.as_str())
            .collect();
        match found.as_slice() {
            [] => problems.push(format!("{code}: no `## {code}` section")),
            [s] => {
                if s.examples.is_empty() && s.exercised_by.is_empty() {
                    problems.push(format!(
                        "{code}: the section has neither an example nor a `tqx-exercised-by` test"
                    ));
                }
            }
            _ => problems.push(format!("{code}: {} sections", found.len())),
        }
    }
    for s in &sections {
        if Code::parse(&s.code).is_none() {
            problems.push(format!(
                "docs/diagnostics.md:{}: `{}` is not a code",
                s.line, s.code
            ));
        }
        for e in &s.examples {
            if e.code != s.code {
                problems.push(format!(
                    "{}: an example of {} in the section of {}",
                    e.origin(),
                    e.code,
                    s.code
                ));
            }
            if e.expected.is_none() {
                problems.push(format!("{}: no `tqx-diagnostics` block", e.origin()));
            }
            if e.render && e.request.is_none() {
                problems.push(format!("{}: no `tqx-request` block", e.origin()));
            }
        }
    }
    // The sections follow the declaration order of `Code::ALL`.
    let order: Vec<&str> = sections.iter().map(|s| s.code.as_str()).collect();
    let declared: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
    if problems.is_empty() && order != declared {
        problems.push(format!(
            "sections are not in `Code::ALL` order:\n{order:?}\n{declared:?}"
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_compile_time_example_yields_exactly_its_code_and_quoted_diagnostics() {
    let mut problems = Vec::new();
    let mut count = 0;
    for section in sections() {
        for example in section.examples.iter().filter(|e| e.compile_time()) {
            count += 1;
            let diagnostics = compile(example);
            if diagnostics.is_empty() {
                problems.push(format!(
                    "{}: compiles without diagnostics",
                    example.origin()
                ));
                continue;
            }
            problems.extend(check_produced(
                &example.origin(),
                &example.code,
                example.expected.as_deref(),
                &diagnostics,
            ));
        }
    }
    assert!(count > 0, "no compile-time examples found");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn every_named_test_exists() {
    let mut problems = Vec::new();
    for section in sections() {
        for (file, test) in &section.exercised_by {
            let path = repo_root().join(file);
            match fs::read_to_string(&path) {
                Err(e) => problems.push(format!("{}: {file}: {e}", section.code)),
                Ok(text) => {
                    if !text.contains(&format!("fn {test}(")) {
                        problems.push(format!("{}: {file} has no `fn {test}(`", section.code));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_glob_matches_as_documented() {
    assert!(matches("a[…]c\n", "abbbc\n"));
    assert!(matches("exact\n", "exact\n"));
    assert!(!matches("a[…]c\n", "ab\n"));
    assert!(!matches("ab[…]ba\n", "aba\n"));
    assert!(!matches("one\n", "one\ntwo\n"));
}

#[test]
fn every_complete_contract_of_the_format_reference_compiles() {
    let path = catalogue_doc::format_path();
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let examples = catalogue_doc::parse_format(&text);
    assert!(
        !examples.is_empty(),
        "no `tqx-compiles` examples in docs/format.md"
    );
    let mut problems = Vec::new();
    for example in &examples {
        let target = CapabilityProfile::parse_list(&example.target());
        let c = compile_str(&example.contract.body, "contract.yaml", &target);
        let diagnostics = match (&c.contract, &c.interaction) {
            (Some(contract), Some(interaction)) => {
                codegen::generate(contract, interaction, &c.sources, &Options::default())
                    .err()
                    .unwrap_or_default()
            }
            _ => c.diagnostics,
        };
        if !diagnostics.is_empty() {
            problems.push(format!("{}:\n{}", example.origin(), describe(&diagnostics)));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
