//! The scenario inventory (`inventory.json`): the source of truth for scenario
//! discovery (`docs/mock.md`, "Inventory and paths"). Nothing scans
//! directories; a manifest the inventory does not list is not a scenario.
//!
//! Layout: the inventory sits inside a package
//! directory (the nearest ancestor holding `templiqx.yaml`, as cargo finds
//! `Cargo.toml`); the **corpus root** is the directory that holds the
//! package directory. Inventory `manifest` paths are relative to the corpus
//! root, manifest `input`/`expected_output` paths to the manifest, and all
//! of them must stay inside the corpus root.

use crate::document::Document;
use crate::error::MockError;
use crate::load::{Scenario, canonical_root, display_rel, resolve_within};
use crate::scenario::{ScenarioManifest, ScenarioStatus, check_api_version, is_fingerprint, is_id};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use templiqx_build::{Loader, MANIFEST};
use templiqx_contracts::{Code, Diagnostic};

/// The inventory document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InventoryFile {
    /// Must be exactly `templiqx.mock/v1alpha1`.
    pub api_version: String,
    /// The `package` name of the package manifest the inventory sits in.
    pub package: String,
    /// The scenarios, each listed once.
    pub scenarios: Vec<InventoryEntry>,
}

/// One inventory entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InventoryEntry {
    /// The scenario id; equal to the manifest's `id`, unique.
    pub id: String,
    /// The manifest path, relative to the corpus root, `/`-separated.
    pub manifest: String,
    /// What the HTTP transport must observe.
    pub expectation: TransportExpectation,
}

/// The transport-level expectation of an inventory entry (`docs/mock.md`,
/// "Inventory and paths").
///
/// Status, diagnostic code, schema validity and output fingerprint must agree
/// with the manifest (checked when the inventory loads); the receipt
/// fingerprint is the HTTP gateway's, computed with the transport stub
/// interaction (`docs/mock.md`, "Receipts and receipt modes"), and differs from
/// the manifest's in-process golden for a success.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransportExpectation {
    /// The logical status.
    pub status: ScenarioStatus,
    /// The failure code of a failing scenario; `null` for a success.
    #[serde(default)]
    pub diagnostic_code: Option<Code>,
    /// The declared schema validity of the output; `null` when the
    /// runtime fails before producing one.
    #[serde(default)]
    pub output_schema_valid: Option<bool>,
    /// The fingerprint of the accepted output; `null` for a failure.
    #[serde(default)]
    pub output_fingerprint: Option<String>,
    /// The exact payload-free receipt fingerprint over HTTP.
    pub receipt_fingerprint: String,
}

/// A loaded inventory: every entry with its validated scenario.
#[derive(Clone, Debug)]
pub struct Inventory {
    /// The inventory file (canonical).
    pub path: PathBuf,
    /// The directory that holds the package directory (canonical).
    pub corpus_root: PathBuf,
    /// The package directory, holding `templiqx.yaml` (canonical).
    pub package_dir: PathBuf,
    /// The package name (the inventory's `package`, equal to the
    /// manifest's).
    pub package: String,
    /// The contract ids the package manifest lists.
    pub contracts: Vec<String>,
    /// The entries, in inventory order.
    pub scenarios: Vec<InventoryScenario>,
}

/// An inventory entry and its scenario.
#[derive(Clone, Debug)]
pub struct InventoryScenario {
    /// The entry as written.
    pub entry: InventoryEntry,
    /// The scenario its manifest describes.
    pub scenario: Scenario,
}

/// The package directory of the inventory at the canonical path `real`:
/// the nearest ancestor directory holding `templiqx.yaml`.
fn package_dir_of(real: &Path) -> Option<PathBuf> {
    real.parent()
        .and_then(|dir| dir.ancestors().find(|a| a.join(MANIFEST).is_file()))
        .map(Path::to_path_buf)
}

/// The corpus root of a package directory: its parent (the directory
/// holding the package directory), or the package directory itself at the
/// file-system root.
fn corpus_dir(package_dir: &Path) -> &Path {
    package_dir.parent().unwrap_or(package_dir)
}

/// `TQX_SCENARIO`: the inventory at the canonical path `real` is in no
/// package.
fn not_in_a_package(real: &Path) -> Diagnostic {
    Diagnostic::error(
        Code::Scenario,
        format!(
            "the inventory {} is not inside a package (no `{MANIFEST}` in any parent directory)",
            real.display()
        ),
    )
    .help("keep the inventory inside the package its scenarios execute")
}

/// The corpus root of the inventory at `path`, as [`Inventory::load`]
/// finds it (the directory holding its package directory, canonicalised):
/// the diagnostics of a failed load name their files relative to it.
/// `None` when the inventory is in no package.
pub fn corpus_root_of(path: &Path) -> Option<PathBuf> {
    let real = std::fs::canonicalize(path).ok()?;
    let package = package_dir_of(&real)?;
    canonical_root(corpus_dir(&package)).ok()
}

/// The inventory's own problems: a `package` that is not the package it
/// sits in (`package`, whose manifest is displayed as `package_manifest`),
/// and no scenarios at all (fail closed: a run over nothing would pass,
/// checking nothing).
fn header_problems(file: &InventoryFile, package: &str, package_manifest: &str) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    if file.package != package {
        problems.push(
            Diagnostic::error(
                Code::Scenario,
                format!(
                    "the inventory's `package` {:?} is not the package it sits in ({package:?}, {package_manifest})",
                    file.package,
                ),
            )
            .at("/package")
            .help("set `package` to the `package` of the enclosing `templiqx.yaml`"),
        );
    }
    if file.scenarios.is_empty() {
        problems.push(
            Diagnostic::error(
                Code::Scenario,
                "the inventory lists no scenarios, so a conformance run would check nothing",
            )
            .at("/scenarios")
            .help("list at least one scenario under `scenarios`; a package without scenarios needs no inventory"),
        );
    }
    problems
}

/// One way an inventory entry disagrees with itself or its manifest:
/// the entry's field (a JSON Pointer below `/scenarios/<i>`), what is
/// wrong, and the help. [`Inventory::load`] makes each a `TQX_SCENARIO`
/// diagnostic naming the scenario.
struct Drift {
    field: &'static str,
    message: String,
    help: &'static str,
}

/// The entry's own problems: its `id` (a scenario id, not listed before;
/// `seen` records it) and the shape of its fingerprints.
fn entry_drift<'a>(
    i: usize,
    entry: &'a InventoryEntry,
    seen: &mut BTreeMap<&'a str, usize>,
) -> Vec<Drift> {
    let mut drift = Vec::new();
    if !is_id(&entry.id) {
        drift.push(Drift {
            field: "id",
            message: format!("`id` {:?} is not a scenario id", entry.id),
            help: "use ASCII letters, digits, `-`, `_` and `.`",
        });
    } else if let Some(first) = seen.insert(&entry.id, i) {
        drift.push(Drift {
            field: "id",
            message: format!("the id is listed twice (entries {first} and {i})"),
            help: "list each scenario once",
        });
    }
    let x = &entry.expectation;
    if !is_fingerprint(&x.receipt_fingerprint) {
        drift.push(Drift {
            field: "expectation/receipt_fingerprint",
            message: format!(
                "`receipt_fingerprint` {:?} is not a fingerprint",
                x.receipt_fingerprint
            ),
            help: "write 64 lowercase hex digits (a SHA-256)",
        });
    }
    if let Some(fp) = &x.output_fingerprint
        && !is_fingerprint(fp)
    {
        drift.push(Drift {
            field: "expectation/output_fingerprint",
            message: format!("`output_fingerprint` {fp:?} is not a fingerprint"),
            help: "write 64 lowercase hex digits (a SHA-256)",
        });
    }
    drift
}

/// Where the entry's expectation and the scenario manifest `m` it names
/// disagree: the expectation against the manifest's `expected_status`,
/// `expected_failure`, declared `output_schema_valid` and
/// `expected_output_fingerprint` (the manifest is what executes).
fn expectation_drift(entry: &InventoryEntry, m: &ScenarioManifest) -> Vec<Drift> {
    const AGREE: &str = "make the inventory and the manifest agree; the manifest is what executes";
    let show = |v: Option<String>| v.unwrap_or_else(|| "null".into());
    let x = &entry.expectation;
    let mut drift = Vec::new();
    if x.status != m.status() {
        drift.push(Drift {
            field: "expectation/status",
            message: format!(
                "the inventory's `status` ({}) disagrees with the manifest's `expected_status` ({})",
                x.status,
                m.status()
            ),
            help: AGREE,
        });
    }
    if x.diagnostic_code != m.expected_failure {
        drift.push(Drift {
            field: "expectation/diagnostic_code",
            message: format!(
                "the inventory's `diagnostic_code` ({}) disagrees with the manifest's `expected_failure` ({})",
                show(x.diagnostic_code.map(|c| c.to_string())),
                show(m.expected_failure.map(|c| c.to_string()))
            ),
            help: AGREE,
        });
    }
    if x.output_schema_valid != m.declared_output_schema_valid() {
        drift.push(Drift {
            field: "expectation/output_schema_valid",
            message: format!(
                "the inventory's `output_schema_valid` ({}) disagrees with the manifest's terminal `output_schema_valid` ({})",
                show(x.output_schema_valid.map(|b| b.to_string())),
                show(m.declared_output_schema_valid().map(|b| b.to_string()))
            ),
            help: AGREE,
        });
    }
    if x.output_fingerprint != m.expected_output_fingerprint {
        drift.push(Drift {
            field: "expectation/output_fingerprint",
            message: format!(
                "the inventory's `output_fingerprint` ({}) disagrees with the manifest's `expected_output_fingerprint` ({})",
                show(x.output_fingerprint.clone()),
                show(m.expected_output_fingerprint.clone())
            ),
            help: AGREE,
        });
    }
    drift
}

impl Inventory {
    /// Loads the inventory at `path` (JSON, or YAML for `.yaml`/`.yml`)
    /// and every scenario it lists, failing closed.
    ///
    /// Checked, with every problem collected: the document's shape and
    /// `api_version`; the package (nearest ancestor of the inventory holding
    /// `templiqx.yaml`, whose `package` must equal the inventory's); that
    /// it lists at least one scenario;
    /// each entry's `id` (a scenario id, unique), `receipt_fingerprint` and
    /// `output_fingerprint` when given (64 lowercase hex); its `manifest` path (inside the corpus root); the
    /// manifest itself ([`Scenario::load`]); that the manifest's `id`
    /// equals the entry's, that its `contract` is listed by the package
    /// manifest, and that the entry's `status`, `diagnostic_code`,
    /// `output_schema_valid` and `output_fingerprint` agree with the
    /// manifest's `expected_status`, `expected_failure`, declared
    /// `output_schema_valid` and `expected_output_fingerprint`.
    ///
    /// # Errors
    ///
    /// Every problem (see [`MockError`]); drift is `TQX_SCENARIO`, with a
    /// message naming the scenario and both fields, the inventory as file
    /// and the entry's field as JSON Pointer
    /// (`/scenarios/4/expectation/output_fingerprint`).
    pub fn load(path: impl AsRef<Path>) -> Result<Inventory, MockError> {
        let path = path.as_ref();
        let real = std::fs::canonicalize(path).map_err(|e| {
            Diagnostic::error(
                Code::Io,
                format!("cannot read the inventory {}: {e}", path.display()),
            )
            .help("pass the path of a scenario inventory (`scenarios/inventory.json`)")
        })?;
        let package_dir = package_dir_of(&real).ok_or_else(|| not_in_a_package(&real))?;
        let corpus_root = canonical_root(corpus_dir(&package_dir))?;
        let display = display_rel(&real, &corpus_root);
        let document = Document::read(&real, &display)?;
        let here = |d: Diagnostic| document.locate(d).in_file(&display);
        check_api_version(&document.value, "inventory").map_err(here)?;
        let file: InventoryFile = document.decode().map_err(here)?;

        let mut loader = Loader::new(&corpus_root);
        let package = loader.load_package(&package_dir)?;
        let manifest = &loader.package(package).manifest;
        let package_manifest = display_rel(&package_dir.join(MANIFEST), &corpus_root);
        let mut problems: Vec<Diagnostic> =
            header_problems(&file, &manifest.package, &package_manifest)
                .into_iter()
                .map(here)
                .collect();
        let contracts = manifest.contracts.clone();

        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        let mut scenarios = Vec::with_capacity(file.scenarios.len());
        for (i, entry) in file.scenarios.iter().enumerate() {
            let drift = |d: Drift| {
                here(
                    Diagnostic::error(
                        Code::Scenario,
                        format!("scenario `{}`: {}", entry.id, d.message),
                    )
                    .at(format!("/scenarios/{i}/{}", d.field))
                    .help(d.help.to_owned()),
                )
            };
            problems.extend(entry_drift(i, entry, &mut seen).into_iter().map(drift));
            let manifest_path = match resolve_within(&corpus_root, &corpus_root, &entry.manifest) {
                Ok(p) => p,
                Err(reason) => {
                    problems.push(drift(Drift {
                        field: "manifest",
                        message: format!("`manifest` {:?} {reason}", entry.manifest),
                        help: "give the manifest path relative to the corpus root (the directory holding the package directory)",
                    }));
                    continue;
                }
            };
            let scenario = match Scenario::load(&manifest_path, &corpus_root) {
                Ok(s) => s,
                Err(e) => {
                    problems.extend(e.diagnostics);
                    continue;
                }
            };
            let m = &scenario.manifest;
            if m.id != entry.id {
                problems.push(drift(Drift {
                    field: "id",
                    message: format!("the manifest {} has the id `{}`", entry.manifest, m.id),
                    help: "make the inventory id and the manifest id equal",
                }));
            }
            if !contracts.contains(&m.contract) {
                problems.push(drift(Drift {
                    field: "manifest",
                    message: format!(
                        "the manifest's `contract` `{}` is not listed by the package manifest ({package_manifest})",
                        m.contract,
                    ),
                    help: "name a contract id the package lists under `contracts`",
                }));
            }
            problems.extend(expectation_drift(entry, m).into_iter().map(drift));
            scenarios.push(InventoryScenario {
                entry: entry.clone(),
                scenario,
            });
        }
        if !problems.is_empty() {
            return Err(problems.into());
        }
        Ok(Inventory {
            path: real,
            corpus_root,
            package_dir,
            package: file.package,
            contracts,
            scenarios,
        })
    }

    /// The entry with id `id`.
    pub fn get(&self, id: &str) -> Option<&InventoryScenario> {
        self.scenarios.iter().find(|s| s.entry.id == id)
    }

    /// The scenario ids, in inventory order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.scenarios.iter().map(|s| s.entry.id.as_str())
    }
}
