//! Resources (`docs/mcp.md`, "Resources"): the manifest and contract files
//! of the served packages, as `file://` URIs, and each served path's
//! diagnostics, as `templiqx://diagnostics/PATH`.

use crate::Server;
use rmcp::ErrorData;
use rmcp::model::{ReadResourceResult, Resource, ResourceContents};
use serde_json::json;
use std::path::{Path, PathBuf};
use templiqx_build::text::{self, Syntax};
use templiqx_build::{Compiler, FileSystem, InputKind, MANIFEST, RealFileSystem};
use templiqx_contracts::Diagnostic;

/// The scheme and authority of a served path's diagnostics.
const DIAGNOSTICS: &str = "templiqx://diagnostics/";

/// Every resource: per served path, its manifest (a package), its contract
/// files, and its diagnostics.
pub(crate) fn list(server: &Server) -> Vec<Resource> {
    let roots = server.roots();
    let compiler = Compiler::new(roots.base(), server.target(None)).check_codegen(false);
    let mut out = Vec::new();
    for path in roots.served() {
        let input = compiler.compile(path);
        let shown = roots.display(path);
        if input.kind == InputKind::Package {
            let manifest = path.join(MANIFEST);
            if let Some(uri) = file_uri(&manifest) {
                out.push(
                    Resource::new(uri, format!("{shown}/{MANIFEST}"))
                        .with_description("the package manifest")
                        .with_mime_type("application/yaml"),
                );
            }
        }
        for c in &input.contracts {
            let abs = roots.base().join(&c.file);
            if let Some(uri) = file_uri(&abs) {
                let what = match &c.contract {
                    Some(contract) => {
                        format!("the contract `{}` v{}", contract.id, contract.version)
                    }
                    None => format!("the contract `{}`", c.id),
                };
                out.push(
                    Resource::new(uri, c.file.clone())
                        .with_description(what)
                        .with_mime_type("application/yaml"),
                );
            }
        }
        out.push(
            Resource::new(
                format!("{DIAGNOSTICS}{shown}"),
                format!("diagnostics of {shown}"),
            )
            .with_description(format!(
                "every diagnostic of `{shown}` as `templiqx check` reports it: {{ok, diagnostics}}"
            ))
            .with_mime_type("application/json"),
        );
    }
    out
}

/// Reads the resource `uri`: a file inside a served root (UTF-8, at most
/// 16 MiB), or the diagnostics of a served path, compiled now.
///
/// # Errors
/// Resource not found (-32002) for a URI that names nothing served; invalid
/// params (-32602) with the `TQX_*` diagnostic for a file that cannot be
/// read.
pub(crate) fn read(server: &Server, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let roots = server.roots();
    let not_found = |why: Option<Diagnostic>| {
        ErrorData::resource_not_found(
            format!("no served resource is `{uri}`"),
            Some(json!({ "uri": uri, "diagnostic": why })),
        )
    };
    if let Some(shown) = uri.strip_prefix(DIAGNOSTICS) {
        let abs = roots.confine(shown).map_err(|d| not_found(Some(d)))?;
        if !roots.served().contains(&abs) {
            return Err(not_found(None));
        }
        // Compiled as `templiqx check` compiles it.
        let input = Compiler::new(roots.base(), server.target(None)).compile(&abs);
        let diagnostics: Vec<&Diagnostic> = input.diagnostics().collect();
        let body = json!({
            "path": input.name,
            "ok": !diagnostics.iter().any(|d| d.is_error()),
            "diagnostics": diagnostics,
        });
        let contents =
            ResourceContents::text(body.to_string(), uri).with_mime_type("application/json");
        return Ok(ReadResourceResult::new(vec![contents]));
    }
    let path = url::Url::parse(uri)
        .ok()
        .filter(|u| u.scheme() == "file")
        .and_then(|u| u.to_file_path().ok())
        .ok_or_else(|| not_found(None))?;
    let abs = roots
        .confine(&path.to_string_lossy())
        .map_err(|d| not_found(Some(d)))?;
    let fs = RealFileSystem;
    if !fs.is_file(&abs) {
        return Err(not_found(None));
    }
    let unreadable = |message: String| {
        let d =
            Diagnostic::error(templiqx_contracts::Code::Io, message).in_file(roots.display(&abs));
        ErrorData::invalid_params(
            format!("cannot read `{uri}`"),
            Some(json!({ "code": d.code.to_string(), "diagnostics": [d] })),
        )
    };
    let bytes = fs.read(&abs).map_err(|e| {
        unreadable(format!(
            "cannot read `{}`: {}",
            roots.display(&abs),
            templiqx_build::io_reason(&e)
        ))
    })?;
    let text = text::decode(bytes, Syntax::Yaml)
        .map_err(|_| unreadable(format!("`{}` is not UTF-8", roots.display(&abs))))?;
    let mime = if abs.extension().is_some_and(|e| e == "json") {
        "application/json"
    } else {
        "application/yaml"
    };
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(text, uri).with_mime_type(mime),
    ]))
}

/// The `file://` URI of `abs`.
fn file_uri(abs: &Path) -> Option<String> {
    let abs: PathBuf = std::fs::canonicalize(abs).ok()?;
    url::Url::from_file_path(abs).ok().map(String::from)
}
