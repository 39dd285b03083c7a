//! The contract-level phases of [`compile_contract_with`](super::compile_contract_with):
//! the header, the capabilities, the declarations, the extensions, and the
//! assembly of the [`Interaction`] (`docs/format.md`, "Top-level fields",
//! "Capabilities and the target profile", "Field declarations",
//! "Extensions", "Canonical JSON and fingerprints").

use super::{COMPILER, CompileOptions, Cx, FieldInfo, interaction_fingerprint, is_valid_id};
use crate::dto::{Contract, Loc};
use std::collections::BTreeSet;
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::ir;
use templiqx_contracts::{
    API_VERSION, CapabilityProfile, Code, Diagnostic, Interaction, IrValue, JsonType, Schema, Seq,
    Str,
};

/// What the declarations phase produced: the fields of `inputs` and
/// `context`, and the compiled `output_schema` (`None` when it failed).
pub(super) struct Declared {
    pub(super) inputs: Vec<FieldInfo>,
    pub(super) context: Vec<FieldInfo>,
    pub(super) output_schema: Option<Schema>,
}

/// What the lowering phases produced, for [`assemble`].
pub(super) struct Lowered {
    pub(super) messages: Vec<ir::Message>,
    pub(super) components: Vec<ir::Component>,
    pub(super) extensions: Vec<ir::Extension>,
}

impl Cx<'_> {
    /// `api_version` (`TQX_API_VERSION`), `id` and `version` (SemVer) and a
    /// non-empty `messages` (`TQX_INVALID_VALUE`).
    pub(super) fn header(&mut self, contract: &Contract) {
        let at = |p: &str| Loc::new(contract.loc.file, p);
        if contract.api_version != API_VERSION {
            self.err(
                Code::ApiVersion,
                format!("unsupported api_version `{}`", contract.api_version),
                &at("/api_version"),
                format!("this compiler implements `{API_VERSION}`"),
            );
        }
        if !is_valid_id(&contract.id) {
            self.err(
                Code::InvalidValue,
                format!("contract id `{}` is not a valid id", contract.id),
                &at("/id"),
                "an id starts with an ASCII letter and continues with ASCII letters, digits, `-`, `_` or `.`",
            );
        }
        if let Err(e) = semver::Version::parse(&contract.version) {
            self.err(
                Code::InvalidValue,
                format!(
                    "version `{}` is not a semantic version: {e}",
                    contract.version
                ),
                &at("/version"),
                "write MAJOR.MINOR.PATCH, e.g. `0.1.0` (SemVer 2.0.0)",
            );
        }
        if contract.messages.is_empty() {
            self.err(
                Code::InvalidValue,
                "a contract needs at least one message",
                &at("/messages"),
                "add a message",
            );
        }
    }

    /// Each required capability: non-empty and listed once
    /// (`TQX_INVALID_VALUE`), and provided by `target`
    /// (`TQX_CAPABILITY_UNSUPPORTED`).
    pub(super) fn capabilities(&mut self, contract: &Contract, target: &CapabilityProfile) {
        let mut seen = BTreeSet::new();
        for (i, cap) in contract.capabilities.iter().enumerate() {
            let loc = Loc::new(contract.loc.file, format!("/capabilities/{i}"));
            if cap.is_empty() {
                self.err(
                    Code::InvalidValue,
                    "empty capability name",
                    &loc,
                    "remove it or name the capability",
                );
            } else if !seen.insert(cap.as_str()) {
                self.err(
                    Code::InvalidValue,
                    format!("capability `{cap}` is listed twice"),
                    &loc,
                    "remove the duplicate",
                );
            } else if !target.contains(cap) {
                self.err(
                    Code::CapabilityUnsupported,
                    format!(
                        "the target profile lacks capability `{cap}` that the contract requires"
                    ),
                    &loc,
                    format!(
                        "compile for a target that provides `{cap}` (target: {})",
                        describe_profile(target)
                    ),
                );
            }
        }
    }

    /// Compiles the schemas of `inputs`, `context` and `output_schema`, and
    /// checks that a declared `context.locale` is a string
    /// (`TQX_TYPE_MISMATCH`).
    pub(super) fn declarations(&mut self, contract: &Contract) -> Declared {
        let at = |p: &str| Loc::new(contract.loc.file, p);
        let inputs = self.fields(&contract.inputs, &at("/inputs"), "input");
        let context = self.fields(&contract.context, &at("/context"), "context field");
        let output_schema = self.schema(&contract.output_schema, &at("/output_schema"));
        if let Some(f) = context.iter().find(|f| f.name == "locale")
            && let Some(s) = &f.schema
            && !s.types.is_only(JsonType::String)
        {
            self.err(
                Code::TypeMismatch,
                "`context.locale` drives format_date/format_number and must be a string",
                &at("/context/locale/schema"),
                "declare `type: string`",
            );
        }
        Declared {
            inputs,
            context,
            output_schema,
        }
    }

    /// Checks and lowers `extensions`: a namespaced key
    /// (`TQX_EXTENSION_KEY`), a capability the target provides
    /// (`TQX_EXTENSION_UNSUPPORTED`), a resolved schema
    /// (`TQX_TOOL_CONTRACT_REF_UNRESOLVED`) and a value valid against it
    /// (`TQX_EXTENSION_VALUE`). Sorted by key.
    pub(super) fn extensions(
        &mut self,
        contract: &Contract,
        target: &CapabilityProfile,
    ) -> Vec<ir::Extension> {
        let mut extensions = Vec::with_capacity(contract.extensions.len());
        for (key, ext) in contract.extensions.iter() {
            let loc = Loc::new(contract.loc.file, pointer_push("/extensions", key));
            if !is_namespaced(key) {
                let d = self
                    .sources
                    .error_at_key(
                        Code::ExtensionKey,
                        format!("extension key `{key}` is not namespaced"),
                        &loc,
                    )
                    .help(format!(
                        "prefix it with its vendor or tool namespace, e.g. `vendor.{key}`"
                    ));
                self.diags.push(d);
            }
            self.extension_capability(key, &ext.capability, &loc.child("capability"), target);
            let schema_loc = loc.child("schema");
            if let Some(r) = ext.schema.get("$ref").and_then(|r| r.as_str())
                && r.starts_with("tool_contract:")
            {
                self.err(
                    Code::ToolContractRefUnresolved,
                    format!("tool-contract reference `{r}` was not resolved"),
                    &schema_loc,
                    "tool-contract references resolve through the package manifest's `tool_contracts`; compile the contract through its package",
                );
                continue;
            }
            let Some(schema) = self.schema(&ext.schema, &schema_loc) else {
                continue;
            };
            self.violations(
                Code::ExtensionValue,
                &schema,
                &ext.value,
                &loc.child("value"),
                &format!("the value of extension `{key}`"),
            );
            extensions.push(ir::Extension {
                key: Str::Owned(key.to_owned()),
                capability: Str::Owned(ext.capability.clone()),
                schema,
                value: IrValue::from_json(&ext.value),
            });
        }
        extensions.sort_by(|a, b| a.key.cmp(&b.key));
        extensions
    }

    fn extension_capability(
        &mut self,
        key: &str,
        capability: &str,
        loc: &Loc,
        target: &CapabilityProfile,
    ) {
        if capability.is_empty() {
            self.err(
                Code::InvalidValue,
                "empty extension capability",
                loc,
                "name the capability it needs",
            );
        } else if !target.contains(capability) {
            self.err(
                Code::ExtensionUnsupported,
                format!(
                    "extension `{key}` needs capability `{capability}`, which the target profile lacks"
                ),
                loc,
                format!(
                    "compile for a target that provides `{capability}` (target: {}), or remove the extension",
                    describe_profile(target)
                ),
            );
        }
    }
}

/// The last phase: the [`Interaction`] with its required capabilities and
/// fingerprints (the interaction's left empty when `options` say so), or
/// every diagnostic the earlier phases reported.
pub(super) fn assemble(
    mut cx: Cx<'_>,
    contract: &Contract,
    target: &CapabilityProfile,
    options: &CompileOptions,
    declared: Declared,
    lowered: Lowered,
) -> Result<Interaction, Vec<Diagnostic>> {
    if !cx.diags.is_empty() {
        return Err(cx.diags);
    }
    let (Some(output_schema), Some(inputs), Some(context)) = (
        declared.output_schema,
        owned_fields(declared.inputs),
        owned_fields(declared.context),
    ) else {
        return Err(cx.diags);
    };
    let Lowered {
        messages,
        components,
        extensions,
    } = lowered;
    let mut required: BTreeSet<String> = contract.capabilities.iter().cloned().collect();
    required.extend(extensions.iter().map(|e| e.capability.to_string()));
    let context_locale = context.iter().any(|f| f.name == "locale");
    let contract_fingerprint = if options.without_fingerprints {
        String::new()
    } else {
        templiqx_contracts::canonical::fingerprint(
            &serde_json::to_value(contract).unwrap_or(serde_json::Value::Null),
        )
    };
    let mut interaction = Interaction {
        compiler: Str::Borrowed(COMPILER),
        contract_id: Str::Owned(contract.id.clone()),
        contract_version: Str::Owned(contract.version.clone()),
        inputs: Seq::Owned(inputs),
        context: Seq::Owned(context),
        messages: Seq::Owned(messages),
        components: Seq::Owned(components),
        output_schema,
        runtime_policy: contract.runtime_policy,
        extensions: Seq::Owned(extensions),
        required_capabilities: Seq::Owned(required.into_iter().map(Str::Owned).collect()),
        target_capabilities: Seq::Owned(target.iter().map(|c| Str::Owned(c.to_owned())).collect()),
        context_locale,
        sites: Seq::Owned(std::mem::take(&mut cx.sites)),
        contract_fingerprint: Str::Owned(contract_fingerprint),
        interaction_fingerprint: Str::Borrowed(""),
    };
    if !options.without_fingerprints {
        interaction.interaction_fingerprint = Str::Owned(interaction_fingerprint(&interaction));
    }
    Ok(interaction)
}

fn describe_profile(target: &CapabilityProfile) -> String {
    if target.0.is_empty() {
        "empty".to_owned()
    } else {
        target
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Whether an extension key is `namespace.name`: both parts non-empty, the
/// name not starting or ending with `.` (`docs/format.md`, "Extensions").
fn is_namespaced(key: &str) -> bool {
    match key.split_once('.') {
        Some((ns, name)) => {
            !ns.is_empty() && !name.is_empty() && !name.starts_with('.') && !name.ends_with('.')
        }
        None => false,
    }
}

fn owned_fields(fields: Vec<FieldInfo>) -> Option<Vec<ir::Field>> {
    fields
        .into_iter()
        .map(|f| {
            Some(ir::Field {
                name: Str::Owned(f.name),
                schema: f.schema?,
                required: f.required,
            })
        })
        .collect()
}
