//! The fuzz harnesses of Templiqx, one function per entry point.
//!
//! Each function takes the raw bytes a fuzzer (or a corpus file) supplies,
//! drives one entry point the way a user or a model would reach it, and
//! panics when a property fails. The cargo-fuzz targets in `fuzz/` call them,
//! and so does the stable replay test (`tests/tests/it/fuzz_corpus.rs`), which
//! runs every committed corpus input in `cargo test`. Properties checked
//! everywhere:
//!
//! - no input panics;
//! - a failure is a diagnostic with a `TQX_*` code, a message and a help
//!   line (docs/decisions.md, "Diagnostics"), never an empty or partial result;
//! - each target's own property (round trips, verdicts), in its docs.
//!
//! Every function returns an [`Outcome`] so the replay test can check that a
//! corpus still reaches the accepting paths, not only the rejecting ones.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use templiqx_build::text::{self, Syntax};
use templiqx_contracts::{CapabilityProfile, Code, Diagnostic, Interaction};

pub mod lsp_edits;
pub mod structured;

/// What an input did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Accepted: compiled, loaded, rendered, or answered 200.
    Accepted,
    /// Refused with diagnostics (or a 4xx answer) that passed every check.
    Rejected,
}

/// The capability profile every harness compiles for (what the examples need).
pub fn profile() -> CapabilityProfile {
    CapabilityProfile::parse_list("structured_output,streaming")
}

/// The repository root (the harness crate's parent directory).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the harness lives in the workspace")
        .to_path_buf()
}

/// Panics unless every diagnostic is well-formed: a `TQX_*` code, a
/// non-empty one-line message and a non-empty help line.
pub fn check_diagnostics(diagnostics: &[Diagnostic]) {
    for d in diagnostics {
        assert!(
            d.code.as_str().starts_with("TQX_"),
            "a diagnostic without a stable code: {d:?}"
        );
        assert!(!d.message.trim().is_empty(), "an empty message: {d:?}");
        assert!(
            d.help.as_deref().is_some_and(|h| !h.trim().is_empty()),
            "a diagnostic without a help line: {d:?}"
        );
    }
}

/// Contract YAML → compile (`compile_str`), then code generation and a
/// render of every eval fixture of a contract that compiles.
///
/// Properties: a contract compiles exactly when there are no diagnostics;
/// diagnostics are well-formed and render with snippets; code generation of
/// a compiled contract succeeds or reports `TQX_CODEGEN_COLLISION`; a
/// render either succeeds with one message per declared message or fails
/// with diagnostics.
pub fn contract_yaml(data: &[u8]) -> Outcome {
    let Ok(source) = text::decode_slice(data, Syntax::Yaml) else {
        return Outcome::Rejected;
    };
    let c = templiqx_build::compile_str(source, "fuzz.yaml", &profile());
    assert_eq!(c.interaction.is_some(), c.diagnostics.is_empty());
    check_diagnostics(&c.diagnostics);
    let rendered = c.render_diagnostics();
    assert_eq!(rendered.is_empty(), c.diagnostics.is_empty());
    let (Some(contract), Some(interaction)) = (&c.contract, &c.interaction) else {
        return Outcome::Rejected;
    };
    match templiqx_build::codegen::generate(
        contract,
        interaction,
        &c.sources,
        &templiqx_build::codegen::Options::default(),
    ) {
        Ok(_) => {}
        Err(diagnostics) => {
            check_diagnostics(&diagnostics);
            assert!(
                diagnostics.iter().all(|d| d.code == Code::CodegenCollision),
                "{diagnostics:?}"
            );
        }
    }
    for eval in &contract.evals {
        render_checked(interaction, &eval.inputs, &eval.context);
    }
    Outcome::Accepted
}

/// Renders and checks the result's shape; returns whether it rendered.
fn render_checked(
    interaction: &Interaction,
    inputs: &dyn templiqx_contracts::ObjectView,
    context: &dyn templiqx_contracts::ObjectView,
) -> bool {
    match templiqx::render(interaction, inputs, context) {
        Ok(r) => {
            assert_eq!(r.messages.len(), interaction.messages.len());
            let fingerprint = r.request_fingerprint();
            assert_eq!(fingerprint.len(), 64);
            true
        }
        Err(e) => {
            assert!(
                !e.diagnostics.is_empty(),
                "a render error without diagnostics"
            );
            check_diagnostics(&e.diagnostics);
            false
        }
    }
}

/// Splits `data` at its first two NUL bytes: a raw NUL is refused by YAML
/// and JSON alike, so it never needs to be part of one of the parts.
fn parts<const N: usize>(data: &[u8]) -> [&[u8]; N] {
    let mut out = [&data[..0]; N];
    let mut rest = data;
    for (i, slot) in out.iter_mut().enumerate() {
        if i + 1 == N {
            *slot = rest;
            break;
        }
        match rest.iter().position(|b| *b == 0) {
            Some(at) => {
                *slot = &rest[..at];
                rest = &rest[at + 1..];
            }
            None => {
                *slot = rest;
                rest = &rest[rest.len()..];
            }
        }
    }
    out
}

/// A package directory from bytes: `manifest NUL contract NUL partial`
/// become `templiqx.yaml`, `contracts/c.yaml` and `partials/p.yaml` of a
/// fresh directory, which is then compiled (`Loader::compile_package`).
///
/// Properties: no panic; every diagnostic is well-formed and names a file;
/// a listed contract compiles exactly when it has no diagnostics.
pub fn package(data: &[u8]) -> Outcome {
    let [manifest, contract, partial] = parts::<3>(data);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = dir.path();
    std::fs::create_dir_all(root.join("contracts")).expect("mkdir");
    std::fs::create_dir_all(root.join("partials")).expect("mkdir");
    std::fs::write(root.join("templiqx.yaml"), manifest).expect("write");
    std::fs::write(root.join("contracts/c.yaml"), contract).expect("write");
    std::fs::write(root.join("partials/p.yaml"), partial).expect("write");
    let mut loader = templiqx_build::Loader::new(root);
    match loader.compile_package(root, &profile()) {
        Err(diagnostics) => {
            assert!(!diagnostics.is_empty());
            check_diagnostics(&diagnostics);
            for d in &diagnostics {
                assert!(d.file.is_some() || d.code == Code::Io, "{d:?}");
            }
            Outcome::Rejected
        }
        Ok(compiled) => {
            let mut all = true;
            for c in &compiled {
                assert_eq!(c.interaction.is_some(), c.diagnostics.is_empty());
                check_diagnostics(&c.diagnostics);
                all &= c.interaction.is_some();
            }
            let fingerprint = loader.fingerprint();
            assert_eq!(fingerprint.len(), 64);
            if all {
                Outcome::Accepted
            } else {
                Outcome::Rejected
            }
        }
    }
}

/// The example contracts, compiled once: `examples/packages/demo` (greeting)
/// and `examples/crm3` (extraction and drafting, with a partial).
pub fn examples() -> &'static [Interaction] {
    static EXAMPLES: OnceLock<Vec<Interaction>> = OnceLock::new();
    EXAMPLES.get_or_init(|| {
        let root = repo_root().join("examples");
        let mut out = Vec::new();
        for dir in ["packages/demo", "crm3"] {
            let mut loader = templiqx_build::Loader::new(&root);
            let compiled = loader
                .compile_package(&root.join(dir), &profile())
                .unwrap_or_else(|d| panic!("the example {dir} loads: {d:?}"));
            for c in compiled {
                out.push(
                    c.interaction
                        .unwrap_or_else(|| panic!("{} compiles: {:?}", c.id, c.diagnostics)),
                );
            }
        }
        out
    })
}

/// Request JSON → render, for every example contract.
///
/// The bytes are read as the CLI and the mock read a request document
/// (`templiqx_contracts::json::parse`: integers exact at any size,
/// duplicate keys refused); a
/// document `{"inputs": {...}, "context": {...}}` is rendered against each
/// example. Properties: no panic, a render succeeds with one message per
/// declared message or fails with well-formed diagnostics.
pub fn request(data: &[u8]) -> Outcome {
    let Ok(source) = text::decode_slice(data, Syntax::Json) else {
        return Outcome::Rejected;
    };
    let value = match templiqx_contracts::json::parse(source) {
        Ok(v) => v,
        Err(d) => {
            check_diagnostics(&[d]);
            return Outcome::Rejected;
        }
    };
    let empty = templiqx_contracts::JsonMap::new();
    let inputs = value
        .get("inputs")
        .and_then(|v| v.as_object())
        .unwrap_or(&empty);
    let context = value
        .get("context")
        .and_then(|v| v.as_object())
        .unwrap_or(&empty);
    let mut any = false;
    for interaction in examples() {
        any |= render_checked(interaction, inputs, context);
    }
    if any {
        Outcome::Accepted
    } else {
        Outcome::Rejected
    }
}

/// Bytes → canonical JSON.
///
/// Properties: canonical JSON reads back (our own readers accept what we
/// write) to the same value — same structure and strings, and numbers with
/// the same canonical spelling (RFC 8785 numbers are doubles, so the
/// spelling `1234567890123456800` of a double reads back as that exact
/// integer, which writes the same way) — canonicalising it again gives the
/// same bytes (idempotence) and the same fingerprint, and the fingerprint
/// is the SHA-256 of those bytes.
pub fn canonical(data: &[u8]) -> Outcome {
    let Ok(source) = text::decode_slice(data, Syntax::Json) else {
        return Outcome::Rejected;
    };
    let value = match templiqx_contracts::json::parse(source) {
        Ok(v) => v,
        Err(d) => {
            check_diagnostics(&[d]);
            return Outcome::Rejected;
        }
    };
    use templiqx_contracts::canonical::{fingerprint, sha256_hex, to_canonical_string};
    use templiqx_contracts::value::AsValue;
    let once = to_canonical_string(&value);
    let back = templiqx_contracts::json::parse(&once)
        .unwrap_or_else(|d| panic!("canonical JSON {once:?} does not parse back: {d:?}"));
    assert!(
        same(value.as_value(), back.as_value()),
        "canonical JSON changed the value: {once}"
    );
    let twice = to_canonical_string(&back);
    assert_eq!(once, twice, "canonical JSON is not idempotent");
    assert_eq!(fingerprint(&value), fingerprint(&back));
    assert_eq!(fingerprint(&value), sha256_hex(once.as_bytes()));
    Outcome::Accepted
}

/// Structural equality with numbers compared by their canonical spelling.
fn same(a: templiqx_contracts::ValueRef<'_>, b: templiqx_contracts::ValueRef<'_>) -> bool {
    use templiqx_contracts::ValueRef as V;
    use templiqx_contracts::canonical::write_number;
    match (a, b) {
        (V::Number(x), V::Number(y)) => {
            let (mut p, mut q) = (String::new(), String::new());
            let _ = write_number(x, &mut p);
            let _ = write_number(y, &mut q);
            p == q
        }
        (V::Array(x), V::Array(y)) => {
            x.len() == y.len()
                && (0..x.len()).all(|i| match (x.get(i), y.get(i)) {
                    (Some(p), Some(q)) => same(p, q),
                    _ => false,
                })
        }
        (V::Object(x), V::Object(y)) => {
            x.len() == y.len()
                && x.entries()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        (x, y) => x.json_eq(&y),
    }
}

/// A scratch copy of the `examples/` corpus, made once per process, into
/// which [`scenario`] writes its inputs.
fn scenario_corpus() -> &'static Path {
    static CORPUS: OnceLock<tempfile::TempDir> = OnceLock::new();
    CORPUS
        .get_or_init(|| {
            let dir = tempfile::tempdir().expect("a temporary directory");
            templiqx_conformance_suites::copy_tree(
                &repo_root().join("examples/crm3"),
                &dir.path().join("crm3"),
            );
            dir
        })
        .path()
}

/// A scenario document and an inventory → load.
///
/// `data` is `manifest NUL inventory`: the manifest is written as
/// `crm3/scenarios/fuzz/manifest.json` (`.yaml` when its first byte is
/// `#`, so both syntaxes are reached) and loaded with `Scenario::load`;
/// the inventory replaces `crm3/scenarios/inventory.json` of a copy of the
/// example corpus and is loaded with `Inventory::load`.
/// Properties: no panic; every failure is well-formed diagnostics.
pub fn scenario(data: &[u8]) -> Outcome {
    let [manifest, inventory] = parts::<2>(data);
    let root = scenario_corpus();
    let scenarios = root.join("crm3/scenarios");
    let dir = scenarios.join("fuzz");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let name = if manifest.first() == Some(&b'#') {
        "manifest.yaml"
    } else {
        "manifest.json"
    };
    std::fs::write(dir.join(name), manifest).expect("write");
    let mut accepted = false;
    match templiqx_mock::Scenario::load(&dir.join(name), root) {
        Ok(s) => {
            assert_eq!(s.fingerprint().len(), 64);
            accepted = true;
        }
        Err(e) => {
            assert!(!e.diagnostics.is_empty());
            check_diagnostics(&e.diagnostics);
        }
    }
    let original = std::fs::read(scenarios.join("inventory.json")).expect("read");
    std::fs::write(scenarios.join("inventory.json"), inventory).expect("write");
    let loaded = templiqx_mock::Inventory::load(scenarios.join("inventory.json"));
    std::fs::write(scenarios.join("inventory.json"), original).expect("restore");
    match loaded {
        Ok(i) => {
            assert!(
                i.ids().next().is_some(),
                "an inventory without scenarios loaded"
            );
            accepted = true;
        }
        Err(e) => {
            assert!(!e.diagnostics.is_empty());
            check_diagnostics(&e.diagnostics);
        }
    }
    if accepted {
        Outcome::Accepted
    } else {
        Outcome::Rejected
    }
}

struct Gateway {
    runtime: tokio::runtime::Runtime,
    router: axum::Router,
    ids: Vec<String>,
}

fn gateway_state() -> &'static Gateway {
    static GATEWAY: OnceLock<Gateway> = OnceLock::new();
    GATEWAY.get_or_init(|| {
        let root = repo_root().join("examples/crm3/scenarios");
        let catalog = templiqx_mock_gateway::Catalog::load(&root, &profile())
            .unwrap_or_else(|e| panic!("the example catalog loads: {e:?}"));
        let ids = catalog.ids().to_vec();
        let router =
            templiqx_mock_gateway::router(catalog, templiqx_mock_gateway::RouterOptions::default());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a Tokio runtime");
        Gateway {
            runtime,
            router,
            ids,
        }
    })
}

/// A gateway execute body through the router (`tower::ServiceExt::oneshot`,
/// no socket).
///
/// The first byte picks the scenario (modulo the inventory's length); the
/// rest is the body of `POST /v1/scenarios/{id}/execute` with
/// `content-type: application/json`. Properties: no panic (the router's
/// panic layer would answer 500 `internal`), every answer is 200 or a 4xx
/// with a JSON error body naming a code, and a 200 is a JSON object.
pub fn gateway(data: &[u8]) -> Outcome {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let Some((first, body)) = data.split_first() else {
        return Outcome::Rejected;
    };
    let g = gateway_state();
    let id = &g.ids[usize::from(*first) % g.ids.len()];
    let request = axum::http::Request::post(format!("/v1/scenarios/{id}/execute"))
        .header("content-type", "application/json")
        .body(axum::body::Body::from(body.to_vec()))
        .expect("a request");
    let (status, bytes) = g.runtime.block_on(async {
        let response = g
            .router
            .clone()
            .oneshot(request)
            .await
            .expect("the router is infallible");
        let status = response.status();
        let bytes = response
            .into_body()
            .collect()
            .await
            .expect("a body")
            .to_bytes();
        (status, bytes)
    });
    let json: serde_json::Value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("a non-JSON answer ({status}): {e}"));
    assert!(
        status.is_success() || status.is_client_error(),
        "status {status}: {json}"
    );
    if status.is_success() {
        assert!(json.is_object(), "{json}");
        Outcome::Accepted
    } else {
        assert!(
            json.get("error")
                .and_then(|e| e.get("code"))
                .and_then(|c| c.as_str())
                .is_some_and(|c| !c.is_empty()),
            "an error body without a code: {json}"
        );
        Outcome::Rejected
    }
}
