//! Path rules of packages (`docs/format.md`, "Packages", "Includes"):
//! confinement of package-relative paths to their root, dependency paths,
//! and display names relative to a base directory.

use crate::file_system::FileSystem;
use std::path::{Path, PathBuf};

/// Why [`confine`] refused a package-relative path.
pub(crate) enum Unconfined {
    /// The path is well formed but nothing is at it: the absolute path
    /// looked for (recorded in [`crate::Loader::looked_for`]).
    Missing(PathBuf),
    /// The path is malformed, or resolves outside the root: the reason.
    Refused(&'static str),
}

impl Unconfined {
    /// The reason, completing "include path `…` ".
    pub(crate) fn reason(&self) -> &'static str {
        match self {
            Unconfined::Missing(_) => "does not exist in the package",
            Unconfined::Refused(reason) => reason,
        }
    }
}

/// Resolves a package-relative path inside `root`, failing closed.
///
/// # Errors
/// [`Unconfined::Refused`] when the path is absolute, has a drive letter,
/// a backslash, a NUL, an empty, `.` or `..` segment, or resolves outside
/// `root`; [`Unconfined::Missing`] when it does not exist.
pub(crate) fn confine(fs: &dyn FileSystem, root: &Path, path: &str) -> Result<PathBuf, Unconfined> {
    if let Some(reason) = lexical_confinement(path) {
        return Err(Unconfined::Refused(reason));
    }
    let joined = root.join(path);
    match real_path_in(fs, root, &joined) {
        Some(Ok(real)) => Ok(real),
        Some(Err(())) => Err(Unconfined::Refused(
            "resolves outside the package root (through a symlink)",
        )),
        None => Err(Unconfined::Missing(joined)),
    }
}

/// The real path of an existing `path` when it stays inside the real
/// `root` (`Ok`), or `Err(())` when it leaves it through a symlink; `None`
/// when it does not exist.
pub(super) fn real_path_in(
    fs: &dyn FileSystem,
    root: &Path,
    path: &Path,
) -> Option<Result<PathBuf, ()>> {
    let real = fs.canonicalize(path).ok()?;
    let real_root = fs.canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    Some(if real.starts_with(&real_root) {
        Ok(real)
    } else {
        Err(())
    })
}

/// `path` relative to `base`, as the loader names files in diagnostics
/// (`a/b.yaml`, `../lib/c.yaml`): a path that shares only the file-system
/// root with `base` stays absolute (`/tmp/c.yaml`, not `../../tmp/c.yaml`).
/// Both paths are taken as given (the caller canonicalises).
pub fn relative_to(path: &Path, base: &Path) -> PathBuf {
    if let Ok(p) = path.strip_prefix(base) {
        return p.to_path_buf();
    }
    // Walk up from base until a common ancestor. A path that shares only
    // the file-system root with base stays absolute (`/tmp/c.yaml`, not
    // `../../tmp/c.yaml`).
    let mut up = PathBuf::new();
    for ancestor in base.ancestors() {
        if ancestor.parent().is_none() {
            break;
        }
        if let Ok(rest) = path.strip_prefix(ancestor) {
            return up.join(rest);
        }
        up.push("..");
    }
    path.to_path_buf()
}

/// Why a manifest's dependency path is refused, or `None`: it must be
/// relative to the package (`docs/format.md`, "Packages"), so it may not be
/// empty, hold a NUL, be absolute (`/…`, or `\…` once backslashes are read
/// as `/`) or start with a drive letter (`C:`). Unlike include paths it may
/// climb (`../common`): a dependency is another package.
pub(super) fn dependency_path_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("is empty");
    }
    if path.contains('\0') {
        return Some("contains a NUL character");
    }
    if path.starts_with(['/', '\\']) {
        return Some("is absolute");
    }
    let b = path.as_bytes();
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        return Some("starts with a drive letter");
    }
    None
}

/// The lexical part of [`confine`] (for artifact lists, whose files need not
/// exist): `None` when the path stays inside its root.
pub(super) fn lexical_confinement(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("is empty");
    }
    if path.contains('\0') {
        return Some("contains a NUL character");
    }
    if path.contains('\\') {
        return Some("contains a backslash (write `/` separators)");
    }
    if path.starts_with('/') {
        return Some("is absolute");
    }
    let b = path.as_bytes();
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        return Some("starts with a drive letter");
    }
    path.split('/').find_map(|segment| match segment {
        "" => Some("has an empty segment"),
        "." => Some("has a `.` segment"),
        ".." => Some("leaves the package root (`..`)"),
        _ => None,
    })
}
