//! Reading the files a command is given: display names relative to the
//! current directory, and JSON documents with located parse errors.

use crate::ui::SourceTexts;
use std::cell::OnceCell;
use std::path::{Component, Path, PathBuf};
use templiqx_build::relative_to;
use templiqx_build::text::{self, ReadError, Syntax};
use templiqx_build::yaml::Node;
use templiqx_contracts::json::{self, Json};
use templiqx_contracts::{Code, Diagnostic, Span};

/// The current directory (canonical when possible); `.` when unknown.
pub fn current_dir() -> PathBuf {
    let dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    std::fs::canonicalize(&dir).unwrap_or(dir)
}

/// How diagnostics name `path`: relative to the current directory (unless
/// the two share only the file-system root), with `/` separators. `-` is
/// `<stdin>`.
pub fn display(path: &Path) -> String {
    if path == Path::new("-") {
        return "<stdin>".to_owned();
    }
    let shown = if path.is_absolute() {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        relative_to(&path, &current_dir())
    } else {
        normalize(path)
    };
    let text = shown.to_string_lossy().replace('\\', "/");
    if text.is_empty() {
        ".".to_owned()
    } else {
        text
    }
}

/// Drops `.` components (`./a/b` → `a/b`).
fn normalize(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

/// A JSON document read from a file (or standard input).
#[derive(Debug)]
pub struct JsonFile {
    /// Display name.
    pub name: String,
    /// The text, for snippets.
    pub text: String,
    /// The value.
    pub value: Json,
    /// The spanned tree of the text, parsed on first use.
    tree: OnceCell<Option<Node>>,
}

impl JsonFile {
    /// The span of the value at `pointer`, when the text can be mapped
    /// (JSON is YAML, so the spanned YAML parser locates it).
    pub fn span_of(&self, pointer: &str) -> Option<Span> {
        self.tree
            .get_or_init(|| templiqx_build::yaml::parse_spans(&self.text).ok())
            .as_ref()
            .and_then(|root| root.span_of(pointer))
    }

    /// Places `d` in this file at its JSON pointer; a diagnostic that
    /// already names a file is returned unchanged.
    pub fn locate(&self, mut d: Diagnostic) -> Diagnostic {
        if d.file.is_some() {
            return d;
        }
        d.file = Some(self.name.clone());
        if d.span.is_none() {
            d.span = d.json_pointer.as_deref().and_then(|p| self.span_of(p));
        }
        d
    }
}

/// Reads `path` (`-`: standard input) as text of `syntax` (see
/// [`templiqx_build::text`]: a leading byte order mark is skipped), and
/// adds what it read to `sources` for snippets: the text, or the valid
/// beginning of a file that is not UTF-8.
///
/// # Errors
/// `TQX_IO` when it cannot be read or is neither a regular file nor a
/// directory (a pipe or a device, which is never read); `TQX_PARSE_JSON`
/// or `TQX_PARSE_YAML`, at the first invalid byte, when it is not UTF-8.
pub fn read_text(
    path: &Path,
    syntax: Syntax,
    sources: &mut SourceTexts,
) -> Result<String, Diagnostic> {
    let name = display(path);
    // A named pipe or a device is never read: it may never end.
    if path != Path::new("-")
        && let Ok(meta) = std::fs::metadata(path)
        && !meta.is_file()
        && !meta.is_dir()
    {
        return Err(Diagnostic::error(
            Code::Io,
            format!(
                "`{name}` is neither a regular file nor a directory (a device, a named pipe or a socket)"
            ),
        )
        .in_file(name)
        .help("pass a regular file, or `-` for standard input"));
    }
    let result = if path == Path::new("-") {
        text::read(std::io::stdin(), syntax)
    } else {
        text::read_file(path, syntax)
    };
    match result {
        Ok(text) => {
            sources.insert(name, text.clone());
            Ok(text)
        }
        Err(ReadError::NotUtf8(e)) => {
            sources.insert(name.clone(), e.valid);
            Err(e.diagnostic.in_file(name))
        }
        Err(ReadError::Io(e)) => {
            let what = if path.is_dir() {
                "it is a directory".to_owned()
            } else {
                lower_first(&e.to_string())
            };
            Err(
                Diagnostic::error(Code::Io, format!("cannot read `{name}`: {what}"))
                    .in_file(name)
                    .help("check the path and its permissions"),
            )
        }
    }
}

/// Reads and parses a JSON file, adding its text to `sources`.
///
/// # Errors
/// `TQX_IO` when it cannot be read; `TQX_PARSE_JSON`, located at the
/// offending line and column, when it is not UTF-8 JSON.
pub fn read_json(path: &Path, sources: &mut SourceTexts) -> Result<JsonFile, Diagnostic> {
    let text = read_text(path, Syntax::Json, sources)?;
    parse_json(display(path), text)
}

/// Parses JSON `text` read from the file displayed as `name`.
///
/// Read by the one strict reader ([`json::parse`]): a duplicate object key
/// is an error (RFC 8785 canonicalises I-JSON, which has none; keeping one
/// of two values silently would give two different documents one
/// fingerprint), and integers keep their exact value at any size.
///
/// # Errors
/// `TQX_PARSE_JSON`, located at the offending line and column.
pub fn parse_json(name: String, text: String) -> Result<JsonFile, Diagnostic> {
    let value = json::parse(&text).map_err(|d| d.in_file(name.clone()))?;
    Ok(JsonFile {
        name,
        text,
        value,
        tree: OnceCell::new(),
    })
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_lose_dot_components() {
        assert_eq!(display(Path::new("./a/./b.json")), "a/b.json");
        assert_eq!(display(Path::new("../x")), "../x");
        assert_eq!(display(Path::new("-")), "<stdin>");
    }

    #[test]
    fn paths_sharing_only_the_root_stay_absolute() {
        let base = Path::new("/work/repo");
        assert_eq!(
            relative_to(Path::new("/work/repo/a/b"), base),
            Path::new("a/b")
        );
        assert_eq!(
            relative_to(Path::new("/work/lib/c"), base),
            Path::new("../lib/c")
        );
        assert_eq!(relative_to(Path::new("/tmp/c"), base), Path::new("/tmp/c"));
    }
}
