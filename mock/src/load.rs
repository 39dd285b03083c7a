//! A scenario with its documents: the manifest, its request and its
//! expected output, read from a corpus with every path confined to the
//! corpus root.

use crate::document::{Document, decode_value};
use crate::error::MockError;
use crate::fingerprint::scenario_fingerprint;
use crate::scenario::{Problems, ScenarioManifest};
use serde::{Deserialize, Serialize};
use std::path::{Component, Path, PathBuf};
use templiqx_contracts::canonical::fingerprint;
use templiqx_contracts::{Code, Diagnostic};

/// A request document: the values a contract is rendered from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioRequest {
    /// The contract's `inputs`.
    #[serde(default)]
    pub inputs: templiqx_contracts::JsonMap,
    /// The contract's `context`.
    #[serde(default)]
    pub context: templiqx_contracts::JsonMap,
}

/// A validated manifest with the documents it names.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The manifest (every rule of [`ScenarioManifest::validate`] holds).
    pub manifest: ScenarioManifest,
    /// Where the manifest was read from (canonical), when it was read.
    pub path: Option<PathBuf>,
    /// The request document named by `input`, when given.
    pub request: Option<ScenarioRequest>,
    /// The document named by `expected_output`, when given.
    pub expected_output: Option<templiqx_contracts::Json>,
}

impl Scenario {
    /// A scenario from in-memory parts; the manifest's `input` and
    /// `expected_output` paths are not read, `request` and
    /// `expected_output` stand for them.
    ///
    /// # Errors
    ///
    /// Every rule of [`ScenarioManifest::validate`], and `TQX_SCENARIO`
    /// when `expected_output_fingerprint` is not the fingerprint of
    /// `expected_output`.
    pub fn from_parts(
        manifest: ScenarioManifest,
        request: Option<ScenarioRequest>,
        expected_output: Option<templiqx_contracts::Json>,
    ) -> Result<Scenario, MockError> {
        manifest.validate()?;
        let scenario = Scenario {
            manifest,
            path: None,
            request,
            expected_output,
        };
        scenario.check_output_fingerprint()?;
        Ok(scenario)
    }

    /// Reads the manifest at `path` (JSON, or YAML for `.yaml`/`.yml`) and
    /// the documents it names. `root` is the corpus root: the manifest and
    /// every path it names (relative to the manifest, `..` allowed) must
    /// resolve inside it, symlinks included.
    ///
    /// # Errors
    ///
    /// `TQX_IO`, parse and shape errors, every rule of
    /// [`ScenarioManifest::validate`], and `TQX_SCENARIO` for a path that
    /// leaves `root` or an `expected_output_fingerprint` that is not the
    /// fingerprint of `expected_output`. Diagnostics name the manifest file
    /// (relative to `root`) and the field.
    pub fn load(path: &Path, root: &Path) -> Result<Scenario, MockError> {
        let root = canonical_root(root)?;
        let display = display(path, &root);
        let real = std::fs::canonicalize(path).map_err(|e| {
            Diagnostic::error(Code::Io, format!("cannot read {display}: {e}"))
                .in_file(&display)
                .help("check the manifest path")
        })?;
        if !real.starts_with(&root) {
            return Err(Diagnostic::error(
                Code::Scenario,
                format!("the manifest {display} resolves outside the corpus root"),
            )
            .in_file(&display)
            .help("keep scenario manifests inside the corpus")
            .into());
        }
        let display = display_rel(&real, &root);
        let document = Document::read(&real, &display)?;
        let in_file = |e: MockError| MockError {
            diagnostics: e
                .diagnostics
                .into_iter()
                .map(|d| d.in_file(&display))
                .collect(),
        };
        let manifest = ScenarioManifest::from_document(&document).map_err(in_file)?;
        let dir = real.parent().unwrap_or(&root).to_path_buf();
        let mut problems = Vec::new();
        let mut resolve = |field: &str, rel: &Option<String>| -> Option<PathBuf> {
            let rel = rel.as_deref()?;
            match resolve_within(&root, &dir, rel) {
                Ok(p) => Some(p),
                Err(reason) => {
                    let mut p = Problems::new(&manifest.id);
                    p.push(
                        &format!("/{field}"),
                        format!("`{field}` {rel:?} {reason}"),
                        "name a file inside the corpus, relative to the manifest",
                    );
                    problems.extend(
                        p.diagnostics
                            .into_iter()
                            .map(|d| document.locate(d).in_file(&display)),
                    );
                    None
                }
            }
        };
        let input_path = resolve("input", &manifest.input);
        let output_path = resolve("expected_output", &manifest.expected_output);
        let mut request = None;
        if let Some(p) = input_path {
            let shown = display_rel(&p, &root);
            match Document::read(&p, &shown)
                .and_then(|d| decode_value::<ScenarioRequest>(&d.value).map_err(|e| d.locate(e)))
            {
                Ok(r) => request = Some(r),
                Err(d) => problems.push(d.in_file(&shown)),
            }
        }
        let mut expected_output = None;
        if let Some(p) = output_path {
            match Document::read(&p, &display_rel(&p, &root)) {
                Ok(d) => expected_output = Some(d.value),
                Err(d) => problems.push(d),
            }
        }
        if !problems.is_empty() {
            return Err(problems.into());
        }
        let scenario = Scenario {
            manifest,
            path: Some(real),
            request,
            expected_output,
        };
        scenario.check_output_fingerprint().map_err(|e| {
            MockError::from(
                e.diagnostics
                    .into_iter()
                    .map(|d| document.locate(d).in_file(&display))
                    .collect::<Vec<_>>(),
            )
        })?;
        Ok(scenario)
    }

    /// The payload-free scenario fingerprint of the manifest (see
    /// [`scenario_fingerprint`]); the documents do not enter it.
    pub fn fingerprint(&self) -> String {
        scenario_fingerprint(&self.manifest)
    }

    /// The scenario id.
    pub fn id(&self) -> &str {
        &self.manifest.id
    }

    fn check_output_fingerprint(&self) -> Result<(), MockError> {
        if let (Some(declared), Some(output)) = (
            &self.manifest.expected_output_fingerprint,
            &self.expected_output,
        ) {
            let actual = fingerprint(output);
            if *declared != actual {
                let mut p = Problems::new(&self.manifest.id);
                p.push(
                    "/expected_output_fingerprint",
                    format!(
                        "`expected_output_fingerprint` {declared} is not the fingerprint of the `expected_output` document ({actual})"
                    ),
                    "recompute the fingerprint: SHA-256 of the output's canonical JSON",
                );
                p.finish()?;
            }
        }
        Ok(())
    }
}

/// The canonical corpus root.
pub(crate) fn canonical_root(root: &Path) -> Result<PathBuf, Diagnostic> {
    std::fs::canonicalize(root).map_err(|e| {
        Diagnostic::error(
            Code::Io,
            format!("cannot open the corpus root {}: {e}", root.display()),
        )
        .help("pass the directory that holds the package directory")
    })
}

/// Resolves `rel` (relative to `base`, `/`-separated, `..` allowed) and
/// checks that it stays inside `root` lexically and after resolving
/// symlinks. `root` and `base` are canonical.
///
/// # Errors
///
/// Why the path is refused, as a phrase (`"leaves the corpus root"`).
pub(crate) fn resolve_within(root: &Path, base: &Path, rel: &str) -> Result<PathBuf, String> {
    if rel.is_empty() {
        return Err("is empty".into());
    }
    if rel.contains('\0') {
        return Err("contains a NUL character".into());
    }
    if rel.contains('\\') {
        return Err("contains a backslash (write `/` separators)".into());
    }
    let bytes = rel.as_bytes();
    if rel.starts_with('/')
        || (bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':')
    {
        return Err("is absolute (write it relative)".into());
    }
    let mut path = base.to_path_buf();
    for segment in rel.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                if !path.pop() || !path.starts_with(root) {
                    return Err("leaves the corpus root".into());
                }
            }
            s => path.push(s),
        }
    }
    if !path.starts_with(root) || path.components().any(|c| c == Component::ParentDir) {
        return Err("leaves the corpus root".into());
    }
    match std::fs::canonicalize(&path) {
        Ok(real) if real.starts_with(root) => Ok(real),
        Ok(_) => Err("resolves outside the corpus root (through a symlink)".into()),
        Err(_) => Err("does not exist".into()),
    }
}

/// `path` for diagnostics: relative to `root` when inside it.
pub(crate) fn display(path: &Path, root: &Path) -> String {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    display_rel(&abs, root)
}

pub(crate) fn display_rel(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_confined_to_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("pkg/scenarios/a")).unwrap();
        std::fs::write(root.join("pkg/input.json"), "{}").unwrap();
        let base = root.join("pkg/scenarios/a");
        assert_eq!(
            resolve_within(&root, &base, "../../input.json").unwrap(),
            root.join("pkg/input.json")
        );
        for (rel, why) in [
            ("../../../../outside.json", "leaves the corpus root"),
            ("/etc/passwd", "is absolute (write it relative)"),
            ("C:/x", "is absolute (write it relative)"),
            ("..\\x", "contains a backslash (write `/` separators)"),
            ("", "is empty"),
            ("missing.json", "does not exist"),
        ] {
            assert_eq!(resolve_within(&root, &base, rel).unwrap_err(), why, "{rel}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_root_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.json"), "{}").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.json"), root.join("link.json"))
            .unwrap();
        assert_eq!(
            resolve_within(&root, &root, "link.json").unwrap_err(),
            "resolves outside the corpus root (through a symlink)"
        );
    }
}
