//! The version gate (`docs/diff.md`, "The version gate"): from the classes
//! of the changes found, the least version bump Cargo's semver rules
//! require, and whether the new version makes it.
//!
//! | change | `1.2.3` needs | `0.2.3` needs | `0.0.3` needs |
//! |---|---|---|---|
//! | breaking, may-break | `2.0.0` (major) | `0.3.0` (minor) | `0.0.4` (patch) |
//! | compatible change of shape | `1.3.0` (minor) | `0.2.4` (patch) | `0.0.4` (patch) |
//! | behaviour | `1.2.4` (patch) | `0.2.4` (patch) | `0.0.4` (patch) |
//! | no compiled change | none | none | none |
//!
//! This is Cargo's reading of SemVer: a caret requirement `^x.y.z` accepts
//! the versions that do not change the leftmost non-zero component, so a
//! breaking change must change it; additions need a minor release from
//! `1.0.0` on, and any release below it. Pre-release and build metadata do
//! not count: versions are compared by `major.minor.patch`, and a new
//! version below the old one never suffices.

use crate::rules::Class;
use serde::Serialize;
use std::fmt;

/// A version bump, named as Cargo names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bump {
    /// No bump is needed.
    None,
    /// `z` of `x.y.z`.
    Patch,
    /// `y` of `x.y.z`.
    Minor,
    /// `x` of `x.y.z`.
    Major,
}

impl Bump {
    /// `none`, `patch`, `minor`, `major`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Bump::None => "none",
            Bump::Patch => "patch",
            Bump::Minor => "minor",
            Bump::Major => "major",
        }
    }
}

impl fmt::Display for Bump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the gate found for one versioned thing (a contract, a package).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Gate {
    /// The old version, as written.
    pub old: String,
    /// The new version, as written.
    pub new: String,
    /// The most severe class among the changes, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<Class>,
    /// The least bump that class needs from `old`.
    pub required: Bump,
    /// The least version that makes it (`old` when none is needed).
    pub least: String,
    /// Whether `new` makes it.
    pub sufficient: bool,
    /// Why not, when it does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The `major.minor.patch` of a SemVer 2.0.0 version (pre-release and build
/// metadata dropped); `None` when `text` is not SemVer.
fn triple(text: &str) -> Option<(u64, u64, u64)> {
    let v = semver::Version::parse(text.trim()).ok()?;
    Some((v.major, v.minor, v.patch))
}

/// The gate for a thing versioned `old` before and `new` after, whose most
/// severe change is `class` (`None`: nothing changed).
///
/// ```
/// use templiqx_diff::rules::Class;
/// use templiqx_diff::version::{gate, Bump};
///
/// let g = gate("0.1.0", "0.1.1", Some(Class::Breaking));
/// assert_eq!((g.required, g.least.as_str(), g.sufficient), (Bump::Minor, "0.2.0", false));
/// assert!(gate("1.4.2", "2.0.0", Some(Class::Breaking)).sufficient);
/// assert!(gate("1.4.2", "1.4.3", Some(Class::Behaviour)).sufficient);
/// assert!(!gate("1.4.2", "1.4.3", Some(Class::CompatibleShape)).sufficient);
/// assert!(gate("0.4.2", "0.4.3", Some(Class::CompatibleShape)).sufficient);
/// assert!(gate("1.0.0", "1.0.0", Some(Class::NoCompiledChange)).sufficient);
/// ```
pub fn gate(old: &str, new: &str, class: Option<Class>) -> Gate {
    let mut g = Gate {
        old: old.to_owned(),
        new: new.to_owned(),
        class,
        required: Bump::None,
        least: old.to_owned(),
        sufficient: true,
        reason: None,
    };
    let (Some(o), Some(n)) = (triple(old), triple(new)) else {
        let bad = if triple(old).is_none() { old } else { new };
        g.sufficient = false;
        g.reason = Some(format!(
            "`{bad}` is not a SemVer version (`major.minor.patch`), so the versions cannot be compared"
        ));
        return g;
    };
    let (required, least) = requirement(o, class);
    g.required = required;
    g.least = format!("{}.{}.{}", least.0, least.1, least.2);
    if n < o {
        g.sufficient = false;
        g.reason = Some(format!(
            "the new version {new} is below the old one {old}; a release never goes back"
        ));
        return g;
    }
    if !makes(o, n, class) {
        g.sufficient = false;
        let what = class.map_or("", Class::as_str);
        g.reason = Some(if old.trim() == new.trim() {
            format!(
                "the version stayed {old}, and a {what} change needs at least {}",
                g.least
            )
        } else if n == o {
            // Only pre-release or build metadata changed.
            format!(
                "{old} → {new} keeps {}.{}.{} (pre-release and build metadata do not count), and a {what} change needs at least {}",
                n.0, n.1, n.2, g.least
            )
        } else {
            format!(
                "{old} → {new} is not enough: a {what} change needs at least {} (a {} bump)",
                g.least, required
            )
        });
    }
    g
}

/// The bump `class` needs from `old`, and the least version making it.
fn requirement(o: (u64, u64, u64), class: Option<Class>) -> (Bump, (u64, u64, u64)) {
    let (x, y, z) = o;
    let patch = (Bump::Patch, (x, y, z.saturating_add(1)));
    match class {
        None | Some(Class::NoCompiledChange) => (Bump::None, o),
        Some(Class::Behaviour) => patch,
        Some(Class::CompatibleShape) if x >= 1 => (Bump::Minor, (x, y.saturating_add(1), 0)),
        Some(Class::CompatibleShape) => patch,
        Some(Class::Breaking | Class::MayBreak) => {
            if x >= 1 {
                (Bump::Major, (x.saturating_add(1), 0, 0))
            } else if y >= 1 {
                (Bump::Minor, (0, y.saturating_add(1), 0))
            } else {
                patch
            }
        }
    }
}

/// Whether going from `o` to `n` (`n ≥ o`) makes the bump `class` needs.
fn makes(o: (u64, u64, u64), n: (u64, u64, u64), class: Option<Class>) -> bool {
    match class {
        None | Some(Class::NoCompiledChange) => true,
        Some(Class::Behaviour) => n > o,
        Some(Class::CompatibleShape) if o.0 >= 1 => (n.0, n.1) > (o.0, o.1),
        Some(Class::CompatibleShape) => n > o,
        // Cargo's caret: the leftmost non-zero component must change.
        Some(Class::Breaking | Class::MayBreak) => {
            if o.0 >= 1 {
                n.0 > o.0
            } else if o.1 >= 1 {
                n.0 >= 1 || n.1 > o.1
            } else {
                n > o
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_zero_x_convention() {
        let b = Some(Class::Breaking);
        assert!(!gate("0.1.0", "0.1.9", b).sufficient);
        assert!(gate("0.1.0", "0.2.0", b).sufficient);
        assert!(gate("0.1.0", "1.0.0", b).sufficient);
        assert!(gate("0.0.3", "0.0.4", b).sufficient);
        assert_eq!(gate("0.0.3", "0.0.4", b).required, Bump::Patch);
        assert!(!gate("0.0.3", "0.0.3", b).sufficient);
        let c = Some(Class::CompatibleShape);
        assert!(gate("0.3.1", "0.3.2", c).sufficient);
        assert_eq!(gate("0.3.1", "0.3.2", c).required, Bump::Patch);
        assert_eq!(gate("2.3.1", "2.4.0", c).required, Bump::Minor);
        assert!(!gate("2.3.1", "2.3.2", c).sufficient);
    }

    #[test]
    fn may_break_counts_as_breaking() {
        let g = gate("1.0.0", "1.1.0", Some(Class::MayBreak));
        assert!(!g.sufficient);
        assert_eq!(g.least, "2.0.0");
    }

    #[test]
    fn pre_release_tags_do_not_count_and_versions_never_go_back() {
        assert!(gate("1.0.0", "2.0.0-alpha.1", Some(Class::Breaking)).sufficient);
        assert!(!gate("1.2.0", "1.1.9", None).sufficient);
        assert!(gate("1.2.0", "1.2.0+build.7", None).sufficient);
        let g = gate("0.2.0-alpha.1", "0.2.0", Some(Class::Breaking));
        assert_eq!(
            g.reason.as_deref(),
            Some(
                "0.2.0-alpha.1 → 0.2.0 keeps 0.2.0 (pre-release and build metadata do not count), and a breaking change needs at least 0.3.0"
            )
        );
        let g = gate("0.2.0", "0.2.0", Some(Class::Behaviour));
        assert_eq!(
            g.reason.as_deref(),
            Some("the version stayed 0.2.0, and a behaviour change needs at least 0.2.1")
        );
        let g = gate("1.2", "1.3.0", Some(Class::Behaviour));
        assert!(!g.sufficient);
        assert!(g.reason.unwrap().contains("not a SemVer version"));
    }
}
