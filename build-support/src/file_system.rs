//! The files the compiler reads (`docs/decisions.md`, "The compiler reads
//! files through a FileSystem").
//!
//! [`Loader`](crate::Loader) reads manifests, contracts and partials only
//! through a [`FileSystem`]: [`RealFileSystem`] is the disk, and an
//! [`Overlay`] lays in-memory documents (an editor's unsaved buffers) over
//! another file system, so a language server compiles a package as the
//! editor shows it.
//!
//! ```
//! use std::sync::Arc;
//! use templiqx_build::{FileSystem, Overlay, RealFileSystem};
//!
//! let dir = std::env::temp_dir().canonicalize().unwrap();
//! let path = dir.join("templiqx-overlay-doc-example.yaml");
//! let mut overlay = Overlay::new(Arc::new(RealFileSystem));
//! overlay.insert(&path, "id: unsaved\n");
//! assert!(overlay.is_file(&path));
//! assert_eq!(overlay.read(&path).unwrap(), b"id: unsaved\n");
//! assert_eq!(overlay.canonicalize(&path).unwrap(), path);
//! overlay.remove(&path);
//! assert!(!overlay.is_file(&path));
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the compiler asks of the files it reads: their bytes, their real
/// paths (for include confinement, display names and rebuild tracking), and
/// whether a path is a file (the search for `templiqx.yaml`) or a directory
/// (to explain a failed read).
///
/// Paths are absolute. An implementation is shared by every compilation of
/// a [`Loader`](crate::Loader) and may be shared across threads.
pub trait FileSystem: Send + Sync {
    /// The bytes of the file at `path`, unchanged (a byte order mark and
    /// invalid UTF-8 included: the loader decodes them, and the package
    /// fingerprint hashes these bytes). An implementation may stop after
    /// [`MAX_SOURCE_BYTES`](crate::text::MAX_SOURCE_BYTES)` + 1` bytes: the
    /// loader refuses a larger file anyway.
    ///
    /// # Errors
    /// The I/O error: `NotFound` when there is no file, the platform's error
    /// for a directory or a file without read permission, `InvalidData`
    /// when the file is larger than `MAX_SOURCE_BYTES`.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;

    /// The real path of `path`: absolute, every symlink resolved, no `.`
    /// or `..` segment (as [`std::fs::canonicalize`]).
    ///
    /// # Errors
    /// `NotFound` when nothing is at `path`, or another I/O error.
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf>;

    /// Whether `path` is a file (following symlinks).
    fn is_file(&self, path: &Path) -> bool;

    /// Whether `path` is a directory (following symlinks).
    fn is_dir(&self, path: &Path) -> bool;

    /// The file at `path` as a stream, for a file read piece by piece
    /// instead of whole: an eval entry's dataset (`docs/format.md`,
    /// "Datasets"), which may be larger than
    /// [`MAX_SOURCE_BYTES`](crate::text::MAX_SOURCE_BYTES) and is never
    /// held in memory at once. The default reads the whole file through
    /// [`FileSystem::read`]; [`RealFileSystem`] streams it from the disk.
    ///
    /// # Errors
    /// As [`FileSystem::read`].
    fn open(&self, path: &Path) -> io::Result<Box<dyn io::Read + Send>> {
        Ok(Box::new(io::Cursor::new(self.read(path)?)))
    }
}

/// The disk, through [`std::fs`]; what [`Loader::new`](crate::Loader::new)
/// reads.
#[derive(Clone, Copy, Debug, Default)]
pub struct RealFileSystem;

impl FileSystem for RealFileSystem {
    /// Reads at most `MAX_SOURCE_BYTES + 1` bytes ([`crate::text::read_bytes`]).
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::File::open(path).and_then(crate::text::read_bytes)
    }

    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        std::fs::canonicalize(path)
    }

    fn is_file(&self, path: &Path) -> bool {
        path.is_file()
    }

    fn is_dir(&self, path: &Path) -> bool {
        path.is_dir()
    }

    /// The file, unbuffered and without a size limit.
    fn open(&self, path: &Path) -> io::Result<Box<dyn io::Read + Send>> {
        Ok(Box::new(std::fs::File::open(path)?))
    }
}

/// A [`FileSystem`] with in-memory documents laid over a base one (e.g.
/// [`RealFileSystem`]): an overlaid document is the file at its path,
/// whatever the base holds there (nothing, another text, a directory);
/// every other path is the base's.
///
/// Only files are overlaid: a directory exists when the base has it. A
/// document whose directory is missing on the base is still read by the
/// path it was inserted under.
///
/// Documents are keyed by their real path, resolved when inserted, removed
/// and looked up: the base's canonical path when the base has something
/// at that path; else the canonical path of its parent directory joined
/// with its file name (a new, unsaved file); else the path as given. So a
/// document inserted under a path through a symlinked directory (macOS'
/// `/tmp`) is the one the loader reads by its real path.
#[derive(Clone)]
pub struct Overlay {
    base: Arc<dyn FileSystem>,
    documents: BTreeMap<PathBuf, Vec<u8>>,
}

impl fmt::Debug for Overlay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Overlay")
            .field("documents", &self.documents.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Overlay {
    /// An overlay without documents over `base`.
    pub fn new(base: Arc<dyn FileSystem>) -> Overlay {
        Overlay {
            base,
            documents: BTreeMap::new(),
        }
    }

    /// Lays `contents` (the text of a buffer, or bytes) over the file at
    /// the absolute `path`, replacing a document already there.
    pub fn insert(&mut self, path: impl AsRef<Path>, contents: impl Into<Vec<u8>>) {
        let key = self.key(path.as_ref());
        self.documents.insert(key, contents.into());
    }

    /// Removes the document at `path` (the base's file shows again);
    /// whether there was one.
    pub fn remove(&mut self, path: impl AsRef<Path>) -> bool {
        let key = self.key(path.as_ref());
        self.documents.remove(&key).is_some()
    }

    /// The key of `path` (see [`Overlay`]).
    fn key(&self, path: &Path) -> PathBuf {
        if let Ok(real) = self.base.canonicalize(path) {
            return real;
        }
        if let (Some(parent), Some(name)) = (path.parent(), path.file_name())
            && let Ok(real) = self.base.canonicalize(parent)
        {
            return real.join(name);
        }
        path.to_path_buf()
    }

    fn document(&self, path: &Path) -> Option<(PathBuf, &[u8])> {
        if self.documents.is_empty() {
            return None;
        }
        let key = self.key(path);
        let bytes = self.documents.get(&key)?;
        Some((key, bytes))
    }
}

impl FileSystem for Overlay {
    /// The document's bytes, or the base's file.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        match self.document(path) {
            Some((_, bytes)) => Ok(bytes.to_vec()),
            None => self.base.read(path),
        }
    }

    /// The document's key (see [`Overlay`]), or the base's real path.
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        match self.document(path) {
            Some((key, _)) => Ok(key),
            None => self.base.canonicalize(path),
        }
    }

    /// True for a document, else the base's answer.
    fn is_file(&self, path: &Path) -> bool {
        self.document(path).is_some() || self.base.is_file(path)
    }

    /// False for a document, else the base's answer.
    fn is_dir(&self, path: &Path) -> bool {
        self.document(path).is_none() && self.base.is_dir(path)
    }

    /// The document's bytes, or the base's stream.
    fn open(&self, path: &Path) -> io::Result<Box<dyn io::Read + Send>> {
        match self.document(path) {
            Some((_, bytes)) => Ok(Box::new(io::Cursor::new(bytes.to_vec()))),
            None => self.base.open(path),
        }
    }
}
