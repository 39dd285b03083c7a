//! Reads the machine-readable parts of `docs/diagnostics.md`.
//!
//! Shared by `build-support/tests/it/catalogue.rs` (compile-time examples,
//! coverage), `tests/tests/it/catalogue_render.rs` (render-time examples) and
//! `cli/tests/it/catalogue.rs` (every example through the `templiqx` binary),
//! whose test binaries include this file with `#[path]`.
//!
//! The layout (documented at the top of the catalogue):
//!
//! - a section per code, headed `## TQX_...`;
//! - ```` ```yaml tqx-example=CODE ```` : a complete contract that compiles
//!   to diagnostics all of code `CODE`. Optional attributes in the info
//!   string: `tqx-target=a,b` (default `structured_output`; `tqx-target=`
//!   is the empty profile), `tqx-package` (compile through a package even
//!   without extra files), `tqx-path=contracts/x.yaml` (where the contract
//!   file goes in the package; default `contracts/<id>.yaml`);
//! - ```` ```yaml tqx-file=relative/path ```` blocks right after it: extra
//!   package files (a `templiqx.yaml` among them replaces the default
//!   manifest);
//! - ```` ```yaml tqx-render-example=CODE ```` : a contract that compiles,
//!   followed by a ```` ```json tqx-request ```` block (`{inputs, context}`)
//!   whose render fails with diagnostics all of code `CODE`;
//! - ```` ```text tqx-diagnostics ```` after an example: exactly what the
//!   example produces, one `Display` line per diagnostic followed by its
//!   `  = help: ...` and `  = note: ...` lines. `[…]` matches any text;
//! - ```` ```yaml tqx-scenario=CODE tqx-path=docs/examples/scenarios/… ````
//!   (or ```` ```json ````): a file of the catalogue's scenario corpus,
//!   verbatim — a scenario manifest whose execution reports diagnostics all
//!   of code `CODE`, or a manifest that makes its inventory fail to load
//!   with that code. The inventory is `inventory.json` in the same
//!   directory. Run through `templiqx scenarios run` by
//!   `cli/tests/it/catalogue.rs`;
//! - ```` ```text tqx-exercised-by=runtime-tests ```` : lines
//!   `path/from/repo/root.rs::test_function` naming the tests that exercise
//!   a code no contract or request can show.

#![allow(dead_code)]

use std::path::PathBuf;

/// The catalogue's path.
pub fn catalogue_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/diagnostics.md")
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fenced block.
#[derive(Clone, Debug)]
pub struct Block {
    /// The words of the info string after the language.
    pub attrs: Vec<String>,
    /// The language (`yaml`, `json`, `text`, ...).
    pub lang: String,
    /// The body, with a final newline.
    pub body: String,
    /// 1-based line of the opening fence.
    pub line: usize,
}

impl Block {
    /// The value of `key=value` in the info string.
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs.iter().find_map(|a| {
            a.strip_prefix(key)
                .and_then(|rest| rest.strip_prefix('='))
                .or_else(|| (a == key).then_some(""))
        })
    }
}

/// A compile-time or render-time example.
#[derive(Clone, Debug)]
pub struct Example {
    /// The code it must produce.
    pub code: String,
    /// The contract.
    pub contract: Block,
    /// `tqx-file` blocks: (relative path, text).
    pub files: Vec<(String, String)>,
    /// The `tqx-request` body, for render examples.
    pub request: Option<String>,
    /// The `tqx-diagnostics` body.
    pub expected: Option<String>,
    /// Whether it is a render example.
    pub render: bool,
    /// Whether it is a scenario example (`tqx-scenario`).
    pub scenario: bool,
}

impl Example {
    /// Where the example is, for failure messages.
    pub fn origin(&self) -> String {
        format!("docs/diagnostics.md:{} ({})", self.contract.line, self.code)
    }

    /// The target profile of the example (`structured_output` unless
    /// `tqx-target=` says otherwise).
    pub fn target(&self) -> String {
        self.contract
            .attr("tqx-target")
            .unwrap_or("structured_output")
            .to_owned()
    }

    /// The contract id, read from its top-level `id:` line.
    pub fn id(&self) -> String {
        self.contract
            .body
            .lines()
            .find_map(|l| l.strip_prefix("id:"))
            .map(|v| v.trim().trim_matches(|c| c == '\'' || c == '"').to_owned())
            .unwrap_or_else(|| "example".to_owned())
    }

    /// Whether it is a compile-time example (`tqx-example`).
    pub fn compile_time(&self) -> bool {
        !self.render && !self.scenario
    }

    /// A scenario example's file, from the repository root (`tqx-path=`).
    pub fn scenario_path(&self) -> Option<&str> {
        self.contract.attr("tqx-path").filter(|_| self.scenario)
    }

    /// Whether to compile through a package.
    pub fn packaged(&self) -> bool {
        !self.files.is_empty() || self.contract.attr("tqx-package").is_some()
    }

    /// The contract's file name: `tqx-path=`, or `contracts/<id>.yaml`.
    pub fn contract_path(&self) -> String {
        match self.contract.attr("tqx-path") {
            Some(p) => p.to_owned(),
            None => format!("contracts/{}.yaml", self.id()),
        }
    }
}

/// One `## TQX_...` section.
#[derive(Clone, Debug, Default)]
pub struct Section {
    /// The code in the heading.
    pub code: String,
    /// 1-based line of the heading.
    pub line: usize,
    /// Examples, in order.
    pub examples: Vec<Example>,
    /// `(file, test function)` pairs from `tqx-exercised-by` blocks.
    pub exercised_by: Vec<(String, String)>,
}

/// Parses the catalogue.
///
/// # Panics
/// On a layout error (a `tqx-file` or `tqx-diagnostics` block with no
/// example before it, a malformed `tqx-exercised-by` line, ...).
pub fn parse(text: &str) -> Vec<Section> {
    let mut sections: Vec<Section> = Vec::new();
    // Whether the last `## ` heading was a code's.
    let mut in_section = false;
    let mut lines = text.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        if let Some(code) = line.strip_prefix("## ") {
            let code = code.trim();
            in_section = code.starts_with("TQX_");
            if in_section {
                sections.push(Section {
                    code: code.to_owned(),
                    line: i + 1,
                    ..Section::default()
                });
            }
            continue;
        }
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        if info.trim().is_empty() {
            // An unlabelled block: skip to its end.
            for (_, l) in lines.by_ref() {
                if l.starts_with("```") {
                    break;
                }
            }
            continue;
        }
        let mut words = info.split_whitespace();
        let lang = words.next().unwrap_or_default().to_owned();
        let attrs: Vec<String> = words.map(str::to_owned).collect();
        let mut body = String::new();
        let mut closed = false;
        for (_, l) in lines.by_ref() {
            if l.starts_with("```") {
                closed = true;
                break;
            }
            body.push_str(l);
            body.push('\n');
        }
        assert!(closed, "docs/diagnostics.md:{}: unclosed block", i + 1);
        let block = Block {
            attrs,
            lang,
            body,
            line: i + 1,
        };
        if !block.attrs.iter().any(|a| a.starts_with("tqx-")) {
            continue;
        }
        assert!(
            in_section,
            "docs/diagnostics.md:{}: a tqx block outside a code section",
            block.line
        );
        let Some(section) = sections.last_mut() else {
            unreachable!("a code section was pushed")
        };
        let last_example = |section: &mut Section, what: &str| -> usize {
            assert!(
                !section.examples.is_empty(),
                "docs/diagnostics.md:{}: {what} block without an example before it",
                block.line
            );
            section.examples.len() - 1
        };
        if let Some(code) = block.attr("tqx-example") {
            section.examples.push(Example {
                code: code.to_owned(),
                contract: block.clone(),
                files: Vec::new(),
                request: None,
                expected: None,
                render: false,
                scenario: false,
            });
        } else if let Some(code) = block.attr("tqx-render-example") {
            section.examples.push(Example {
                code: code.to_owned(),
                contract: block.clone(),
                files: Vec::new(),
                request: None,
                expected: None,
                render: true,
                scenario: false,
            });
        } else if let Some(code) = block.attr("tqx-scenario") {
            assert!(
                block.attr("tqx-path").is_some_and(|p| !p.is_empty()),
                "docs/diagnostics.md:{}: a tqx-scenario block needs `tqx-path=`",
                block.line
            );
            section.examples.push(Example {
                code: code.to_owned(),
                contract: block.clone(),
                files: Vec::new(),
                request: None,
                expected: None,
                render: false,
                scenario: true,
            });
        } else if let Some(path) = block.attr("tqx-file") {
            let i = last_example(section, "a tqx-file");
            section.examples[i]
                .files
                .push((path.to_owned(), block.body.clone()));
        } else if block.attr("tqx-request").is_some() {
            let i = last_example(section, "a tqx-request");
            section.examples[i].request = Some(block.body.clone());
        } else if block.attr("tqx-diagnostics").is_some() {
            let i = last_example(section, "a tqx-diagnostics");
            section.examples[i].expected = Some(block.body.clone());
        } else if block.attr("tqx-exercised-by").is_some() {
            for l in block.body.lines().filter(|l| !l.trim().is_empty()) {
                let (file, test) = l.trim().split_once("::").unwrap_or_else(|| {
                    panic!(
                        "docs/diagnostics.md:{}: `{l}` is not `path::test_function`",
                        block.line
                    )
                });
                section
                    .exercised_by
                    .push((file.to_owned(), test.to_owned()));
            }
        } else {
            panic!(
                "docs/diagnostics.md:{}: unknown tqx block `{}`",
                block.line,
                block.attrs.join(" ")
            );
        }
    }
    sections
}

/// The catalogue's text form of diagnostics: each diagnostic's `Display`
/// line, then `  = help: ...` and one `  = note: ...` per note.
pub fn describe(diagnostics: &[templiqx_contracts::Diagnostic]) -> String {
    let mut out = String::new();
    for d in diagnostics {
        out.push_str(&format!("{d}\n"));
        if let Some(help) = &d.help {
            out.push_str(&format!("  = help: {help}\n"));
        }
        for note in &d.notes {
            out.push_str(&format!("  = note: {note}\n"));
        }
    }
    out
}

/// Whether `actual` matches the `expected` text, line by line, where `[…]`
/// in an expected line matches any run of characters.
pub fn matches(expected: &str, actual: &str) -> bool {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    e.len() == a.len() && e.iter().zip(&a).all(|(e, a)| glob(e, a))
}

fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split("[…]").collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if text.len() < first.len() + last.len() || !text.starts_with(first) || !text.ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

/// `docs/format.md`.
pub fn format_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/format.md")
}

/// A complete contract of `docs/format.md` (```` ```yaml tqx-compiles ````,
/// optionally `tqx-target=...`) that compiles without diagnostics, with an
/// optional ```` ```json tqx-request ```` and the ```` ```text tqx-rendered ````
/// messages it renders to (per message a `--- <role>` line, then the
/// content and a newline).
#[derive(Clone, Debug)]
pub struct FormatExample {
    /// The contract.
    pub contract: Block,
    /// The request, if any.
    pub request: Option<String>,
    /// The expected rendered messages, if any.
    pub rendered: Option<String>,
}

impl FormatExample {
    /// Where the example is, for failure messages.
    pub fn origin(&self) -> String {
        format!("docs/format.md:{}", self.contract.line)
    }

    /// The target profile of the example.
    pub fn target(&self) -> String {
        self.contract
            .attr("tqx-target")
            .unwrap_or("structured_output")
            .to_owned()
    }
}

/// Every fenced block with an info string, in order.
pub fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        let mut words = info.split_whitespace();
        let lang = words.next().unwrap_or_default().to_owned();
        let attrs: Vec<String> = words.map(str::to_owned).collect();
        let mut body = String::new();
        for (_, l) in lines.by_ref() {
            if l.starts_with("```") {
                break;
            }
            body.push_str(l);
            body.push('\n');
        }
        out.push(Block {
            attrs,
            lang,
            body,
            line: i + 1,
        });
    }
    out
}

/// The `tqx-compiles` examples of `docs/format.md`.
///
/// # Panics
/// On a `tqx-request` or `tqx-rendered` block without an example before it.
pub fn parse_format(text: &str) -> Vec<FormatExample> {
    let mut out: Vec<FormatExample> = Vec::new();
    for block in blocks(text) {
        if block.attr("tqx-compiles").is_some() {
            out.push(FormatExample {
                contract: block,
                request: None,
                rendered: None,
            });
        } else if block.attr("tqx-request").is_some() {
            let e = out.last_mut().unwrap_or_else(|| {
                panic!(
                    "docs/format.md:{}: tqx-request without an example",
                    block.line
                )
            });
            e.request = Some(block.body);
        } else if block.attr("tqx-rendered").is_some() {
            let e = out.last_mut().unwrap_or_else(|| {
                panic!(
                    "docs/format.md:{}: tqx-rendered without an example",
                    block.line
                )
            });
            e.rendered = Some(block.body);
        }
    }
    out
}

/// Compares what an example produced with what the catalogue says: exactly
/// `code` (no other code) and, when quoted, the quoted diagnostics. Returns
/// the problem, if any, prefixed with `origin`.
pub fn check_produced(
    origin: &str,
    code: &str,
    expected: Option<&str>,
    diagnostics: &[templiqx_contracts::Diagnostic],
) -> Option<String> {
    let actual = describe(diagnostics);
    if let Some(other) = diagnostics.iter().find(|d| d.code.as_str() != code) {
        return Some(format!("{origin}: also produces {}:\n{actual}", other.code));
    }
    match expected {
        Some(expected) if !matches(expected, &actual) => Some(format!(
            "{origin}: the quoted diagnostics differ.\n--- quoted ---\n{expected}--- actual ---\n{actual}"
        )),
        _ => None,
    }
}
