//! The served roots, and the confinement of every path a client names
//! (`docs/mcp.md`, "Safety").

use std::path::{Component, Path, PathBuf};
use templiqx_build::io_reason;
use templiqx_contracts::{Code, Diagnostic};

/// What a server serves: package directories and contract files, and the
/// directories a client's paths must stay inside.
///
/// A served package directory confines to itself; a served contract file
/// to its directory. A path a client names (a tool's `path`) is taken
/// relative to the base directory, then made real: its longest existing
/// ancestor is canonicalised (symbolic links resolved) and the rest joined
/// to it. It is served only when the real path is inside a served root, so
/// neither `../` nor a symbolic link leads out; a `..` after the part that
/// exists is refused too, since where it leads cannot be known.
#[derive(Clone, Debug)]
pub struct Roots {
    /// The base directory, canonical.
    base: PathBuf,
    /// The served paths, canonical, in the order given.
    served: Vec<PathBuf>,
    /// The directory each served path confines to, canonical.
    dirs: Vec<PathBuf>,
}

impl Roots {
    /// The roots of `paths` (relative to `base`; none means `base`).
    ///
    /// # Errors
    /// `TQX_IO` when `base` or a path cannot be opened, or a path is
    /// neither a directory nor a regular file.
    pub fn new(base: &Path, paths: &[PathBuf]) -> Result<Roots, Diagnostic> {
        let base = std::fs::canonicalize(base).map_err(|e| {
            Diagnostic::error(
                Code::Io,
                format!("cannot open `{}`: {}", base.display(), io_reason(&e)),
            )
        })?;
        let defaults = [PathBuf::from(".")];
        let paths = if paths.is_empty() {
            &defaults[..]
        } else {
            paths
        };
        let mut served = Vec::new();
        let mut dirs = Vec::new();
        for path in paths {
            let real = std::fs::canonicalize(base.join(path)).map_err(|e| {
                Diagnostic::error(
                    Code::Io,
                    format!("cannot serve `{}`: {}", path.display(), io_reason(&e)),
                )
                .help("pass package directories (holding `templiqx.yaml`) or contract files")
            })?;
            let dir = if real.is_dir() {
                real.clone()
            } else if real.is_file() {
                real.parent()
                    .map_or_else(|| real.clone(), Path::to_path_buf)
            } else {
                return Err(Diagnostic::error(
                    Code::Io,
                    format!(
                        "cannot serve `{}`: it is neither a directory nor a regular file",
                        path.display()
                    ),
                ));
            };
            served.push(real);
            dirs.push(dir);
        }
        Ok(Roots { base, served, dirs })
    }

    /// The base directory (canonical): relative paths start there, and
    /// diagnostics name files relative to it.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// The served package directories and contract files (canonical).
    pub fn served(&self) -> &[PathBuf] {
        &self.served
    }

    /// The directory a text without a path is compiled in: the first
    /// served root's.
    pub(crate) fn first_dir(&self) -> &Path {
        &self.dirs[0]
    }

    /// `path` (relative to the base directory, or absolute) as a real
    /// absolute path inside a served root.
    ///
    /// # Errors
    /// `TQX_IO` when the path leads outside every served root, or through
    /// `..` below a part that does not exist.
    pub fn confine(&self, path: &str) -> Result<PathBuf, Diagnostic> {
        let joined = self.base.join(path);
        let mut existing = joined.as_path();
        let mut rest = Vec::new();
        let real = loop {
            match std::fs::canonicalize(existing) {
                Ok(real) => break real,
                Err(_) => match (existing.parent(), existing.file_name()) {
                    (Some(parent), Some(name)) => {
                        rest.push(name.to_owned());
                        existing = parent;
                    }
                    // `..` or the root: nothing exists to anchor it.
                    _ => return Err(self.outside(path)),
                },
            }
        };
        let mut real = real;
        for name in rest.into_iter().rev() {
            if Path::new(&name)
                .components()
                .any(|c| c == Component::ParentDir)
            {
                return Err(self.outside(path));
            }
            real.push(name);
        }
        if self.dirs.iter().any(|d| real.starts_with(d)) {
            Ok(real)
        } else {
            Err(self.outside(path))
        }
    }

    fn outside(&self, path: &str) -> Diagnostic {
        let roots: Vec<String> = self
            .dirs
            .iter()
            .map(|d| format!("`{}`", self.display(d)))
            .collect();
        Diagnostic::error(
            Code::Io,
            format!("`{path}` is outside the served roots"),
        )
        .help(format!(
            "name a path inside {} (relative to `{}`); serve another directory by passing it to `templiqx mcp`",
            roots.join(", "),
            self.base.display()
        ))
    }

    /// `abs` as diagnostics name it: relative to the base directory.
    pub(crate) fn display(&self, abs: &Path) -> String {
        let rel = templiqx_build::relative_to(abs, &self.base)
            .to_string_lossy()
            .replace('\\', "/");
        if rel.is_empty() { ".".to_owned() } else { rel }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots() -> (tempfile::TempDir, Roots) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("pkg/contracts")).unwrap();
        std::fs::create_dir_all(dir.path().join("other")).unwrap();
        std::fs::write(dir.path().join("other/secret.yaml"), "x").unwrap();
        let roots = Roots::new(dir.path(), &[PathBuf::from("pkg")]).unwrap();
        (dir, roots)
    }

    #[test]
    fn a_path_inside_is_served_even_when_it_does_not_exist_yet() {
        let (dir, roots) = roots();
        let real = roots.confine("pkg/contracts/new.yaml").unwrap();
        let pkg = std::fs::canonicalize(dir.path().join("pkg")).unwrap();
        assert_eq!(real, pkg.join("contracts/new.yaml"));
    }

    #[test]
    fn dot_dot_cannot_leave_the_roots() {
        let (_dir, roots) = roots();
        let d = roots.confine("pkg/../other/secret.yaml").unwrap_err();
        assert_eq!(d.code, Code::Io);
        assert!(
            d.message.contains("outside the served roots"),
            "{}",
            d.message
        );
        assert!(
            roots
                .confine("pkg/missing/../../other/secret.yaml")
                .is_err()
        );
        assert!(roots.confine("/etc/passwd").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_cannot_leave_the_roots() {
        let (dir, roots) = roots();
        std::os::unix::fs::symlink(dir.path().join("other"), dir.path().join("pkg/link")).unwrap();
        assert!(roots.confine("pkg/link/secret.yaml").is_err());
    }

    #[test]
    fn a_missing_served_path_is_tqx_io() {
        let dir = tempfile::tempdir().unwrap();
        let d = Roots::new(dir.path(), &[PathBuf::from("nope")]).unwrap_err();
        assert_eq!(d.code, Code::Io);
        assert!(
            d.message.contains("no such file or directory"),
            "{}",
            d.message
        );
    }
}
