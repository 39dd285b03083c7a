//! The rendered interaction: everything a provider adapter needs to build
//! its request.

use crate::canonical::fingerprint;
use crate::ir::{Interaction, Role};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};

/// One rendered message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderedMessage {
    /// The role.
    pub role: Role,
    /// The rendered text.
    pub content: String,
}

/// A rendered interaction: the compiled interaction's metadata plus the
/// rendered messages. Borrows the interaction, so rendering copies nothing
/// but message text.
///
/// It serialises to the request shape whose canonical JSON the request
/// fingerprint covers: `compiler`, `contract_id`, `contract_version`,
/// `messages`, `output_schema`, `required_capabilities`,
/// `target_capabilities`, `runtime_policy`, `extensions` (key → value).
#[derive(Clone, Debug, PartialEq)]
pub struct RenderedInteraction<'i> {
    /// The compiled interaction this was rendered from.
    pub interaction: &'i Interaction,
    /// The rendered messages, in order.
    pub messages: Vec<RenderedMessage>,
}

impl<'i> RenderedInteraction<'i> {
    /// Wraps rendered messages.
    pub fn new(interaction: &'i Interaction, messages: Vec<RenderedMessage>) -> Self {
        RenderedInteraction {
            interaction,
            messages,
        }
    }

    /// The request fingerprint: SHA-256 of the canonical JSON of this
    /// interaction's serialisation. Computed on demand (hashing is not free).
    pub fn request_fingerprint(&self) -> String {
        fingerprint(&serde_json::to_value(self).unwrap_or(serde_json::Value::Null))
    }
}

impl Serialize for RenderedInteraction<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Extensions<'a>(&'a Interaction);
        impl Serialize for Extensions<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(self.0.extensions.len()))?;
                for e in self.0.extensions.iter() {
                    m.serialize_entry(&*e.key, &e.value)?;
                }
                m.end()
            }
        }
        let i = self.interaction;
        let mut m = s.serialize_map(Some(9))?;
        m.serialize_entry("compiler", &*i.compiler)?;
        m.serialize_entry("contract_id", &*i.contract_id)?;
        m.serialize_entry("contract_version", &*i.contract_version)?;
        m.serialize_entry("messages", &self.messages)?;
        m.serialize_entry("output_schema", &i.output_schema)?;
        m.serialize_entry("required_capabilities", &i.required_capabilities)?;
        m.serialize_entry("target_capabilities", &i.target_capabilities)?;
        m.serialize_entry("runtime_policy", &i.runtime_policy)?;
        m.serialize_entry("extensions", &Extensions(i))?;
        m.end()
    }
}
