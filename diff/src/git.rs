//! Reading a package as it was at a git revision, without checking it out
//! (`templiqx diff --base REV`): a [`FileSystem`] over `git ls-tree` and
//! `git cat-file` (`docs/decisions.md`, "The compiler reads files through a
//! FileSystem").
//!
//! The revision's tree is laid at the working tree's root, so a file reads
//! under the path it has in a checkout: diagnostics and change locations
//! name the same files on both sides of a diff. Paths outside the
//! repository do not exist at the revision.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use templiqx_build::FileSystem;
use templiqx_build::text::MAX_SOURCE_BYTES;

/// Why a revision cannot be read.
#[derive(Debug)]
pub enum GitError {
    /// `git` could not be run.
    Spawn(io::Error),
    /// The path is not inside a git working tree.
    NotARepository(String),
    /// The revision does not name a commit.
    UnknownRevision(String),
    /// `git` failed otherwise (its standard error).
    Failed(String),
}

impl fmt::Display for GitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GitError::Spawn(e) => write!(f, "cannot run `git`: {e}"),
            GitError::NotARepository(p) => write!(f, "`{p}` is not inside a git working tree"),
            GitError::UnknownRevision(r) => write!(f, "`{r}` does not name a commit"),
            GitError::Failed(e) => write!(f, "git failed: {e}"),
        }
    }
}

impl std::error::Error for GitError {}

/// A tree entry: a blob (file), a symbolic link, or a submodule.
#[derive(Clone, Debug)]
struct Entry {
    /// `100644`, `100755`, `120000`, `160000`.
    mode: String,
    /// The object id.
    id: String,
    /// The blob size, when git reports one.
    size: Option<u64>,
}

/// The files of one commit, read through git (see the module docs).
pub struct GitFileSystem {
    root: PathBuf,
    commit: String,
    revision: String,
    files: BTreeMap<PathBuf, Entry>,
    dirs: BTreeSet<PathBuf>,
    blobs: Mutex<HashMap<String, Arc<Vec<u8>>>>,
}

impl fmt::Debug for GitFileSystem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GitFileSystem")
            .field("root", &self.root)
            .field("revision", &self.revision)
            .field("commit", &self.commit)
            .field("files", &self.files.len())
            .finish_non_exhaustive()
    }
}

/// Runs `git` in `dir`; its standard output, or its standard error as the
/// failure.
fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, GitError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(GitError::Spawn)?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(GitError::Failed(
            String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        ))
    }
}

impl GitFileSystem {
    /// The files of `revision` (anything `git rev-parse` resolves to a
    /// commit: a branch, a tag, `origin/main`, `HEAD~1`, an id) in the
    /// repository whose working tree holds `path` (a file or directory
    /// that may be missing from the working tree; its nearest existing
    /// ancestor is asked).
    ///
    /// # Errors
    /// [`GitError`] when git cannot run, `path` is not in a working tree,
    /// or `revision` names no commit.
    pub fn open(path: &Path, revision: &str) -> Result<GitFileSystem, GitError> {
        let shown = path.display().to_string();
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let dir = absolute
            .ancestors()
            .find(|a| a.is_dir())
            .ok_or_else(|| GitError::NotARepository(shown.clone()))?;
        let top = git(dir, &["rev-parse", "--show-toplevel"])
            .map_err(|_| GitError::NotARepository(shown.clone()))?;
        let top = PathBuf::from(String::from_utf8_lossy(&top).trim());
        let root = std::fs::canonicalize(&top).unwrap_or(top);
        let spec = format!("{revision}^{{commit}}");
        let commit = git(
            &root,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                "--end-of-options",
                &spec,
            ],
        )
        .map_err(|_| GitError::UnknownRevision(revision.to_owned()))?;
        let commit = String::from_utf8_lossy(&commit).trim().to_owned();
        if commit.is_empty() {
            return Err(GitError::UnknownRevision(revision.to_owned()));
        }
        let listing = git(
            &root,
            &["ls-tree", "-r", "-l", "-z", "--full-tree", &commit],
        )?;
        let mut files = BTreeMap::new();
        let mut dirs = BTreeSet::new();
        dirs.insert(PathBuf::new());
        for record in listing.split(|b| *b == 0).filter(|r| !r.is_empty()) {
            let record = String::from_utf8_lossy(record);
            // `<mode> SP <type> SP <object> SP* <size> TAB <path>`
            let Some((meta, rel)) = record.split_once('\t') else {
                continue;
            };
            let mut parts = meta.split_whitespace();
            let (Some(mode), Some(_kind), Some(id), size) =
                (parts.next(), parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            let rel = PathBuf::from(rel);
            for ancestor in rel.ancestors().skip(1) {
                dirs.insert(ancestor.to_path_buf());
            }
            if mode == "160000" {
                // A submodule: a directory whose files are not in this tree.
                dirs.insert(rel);
                continue;
            }
            files.insert(
                rel,
                Entry {
                    mode: mode.to_owned(),
                    id: id.to_owned(),
                    size: size.and_then(|s| s.parse().ok()),
                },
            );
        }
        Ok(GitFileSystem {
            root,
            commit,
            revision: revision.to_owned(),
            files,
            dirs,
            blobs: Mutex::new(HashMap::new()),
        })
    }

    /// The working tree's root (canonical), where the revision's tree is laid.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The commit id the revision resolved to.
    pub fn commit(&self) -> &str {
        &self.commit
    }

    /// The revision as given.
    pub fn revision(&self) -> &str {
        &self.revision
    }

    /// Whether anything (a file or a directory) is at `path` in the revision.
    pub fn exists(&self, path: &Path) -> bool {
        self.resolve(path).is_ok()
    }

    fn blob(&self, id: &str) -> io::Result<Arc<Vec<u8>>> {
        if let Ok(cache) = self.blobs.lock()
            && let Some(bytes) = cache.get(id)
        {
            return Ok(Arc::clone(bytes));
        }
        let bytes = git(&self.root, &["cat-file", "blob", id])
            .map_err(|e| io::Error::other(e.to_string()))?;
        let bytes = Arc::new(bytes);
        if let Ok(mut cache) = self.blobs.lock() {
            cache.insert(id.to_owned(), Arc::clone(&bytes));
        }
        Ok(bytes)
    }

    /// `path` relative to the root, lexically normalised; `None` outside it.
    fn relative(&self, path: &Path) -> Option<PathBuf> {
        let rest = path.strip_prefix(&self.root).ok()?;
        let mut out = PathBuf::new();
        for c in rest.components() {
            match c {
                Component::Normal(n) => out.push(n),
                Component::CurDir => {}
                Component::ParentDir => {
                    if !out.pop() {
                        return None;
                    }
                }
                Component::RootDir | Component::Prefix(_) => return None,
            }
        }
        Some(out)
    }

    /// The revision's file at `path` (links followed): not a directory,
    /// not missing, not a submodule.
    fn file(&self, path: &Path) -> io::Result<&Entry> {
        let (rel, is_file) = self.resolve(path)?;
        if !is_file {
            return Err(io::Error::other("is a directory"));
        }
        let entry = self
            .files
            .get(&rel)
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "not in the revision"))?;
        if entry.mode == "160000" {
            return Err(io::Error::other("is a submodule"));
        }
        Ok(entry)
    }

    /// The real relative path of `path` (symbolic links of the revision
    /// followed, at most 40), and whether it is a file.
    fn resolve(&self, path: &Path) -> io::Result<(PathBuf, bool)> {
        let not_found = || io::Error::new(io::ErrorKind::NotFound, "not in the revision");
        let mut pending: Vec<PathBuf> = vec![self.relative(path).ok_or_else(not_found)?];
        let mut hops = 0;
        'resolve: while let Some(rel) = pending.pop() {
            let mut done = PathBuf::new();
            let parts: Vec<_> = rel.components().collect();
            for (i, part) in parts.iter().enumerate() {
                done.push(part);
                if let Some(entry) = self.files.get(&done)
                    && entry.mode == "120000"
                {
                    hops += 1;
                    if hops > 40 {
                        return Err(io::Error::other("too many levels of symbolic links"));
                    }
                    let target = self.blob(&entry.id)?;
                    let target = PathBuf::from(String::from_utf8_lossy(&target).into_owned());
                    let base = self.root.join(done.parent().unwrap_or(Path::new("")));
                    let mut next = if target.is_absolute() {
                        target
                    } else {
                        base.join(target)
                    };
                    for rest in &parts[i + 1..] {
                        next.push(rest);
                    }
                    pending.push(self.relative(&next).ok_or_else(not_found)?);
                    continue 'resolve;
                }
            }
            if self.files.contains_key(&done) {
                return Ok((done, true));
            }
            if self.dirs.contains(&done) {
                return Ok((done, false));
            }
            return Err(not_found());
        }
        Err(not_found())
    }
}

/// A blob as `git cat-file` writes it ([`GitFileSystem::open`]): the end
/// of its output is an error when git failed; dropped early, git is
/// stopped and reaped.
struct BlobStream {
    child: std::process::Child,
    stdout: std::process::ChildStdout,
}

impl io::Read for BlobStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = io::Read::read(&mut self.stdout, buf)?;
        if n == 0 && !buf.is_empty() && !self.child.wait()?.success() {
            return Err(io::Error::other("git cat-file failed"));
        }
        Ok(n)
    }
}

impl Drop for BlobStream {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

impl FileSystem for GitFileSystem {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        let entry = self.file(path)?;
        if entry.size.is_some_and(|s| s > MAX_SOURCE_BYTES) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("larger than {MAX_SOURCE_BYTES} bytes"),
            ));
        }
        Ok(self.blob(&entry.id)?.as_ref().clone())
    }

    /// The blob streamed from `git cat-file`, whatever its size: an eval
    /// entry's dataset (`docs/format.md`, "Datasets") is read this way,
    /// one row at a time, never held whole.
    fn open(&self, path: &Path) -> io::Result<Box<dyn io::Read + Send>> {
        let entry = self.file(path)?;
        let mut child = Command::new("git")
            .arg("-C")
            .arg(&self.root)
            .args(["cat-file", "blob", &entry.id])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| io::Error::other("no output"))?;
        Ok(Box::new(BlobStream { child, stdout }))
    }

    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        let (rel, _) = self.resolve(path)?;
        Ok(self.root.join(rel))
    }

    fn is_file(&self, path: &Path) -> bool {
        self.resolve(path).is_ok_and(|(_, f)| f)
    }

    fn is_dir(&self, path: &Path) -> bool {
        self.resolve(path).is_ok_and(|(_, f)| !f)
    }
}
