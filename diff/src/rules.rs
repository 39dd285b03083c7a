//! The rules: every kind of change `templiqx diff` reports, each with a
//! stable id, one [`Class`] and a help line (`docs/diff.md` has each rule's
//! rationale and a minimal before/after example).
//!
//! Schema rules come in two families. `INPUT_*` rules judge the schemas of
//! `inputs` and `context`, which callers write: a change that refuses a
//! value the old schema accepted (*narrowed*) breaks callers, one that only
//! accepts more (*widened*) is compatible. `OUTPUT_*` rules judge
//! `output_schema`, which consumers (and the generated `Output`) read: there
//! the directions swap.

use serde::{Serialize, Serializer};
use std::fmt;

// This file is the registry: each rule's line in `rules!` below says its
// id, its class, the families that report it (the one it is named for
// first) and its help. A family's handler is `compare` in the file of its
// name below (`Family::RuntimePolicy`: `rules/runtime_policy.rs`). The
// contract families run in the order of `crate::contract`, the package ones
// from `crate::package`; the handlers share `crate::pair`, `crate::content`,
// `crate::schema_changes`, `crate::schema` and `crate::text`, and never call
// one another.
pub(crate) mod capabilities;
pub(crate) mod components;
pub(crate) mod contracts;
pub(crate) mod documentation;
pub(crate) mod evals;
pub(crate) mod extensions;
pub(crate) mod inputs;
pub(crate) mod manifest;
pub(crate) mod messages;
pub(crate) mod output;
pub(crate) mod partials;
pub(crate) mod provenance;
pub(crate) mod runtime_policy;

/// How much a change matters, in the order the version gate ranks them.
///
/// `Breaking` and `MayBreak` need an incompatible version (a major bump, or
/// the 0.x equivalent); `CompatibleShape` a minor bump (a patch bump in
/// 0.x); `Behaviour` a patch bump; `NoCompiledChange` none
/// (`docs/diff.md`, "The version gate").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Alters nothing a request, a rendered prompt or a generated type
    /// depends on: documentation, provenance, eval fixtures.
    NoCompiledChange,
    /// Changes what the model is asked (messages, partials, components,
    /// runtime policy, extensions, output schema annotations) but no shape.
    Behaviour,
    /// Changes a shape compatibly: every old caller and consumer still works.
    CompatibleShape,
    /// The comparison could not decide whether callers or consumers break;
    /// the version gate treats it as breaking.
    MayBreak,
    /// Breaks callers, consumers or hosts.
    Breaking,
}

impl Class {
    /// Every class, least severe first.
    pub const ALL: [Class; 5] = [
        Class::NoCompiledChange,
        Class::Behaviour,
        Class::CompatibleShape,
        Class::MayBreak,
        Class::Breaking,
    ];

    /// The spelling in JSON output and `docs/diff.md`: `breaking`,
    /// `may-break`, `compatible-shape`, `behaviour`, `no-compiled-change`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Class::NoCompiledChange => "no-compiled-change",
            Class::Behaviour => "behaviour",
            Class::CompatibleShape => "compatible-shape",
            Class::MayBreak => "may-break",
            Class::Breaking => "breaking",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Class {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A family of rules: the rules one handler reports, the handler being
/// `compare` in `diff/src/rules/<name>.rs` ([`Family::name`]), as oasdiff
/// keeps one file per rule family and `buf breaking` groups its rules in
/// categories.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Family {
    /// Contracts matched by id, and two contract files' ids
    /// ([`contracts`]; called by the package driver).
    Contracts,
    /// The manifests of two packages ([`manifest::compare`]).
    Manifest,
    /// The schemas of `inputs` and `context` ([`inputs::compare`]).
    Inputs,
    /// `output_schema` ([`output::compare`]).
    Output,
    /// Required capabilities ([`capabilities::compare`]).
    Capabilities,
    /// Messages ([`messages::compare`]).
    Messages,
    /// Local components ([`components::compare`]).
    Components,
    /// What includes splice in from partial files ([`partials::compare`]).
    Partials,
    /// `runtime_policy` ([`runtime_policy::compare`]).
    RuntimePolicy,
    /// Extensions ([`extensions::compare`]).
    Extensions,
    /// Descriptions of the contract and its fields
    /// ([`documentation::compare`]).
    Documentation,
    /// The contract's `provenance` ([`provenance::compare`]).
    Provenance,
    /// Eval fixtures ([`evals::compare`]).
    Evals,
}

impl Family {
    /// The name of the family's file in `diff/src/rules/`, without `.rs`.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Family::Contracts => "contracts",
            Family::Manifest => "manifest",
            Family::Inputs => "inputs",
            Family::Output => "output",
            Family::Capabilities => "capabilities",
            Family::Messages => "messages",
            Family::Components => "components",
            Family::Partials => "partials",
            Family::RuntimePolicy => "runtime_policy",
            Family::Extensions => "extensions",
            Family::Documentation => "documentation",
            Family::Provenance => "provenance",
            Family::Evals => "evals",
        }
    }

    /// Checks, in debug builds, that the registry lists this family for
    /// each of `rules` (those its handler just reported), so the registry
    /// stays the map from a rule to its code.
    pub(crate) fn check(self, rules: impl IntoIterator<Item = Rule>) {
        for rule in rules {
            debug_assert!(
                rule.families().contains(&self),
                "rules/{}.rs reports {rule}, which the registry does not list for it",
                self.name()
            );
        }
    }
}

macro_rules! rules {
    ($($(#[$doc:meta])* $variant:ident => $id:literal, $class:ident, [$($family:ident),+], $help:literal;)*) => {
        /// A rule of `templiqx diff`: what kind of change was found.
        /// Serialises as its id.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Rule {
            $($(#[$doc])* $variant,)*
        }

        impl Rule {
            /// Every rule, in the order `docs/diff.md` lists them.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant,)*];

            /// The stable id (`INPUT_FIELD_ADDED_REQUIRED`).
            pub const fn id(self) -> &'static str {
                match self {
                    $(Rule::$variant => $id,)*
                }
            }

            /// The rule's class.
            pub const fn class(self) -> Class {
                match self {
                    $(Rule::$variant => Class::$class,)*
                }
            }

            /// The families whose handlers report the rule, the one it is
            /// named for first.
            pub(crate) const fn families(self) -> &'static [Family] {
                match self {
                    $(Rule::$variant => &[$(Family::$family),+],)*
                }
            }

            /// What to do about a change of this rule.
            pub const fn help(self) -> &'static str {
                match self {
                    $(Rule::$variant => $help,)*
                }
            }

            /// The rule with this id.
            pub fn parse(id: &str) -> Option<Rule> {
                match id {
                    $($id => Some(Rule::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

rules! {
    /// A contract of the old package is not in the new one.
    ContractRemoved => "CONTRACT_REMOVED", Breaking, [Contracts],
        "hosts that compile or call it fail; keep the contract, or release the package as a breaking version";
    /// A contract of the new package was not in the old one.
    ContractAdded => "CONTRACT_ADDED", CompatibleShape, [Contracts],
        "a new contract adds to the package; nothing that used the old package changes";
    /// Two contract files compared directly declare different ids.
    ContractIdChanged => "CONTRACT_ID_CHANGED", Breaking, [Contracts],
        "hosts, receipts and eval histories name the contract by its id, and no longer find it; keep the id, or release a breaking version";
    /// The contract requires a capability it did not (directly or through an
    /// extension).
    CapabilityAdded => "CAPABILITY_ADDED", Breaking, [Capabilities],
        "hosts whose target profile lacks the capability can no longer compile or execute the contract (TQX_CAPABILITY_UNSUPPORTED)";
    /// The contract no longer requires a capability.
    CapabilityRemoved => "CAPABILITY_REMOVED", CompatibleShape, [Capabilities],
        "more targets can run the contract; every old host still can";
    /// A message's role or content changed, or a message was added or removed.
    MessageChanged => "MESSAGE_CHANGED", Behaviour, [Messages],
        "the model is asked something else: review the eval fixtures' results (`templiqx eval`) before releasing";
    /// A partial spliced in by an `include` now holds other content.
    PartialChanged => "PARTIAL_CHANGED", Behaviour, [Partials],
        "every contract that includes the partial asks the model something else; each is reported";
    /// A local component's parameters or body changed, or it was added or removed.
    ComponentChanged => "COMPONENT_CHANGED", Behaviour, [Components],
        "the messages that invoke the component render differently";
    /// A `runtime_policy` hint changed.
    RuntimePolicyChanged => "RUNTIME_POLICY_CHANGED", Behaviour, [RuntimePolicy],
        "adapters sample, time out or retry differently";
    /// An extension was added, removed, or its value, schema or capability changed.
    ExtensionChanged => "EXTENSION_CHANGED", Behaviour, [Extensions],
        "the runtime that reads the extension behaves differently (a new capability is reported as CAPABILITY_ADDED)";
    /// A `title` or `description` inside `output_schema` changed: the model
    /// receives the output schema.
    OutputAnnotationChanged => "OUTPUT_ANNOTATION_CHANGED", Behaviour, [Output],
        "the output schema sent to the model reads differently; the shape is the same";
    /// A description that reaches no request changed: the contract's, a
    /// field declaration's, a schema annotation outside `output_schema`, the
    /// package's.
    DocumentationChanged => "DOCUMENTATION_CHANGED", NoCompiledChange, [Documentation, Inputs, Components, Extensions, Manifest],
        "documentation only: no version bump is needed";
    /// `provenance` of the contract or the package changed.
    ProvenanceChanged => "PROVENANCE_CHANGED", NoCompiledChange, [Provenance, Manifest],
        "metadata only: no version bump is needed";
    /// An eval fixture was added, removed or changed.
    EvalChanged => "EVAL_CHANGED", NoCompiledChange, [Evals],
        "fixtures are tests, not part of the interaction: no version bump is needed";
    /// A manifest dependency was added, removed, or points elsewhere.
    DependencyChanged => "DEPENDENCY_CHANGED", Behaviour, [Manifest],
        "the partials reachable with `from_dependency` come from elsewhere; what the contracts render differently is reported on them";
    /// A tool contract was added to the manifest.
    ToolContractAdded => "TOOL_CONTRACT_ADDED", CompatibleShape, [Manifest],
        "a new shared schema; nothing that used the old package changes";
    /// A tool contract of the manifest was removed.
    ToolContractRemoved => "TOOL_CONTRACT_REMOVED", Breaking, [Manifest],
        "anything pinned to the tool contract no longer resolves (TQX_TOOL_CONTRACT_REF_UNRESOLVED)";
    /// A tool contract's schema accepts other values.
    ToolContractChanged => "TOOL_CONTRACT_CHANGED", Breaking, [Manifest],
        "a tool's schema is written by one side and read by the other, so no direction of change is safe: release it as a breaking version, or add a new tool contract beside it";
    /// An artifact list of the manifest (`evals`, `templates`, ...) changed.
    ArtifactsChanged => "ARTIFACTS_CHANGED", NoCompiledChange, [Manifest],
        "artifact lists are recorded, never read by the compiler: no version bump is needed";

    /// An input or context field is no longer declared.
    InputFieldRemoved => "INPUT_FIELD_REMOVED", Breaking, [Inputs],
        "callers that still send the field are refused (a request may not carry undeclared fields); keep it, optional, until a breaking release";
    /// A new input or context field is required.
    InputFieldAddedRequired => "INPUT_FIELD_ADDED_REQUIRED", Breaking, [Inputs],
        "callers that do not send it are refused; add it as optional (`required: false`), or release a breaking version";
    /// An optional input or context field became required.
    InputFieldMadeRequired => "INPUT_FIELD_MADE_REQUIRED", Breaking, [Inputs],
        "callers that leave it out are refused; keep it optional, or release a breaking version";
    /// A new optional input or context field.
    InputFieldAdded => "INPUT_FIELD_ADDED", CompatibleShape, [Inputs],
        "old callers do not send it and are still accepted";
    /// A required input or context field became optional.
    InputFieldMadeOptional => "INPUT_FIELD_MADE_OPTIONAL", CompatibleShape, [Inputs],
        "old callers send it and are still accepted";

    /// A value the old input schema accepted is refused because of its type.
    InputTypeNarrowed => "INPUT_TYPE_NARROWED", Breaking, [Inputs],
        "callers that send a value of the dropped type (or `null`) are refused; accept it again, or release a breaking version";
    /// The input schema accepts more types.
    InputTypeWidened => "INPUT_TYPE_WIDENED", CompatibleShape, [Inputs],
        "every value callers sent is still accepted";
    /// The input schema's `enum`/`const` refuses a value it accepted.
    InputEnumNarrowed => "INPUT_ENUM_NARROWED", Breaking, [Inputs],
        "callers that send a dropped value are refused; keep the value, or release a breaking version";
    /// The input schema's `enum`/`const` accepts more values.
    InputEnumWidened => "INPUT_ENUM_WIDENED", CompatibleShape, [Inputs],
        "every value callers sent is still accepted";
    /// The input schema's numeric bounds refuse a number they accepted.
    InputRangeNarrowed => "INPUT_RANGE_NARROWED", Breaking, [Inputs],
        "callers that send a number outside the new bounds are refused; relax the bounds, or release a breaking version";
    /// The input schema's numeric bounds accept more numbers.
    InputRangeWidened => "INPUT_RANGE_WIDENED", CompatibleShape, [Inputs],
        "every number callers sent is still accepted";
    /// The input schema's `minLength`/`maxLength` refuse a string they accepted.
    InputLengthNarrowed => "INPUT_LENGTH_NARROWED", Breaking, [Inputs],
        "callers that send a string of a dropped length are refused; relax the bound, or release a breaking version";
    /// The input schema's length bounds accept more strings.
    InputLengthWidened => "INPUT_LENGTH_WIDENED", CompatibleShape, [Inputs],
        "every string callers sent is still accepted";
    /// The input schema's `format` refuses a string it accepted.
    InputFormatNarrowed => "INPUT_FORMAT_NARROWED", Breaking, [Inputs],
        "callers that send a string outside the new format are refused; drop the format, or release a breaking version";
    /// The input schema's `format` accepts more strings.
    InputFormatWidened => "INPUT_FORMAT_WIDENED", CompatibleShape, [Inputs],
        "every string callers sent is still accepted";
    /// The input schema's `minItems`/`maxItems` refuse an array they accepted.
    InputItemCountNarrowed => "INPUT_ITEM_COUNT_NARROWED", Breaking, [Inputs],
        "callers that send an array of a dropped length are refused; relax the bound, or release a breaking version";
    /// The input schema's item counts accept more arrays.
    InputItemCountWidened => "INPUT_ITEM_COUNT_WIDENED", CompatibleShape, [Inputs],
        "every array callers sent is still accepted";
    /// A property of a closed input object is no longer declared.
    InputPropertyRemoved => "INPUT_PROPERTY_REMOVED", Breaking, [Inputs],
        "callers that send the property are refused (`additionalProperties: false`); keep it, or release a breaking version";
    /// A new property of an input object is required.
    InputPropertyAddedRequired => "INPUT_PROPERTY_ADDED_REQUIRED", Breaking, [Inputs],
        "callers that do not send it are refused; make it optional, or release a breaking version";
    /// An optional property of an input object became required.
    InputPropertyMadeRequired => "INPUT_PROPERTY_MADE_REQUIRED", Breaking, [Inputs],
        "callers that leave it out are refused; keep it optional, or release a breaking version";
    /// An open input object now declares a property, and constrains its value.
    InputPropertyDeclared => "INPUT_PROPERTY_DECLARED", Breaking, [Inputs],
        "the object accepted any value under this name; callers that sent one the new schema refuses are refused";
    /// An input object that accepted undeclared properties no longer does.
    InputAdditionalPropertiesClosed => "INPUT_ADDITIONAL_PROPERTIES_CLOSED", Breaking, [Inputs],
        "callers that send a property the object does not declare are refused; keep it open, or release a breaking version";
    /// A closed input object declares a new optional property.
    InputPropertyAdded => "INPUT_PROPERTY_ADDED", CompatibleShape, [Inputs],
        "old callers do not send it and are still accepted";
    /// A required property of an input object became optional (or was dropped
    /// from an open object).
    InputPropertyMadeOptional => "INPUT_PROPERTY_MADE_OPTIONAL", CompatibleShape, [Inputs],
        "old callers send it and are still accepted";
    /// An open input object no longer declares a property: any value is accepted under its name.
    InputPropertyUndeclared => "INPUT_PROPERTY_UNDECLARED", CompatibleShape, [Inputs],
        "every value callers sent is still accepted";
    /// An input object now accepts undeclared properties.
    InputAdditionalPropertiesOpened => "INPUT_ADDITIONAL_PROPERTIES_OPENED", CompatibleShape, [Inputs],
        "every object callers sent is still accepted";
    /// Whether the new input schema accepts everything the old one did could not be decided.
    InputSchemaUndecided => "INPUT_SCHEMA_UNDECIDED", MayBreak, [Inputs],
        "review the change by hand: callers may be refused; the version gate counts it as breaking";

    /// A value the new output schema accepts was refused by the old one because of its type.
    OutputTypeWidened => "OUTPUT_TYPE_WIDENED", Breaking, [Output],
        "consumers (and the generated `Output`) refuse the new type; keep the type, or release a breaking version";
    /// The output schema accepts fewer types.
    OutputTypeNarrowed => "OUTPUT_TYPE_NARROWED", CompatibleShape, [Output],
        "every output the new schema accepts, old consumers read";
    /// The output schema's `enum`/`const` accepts a value the old one refused.
    OutputEnumWidened => "OUTPUT_ENUM_WIDENED", Breaking, [Output],
        "consumers (and a generated enum) do not know the new value; release a breaking version";
    /// The output schema's `enum`/`const` accepts fewer values.
    OutputEnumNarrowed => "OUTPUT_ENUM_NARROWED", CompatibleShape, [Output],
        "every value the new schema accepts, old consumers read";
    /// The output schema's numeric bounds were relaxed.
    OutputRangeWidened => "OUTPUT_RANGE_WIDENED", Breaking, [Output],
        "consumers that relied on the old bounds may receive numbers outside them; release a breaking version";
    /// The output schema's numeric bounds were tightened.
    OutputRangeNarrowed => "OUTPUT_RANGE_NARROWED", CompatibleShape, [Output],
        "every number the new schema accepts, old consumers read";
    /// The output schema's length bounds were relaxed.
    OutputLengthWidened => "OUTPUT_LENGTH_WIDENED", Breaking, [Output],
        "consumers that relied on the old lengths may receive strings outside them; release a breaking version";
    /// The output schema's length bounds were tightened.
    OutputLengthNarrowed => "OUTPUT_LENGTH_NARROWED", CompatibleShape, [Output],
        "every string the new schema accepts, old consumers read";
    /// The output schema's `format` was dropped or changed.
    OutputFormatWidened => "OUTPUT_FORMAT_WIDENED", Breaking, [Output],
        "consumers that parse the old format may receive strings that are not; release a breaking version";
    /// The output schema gained a `format`.
    OutputFormatNarrowed => "OUTPUT_FORMAT_NARROWED", CompatibleShape, [Output],
        "every string the new schema accepts, old consumers read";
    /// The output schema's item counts were relaxed.
    OutputItemCountWidened => "OUTPUT_ITEM_COUNT_WIDENED", Breaking, [Output],
        "consumers that relied on the old counts may receive arrays outside them; release a breaking version";
    /// The output schema's item counts were tightened.
    OutputItemCountNarrowed => "OUTPUT_ITEM_COUNT_NARROWED", CompatibleShape, [Output],
        "every array the new schema accepts, old consumers read";
    /// A closed output object declares a new property.
    OutputPropertyAdded => "OUTPUT_PROPERTY_ADDED", Breaking, [Output],
        "old consumers (and the generated `Output`, which refuses unknown members of a closed object) refuse outputs that carry it; release a breaking version";
    /// A required output property became optional (or was removed).
    OutputPropertyMadeOptional => "OUTPUT_PROPERTY_MADE_OPTIONAL", Breaking, [Output],
        "old consumers expect it in every output; keep it required, or release a breaking version";
    /// An open output object no longer declares a property: any value may appear under its name.
    OutputPropertyUndeclared => "OUTPUT_PROPERTY_UNDECLARED", Breaking, [Output],
        "old consumers read the property with its old type; release a breaking version";
    /// An output object now allows undeclared properties.
    OutputAdditionalPropertiesOpened => "OUTPUT_ADDITIONAL_PROPERTIES_OPENED", Breaking, [Output],
        "old consumers of the closed object refuse unknown members; release a breaking version";
    /// A property of a closed output object is no longer declared.
    OutputPropertyRemoved => "OUTPUT_PROPERTY_REMOVED", CompatibleShape, [Output],
        "outputs no longer carry the optional property, which old consumers did not require";
    /// A new output property is required.
    OutputPropertyAddedRequired => "OUTPUT_PROPERTY_ADDED_REQUIRED", CompatibleShape, [Output],
        "every output the new schema accepts, old consumers of the open object read";
    /// An optional output property became required.
    OutputPropertyMadeRequired => "OUTPUT_PROPERTY_MADE_REQUIRED", CompatibleShape, [Output],
        "every output the new schema accepts, old consumers read";
    /// An open output object now declares a property, and constrains its value.
    OutputPropertyDeclared => "OUTPUT_PROPERTY_DECLARED", CompatibleShape, [Output],
        "every output the new schema accepts, old consumers read";
    /// An output object no longer allows undeclared properties.
    OutputAdditionalPropertiesClosed => "OUTPUT_ADDITIONAL_PROPERTIES_CLOSED", CompatibleShape, [Output],
        "every output the new schema accepts, old consumers read";
    /// Whether old consumers read everything the new output schema accepts could not be decided.
    OutputSchemaUndecided => "OUTPUT_SCHEMA_UNDECIDED", MayBreak, [Output],
        "review the change by hand: consumers may break; the version gate counts it as breaking";
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl Serialize for Rule {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_screaming_snake_and_parse_back() {
        let mut seen = std::collections::BTreeSet::new();
        for rule in Rule::ALL {
            let id = rule.id();
            assert!(seen.insert(id), "{id} twice");
            assert!(
                id.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'),
                "{id} is not SCREAMING_SNAKE"
            );
            assert_eq!(Rule::parse(id), Some(*rule));
        }
        assert_eq!(Rule::parse("FIELD_NO_DELETE"), None);
    }

    #[test]
    fn every_family_of_the_registry_has_its_handler_file() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rules");
        for family in Rule::ALL.iter().flat_map(|rule| rule.families()) {
            let file = dir.join(format!("{}.rs", family.name()));
            assert!(file.is_file(), "{family:?}: no {}", file.display());
        }
    }

    #[test]
    fn input_and_output_rules_judge_directions_oppositely() {
        for rule in Rule::ALL {
            let id = rule.id();
            let Some(rest) = id.strip_prefix("OUTPUT_") else {
                continue;
            };
            if rest == "ANNOTATION_CHANGED" {
                continue;
            }
            let input = Rule::parse(&format!("INPUT_{rest}"))
                .unwrap_or_else(|| panic!("{id} has no INPUT_ twin"));
            match (input.class(), rule.class()) {
                (Class::MayBreak, Class::MayBreak)
                | (Class::Breaking, Class::CompatibleShape)
                | (Class::CompatibleShape, Class::Breaking) => {}
                other => panic!("{id}: {other:?}"),
            }
        }
    }
}
