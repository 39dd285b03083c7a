//! Target capability profiles: compilation always takes an explicit one
//! (`docs/format.md`, "Capabilities and the target profile"). There is
//! deliberately no default profile.

use std::collections::BTreeSet;

/// The capabilities a compilation targets, e.g. `structured_output`,
/// `openai.reasoning`. Sorted and unique.
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct CapabilityProfile(pub BTreeSet<String>);

impl CapabilityProfile {
    /// A profile from capability names (duplicates collapse; empty names are dropped).
    pub fn new<I, S>(capabilities: I) -> CapabilityProfile
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        CapabilityProfile(
            capabilities
                .into_iter()
                .map(Into::into)
                .filter(|s| !s.is_empty())
                .collect(),
        )
    }

    /// Parses a comma-separated list (`structured_output,tools`); surrounding
    /// white space is ignored.
    pub fn parse_list(list: &str) -> CapabilityProfile {
        CapabilityProfile::new(list.split(',').map(str::trim))
    }

    /// Whether `capability` is in the profile.
    pub fn contains(&self, capability: &str) -> bool {
        self.0.contains(capability)
    }

    /// The capabilities, sorted.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }
}
