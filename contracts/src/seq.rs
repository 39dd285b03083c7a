//! Storage that is either `'static` (emitted by the code generator) or owned
//! (built by the compiler at run time).

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;

/// A string that is either static data or owned.
pub type Str = Cow<'static, str>;

/// A slice that is either static data (generated code) or an owned `Vec`.
///
/// `Cow<'static, [T]>` cannot be used for recursive IR types (the `ToOwned`
/// bound recurses), so the IR uses this small enum instead.
pub enum Seq<T: 'static> {
    /// Borrowed from static data, e.g. `Seq::Static(&[...])` in generated code.
    Static(&'static [T]),
    /// Built at run time.
    Owned(Vec<T>),
}

impl<T> Seq<T> {
    /// An empty sequence (usable in `static` initialisers).
    pub const EMPTY: Seq<T> = Seq::Static(&[]);

    /// The elements as a slice.
    pub fn as_slice(&self) -> &[T] {
        match self {
            Seq::Static(s) => s,
            Seq::Owned(v) => v,
        }
    }
}

impl<T> Default for Seq<T> {
    fn default() -> Self {
        Seq::Static(&[])
    }
}

impl<T> Deref for Seq<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Clone> Clone for Seq<T> {
    fn clone(&self) -> Self {
        match self {
            Seq::Static(s) => Seq::Static(s),
            Seq::Owned(v) => Seq::Owned(v.clone()),
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for Seq<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<T: PartialEq> PartialEq for Seq<T> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T> From<Vec<T>> for Seq<T> {
    fn from(v: Vec<T>) -> Self {
        Seq::Owned(v)
    }
}

impl<T: serde::Serialize> serde::Serialize for Seq<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(s)
    }
}

impl<'a, T> IntoIterator for &'a Seq<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// A single value that is either static data or boxed.
pub enum Ptr<T: 'static> {
    /// Borrowed from static data.
    Static(&'static T),
    /// Built at run time.
    Owned(Box<T>),
}

impl<T> Deref for Ptr<T> {
    type Target = T;
    fn deref(&self) -> &T {
        match self {
            Ptr::Static(t) => t,
            Ptr::Owned(b) => b,
        }
    }
}

impl<T: Clone> Clone for Ptr<T> {
    fn clone(&self) -> Self {
        match self {
            Ptr::Static(t) => Ptr::Static(t),
            Ptr::Owned(b) => Ptr::Owned(b.clone()),
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for Ptr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

impl<T: PartialEq> PartialEq for Ptr<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: serde::Serialize> serde::Serialize for Ptr<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

impl<T> From<T> for Ptr<T> {
    fn from(t: T) -> Self {
        Ptr::Owned(Box::new(t))
    }
}
