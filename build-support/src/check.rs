//! Validation and lowering of a parsed (and composed) contract.
//!
//! One pass resolves every reference against the declared schemas, checks
//! the types every construct needs (seed 002: "Boolean operators and when
//! require booleans; for_each requires an array ..."), checks components,
//! capabilities, extensions and eval fixtures, and — when nothing is wrong —
//! produces the [`Interaction`] IR. All problems are reported at once.

use crate::dto::{self, ComponentDecl, ContentNode, Contract, ExprKind, Loc, NodeKind};
use crate::parse::did_you_mean;
use crate::schema::compile_schema;
use crate::source::Sources;
use std::collections::{BTreeSet, HashMap};
use templiqx_contracts::budget::MAX_FOR_EACH_DEPTH;
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::ir::{self, Filter, Root, Segment};
use templiqx_contracts::validate::{SchemaViolation, validate};
use templiqx_contracts::{
    API_VERSION, AsValue, CapabilityProfile, Code, Diagnostic, Interaction, IrValue, JsonType, Ptr,
    Schema, Seq, Str, TypeSet, ValueRef,
};

/// The root scopes of a reference, in the order validation matches them.
///
/// This is the one list: the reserved local names ([`is_reserved`]) are
/// derived from it, so adding a root scope reserves its name too (seed 002:
/// "the list is the enumeration of the root scopes").
pub const ROOT_SCOPES: &[(&str, Root)] = &[("inputs", Root::Inputs), ("context", Root::Context)];

/// Whether `name` is a root scope name and so cannot name a `for_each` item
/// or a component parameter (`TQX_LOCAL_RESERVED`).
pub fn is_reserved(name: &str) -> bool {
    ROOT_SCOPES.iter().any(|(n, _)| *n == name)
}

/// The compiler's name in the request shape.
pub const COMPILER: &str = "templiqx";

/// Validates `contract` for `target` and lowers it.
///
/// `contract` must already be composed (includes expanded, tool-contract
/// references inlined); any `include` node left is `TQX_INCLUDE_UNRESOLVED`.
///
/// # Errors
/// Every diagnostic found, located through `sources`.
pub fn compile_contract(
    contract: &Contract,
    sources: &Sources,
    target: &CapabilityProfile,
) -> Result<Interaction, Vec<Diagnostic>> {
    compile_contract_with(contract, sources, target, &CompileOptions::default())
}

/// Options of [`compile_contract_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompileOptions {
    /// Leave `fake_output` checks to the generated eval tests instead of
    /// failing the compilation. The code-generating front ends set this, so
    /// a wrong fixture output fails exactly its `#[test]` (with
    /// `TQX_OUTPUT_SCHEMA`) rather than the whole build; `templiqx check`
    /// and [`compile_contract`] report it as `TQX_EVAL_INVALID`. Eval inputs
    /// and context are always checked: a test cannot be generated without
    /// them.
    pub fake_output_in_tests: bool,
}

/// [`compile_contract`] with options.
///
/// # Errors
/// Every diagnostic found, located through `sources`.
pub fn compile_contract_with(
    contract: &Contract,
    sources: &Sources,
    target: &CapabilityProfile,
    options: &CompileOptions,
) -> Result<Interaction, Vec<Diagnostic>> {
    let mut cx = Cx {
        sources,
        diags: Vec::new(),
        sites: Vec::new(),
    };
    let file = contract.loc.file;
    let at = |p: &str| Loc::new(file, p);

    // Header.
    if contract.api_version != API_VERSION {
        cx.err(
            Code::ApiVersion,
            format!("unsupported api_version `{}`", contract.api_version),
            &at("/api_version"),
            format!("this compiler implements `{API_VERSION}`"),
        );
    }
    if !is_valid_id(&contract.id) {
        cx.err(
            Code::InvalidValue,
            format!("contract id `{}` is not a valid id", contract.id),
            &at("/id"),
            "an id starts with an ASCII letter and continues with ASCII letters, digits, `-`, `_` or `.`",
        );
    }
    if let Err(e) = semver::Version::parse(&contract.version) {
        cx.err(
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
        cx.err(
            Code::InvalidValue,
            "a contract needs at least one message",
            &at("/messages"),
            "add a message",
        );
    }
    let mut seen = BTreeSet::new();
    for (i, cap) in contract.capabilities.iter().enumerate() {
        let loc = at(&format!("/capabilities/{i}"));
        if cap.is_empty() {
            cx.err(
                Code::InvalidValue,
                "empty capability name",
                &loc,
                "remove it or name the capability",
            );
        } else if !seen.insert(cap.as_str()) {
            cx.err(
                Code::InvalidValue,
                format!("capability `{cap}` is listed twice"),
                &loc,
                "remove the duplicate",
            );
        } else if !target.contains(cap) {
            cx.err(
                Code::CapabilityUnsupported,
                format!("the target profile lacks capability `{cap}` that the contract requires"),
                &loc,
                format!(
                    "compile for a target that provides `{cap}` (target: {})",
                    describe_profile(target)
                ),
            );
        }
    }

    // Declarations.
    let inputs = cx.fields(&contract.inputs, &at("/inputs"), "input");
    let context = cx.fields(&contract.context, &at("/context"), "context field");
    let output_schema = cx.schema(&contract.output_schema, &at("/output_schema"));
    if let Some(f) = context.iter().find(|f| f.name == "locale")
        && let Some(s) = &f.schema
        && !s.types.is_only(JsonType::String)
    {
        cx.err(
            Code::TypeMismatch,
            "`context.locale` drives format_date/format_number and must be a string",
            &at("/context/locale/schema"),
            "declare `type: string`",
        );
    }

    // Components: signatures first, then bodies.
    let components = cx.component_signatures(contract);
    let depths = component_depths(contract);
    cx.component_cycles(contract);

    let decls = Decls {
        names: contract.components.iter().map(|(n, _)| n).collect(),
        inputs: &inputs,
        context: &context,
        components: &components,
        depths: &depths,
    };
    let mut lowered_components = Vec::with_capacity(components.len());
    for (index, (name, decl)) in contract.components.iter().enumerate() {
        let sig = &components[index];
        let frame = Frame {
            locals: sig
                .params
                .iter()
                .map(|p| (p.name.clone(), p.ty()))
                .collect(),
            component: Some(name.to_owned()),
        };
        let body = match decl {
            ComponentDecl::Typed { content, .. } | ComponentDecl::Legacy(content) => content,
        };
        let mut lw = Lowerer {
            cx: &mut cx,
            decls: &decls,
            frame,
            depth: 0,
            narrowed: Vec::new(),
        };
        let body = lw.nodes(body);
        lowered_components.push(ir::Component {
            name: Str::Owned(name.to_owned()),
            parameters: Seq::Owned(
                sig.params
                    .iter()
                    .map(|p| Str::Owned(p.name.clone()))
                    .collect(),
            ),
            body: Seq::Owned(body),
        });
    }

    let mut messages = Vec::with_capacity(contract.messages.len());
    for (index, message) in contract.messages.iter().enumerate() {
        let site = cx.site(&at(&format!("/messages/{index}")));
        let mut lw = Lowerer {
            cx: &mut cx,
            decls: &decls,
            frame: Frame::default(),
            depth: 0,
            narrowed: Vec::new(),
        };
        let content = lw.nodes(&message.content);
        messages.push(ir::Message {
            role: message.role,
            content: Seq::Owned(content),
            site,
        });
    }

    // Extensions.
    let mut extensions = Vec::with_capacity(contract.extensions.len());
    for (key, ext) in contract.extensions.iter() {
        let loc = at(&pointer_push("/extensions", key));
        if !is_namespaced(key) {
            let d = sources
                .error_at_key(
                    Code::ExtensionKey,
                    format!("extension key `{key}` is not namespaced"),
                    &loc,
                )
                .help(format!(
                    "prefix it with its vendor or tool namespace, e.g. `vendor.{key}`"
                ));
            cx.diags.push(d);
        }
        let cap_loc = loc.child("capability");
        if ext.capability.is_empty() {
            cx.err(
                Code::InvalidValue,
                "empty extension capability",
                &cap_loc,
                "name the capability it needs",
            );
        } else if !target.contains(&ext.capability) {
            cx.err(
                Code::ExtensionUnsupported,
                format!(
                    "extension `{key}` needs capability `{}`, which the target profile lacks",
                    ext.capability
                ),
                &cap_loc,
                format!(
                    "compile for a target that provides `{}` (target: {}), or remove the extension",
                    ext.capability,
                    describe_profile(target)
                ),
            );
        }
        let schema_loc = loc.child("schema");
        if let Some(r) = ext.schema.get("$ref").and_then(|r| r.as_str())
            && r.starts_with("tool_contract:")
        {
            cx.err(
                    Code::ToolContractRefUnresolved,
                    format!("tool-contract reference `{r}` was not resolved"),
                    &schema_loc,
                    "tool-contract references resolve through the package manifest's `tool_contracts`; compile the contract through its package",
                );
            continue;
        }
        let Some(schema) = cx.schema(&ext.schema, &schema_loc) else {
            continue;
        };
        cx.violations(
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

    // Eval fixtures.
    let mut ids = HashMap::new();
    for eval in &contract.evals {
        if let Some(first) = ids.insert(eval.id.as_str(), eval.loc.pointer.clone()) {
            cx.err(
                Code::EvalInvalid,
                format!("eval id `{}` is used twice", eval.id),
                &eval.loc.child("id"),
                format!("eval ids are unique within a contract; the first is at {first}"),
            );
        }
        cx.eval_values(&inputs, &eval.inputs, &eval.loc.child("inputs"), "input");
        cx.eval_values(
            &context,
            &eval.context,
            &eval.loc.child("context"),
            "context field",
        );
        if let (Some(out), Some(schema), false) = (
            &eval.fake_output,
            &output_schema,
            options.fake_output_in_tests,
        ) {
            cx.violations(
                Code::EvalInvalid,
                schema,
                out,
                &eval.loc.child("fake_output"),
                &format!("`fake_output` of eval `{}`", eval.id),
            );
        }
    }

    if !cx.diags.is_empty() {
        return Err(cx.diags);
    }
    let (Some(output_schema), Some(inputs), Some(context)) =
        (output_schema, owned_fields(inputs), owned_fields(context))
    else {
        return Err(cx.diags);
    };

    let mut required: BTreeSet<String> = contract.capabilities.iter().cloned().collect();
    required.extend(extensions.iter().map(|e| e.capability.to_string()));
    let context_locale = context.iter().any(|f| f.name == "locale");
    let contract_fingerprint = templiqx_contracts::canonical::fingerprint(
        &serde_json::to_value(contract).unwrap_or(serde_json::Value::Null),
    );
    let mut interaction = Interaction {
        compiler: Str::Borrowed(COMPILER),
        contract_id: Str::Owned(contract.id.clone()),
        contract_version: Str::Owned(contract.version.clone()),
        inputs: Seq::Owned(inputs),
        context: Seq::Owned(context),
        messages: Seq::Owned(messages),
        components: Seq::Owned(lowered_components),
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
    interaction.interaction_fingerprint = Str::Owned(interaction_fingerprint(&interaction));
    Ok(interaction)
}

/// The interaction fingerprint: SHA-256 of the canonical JSON of the
/// interaction's serialisation (which includes the target profile and
/// excludes the two fingerprint fields).
pub fn interaction_fingerprint(interaction: &Interaction) -> String {
    templiqx_contracts::canonical::fingerprint(
        &serde_json::to_value(interaction).unwrap_or(serde_json::Value::Null),
    )
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

/// Whether `id` is a contract id: an ASCII letter, then ASCII letters,
/// digits, `-`, `_` or `.`.
pub fn is_valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn is_namespaced(key: &str) -> bool {
    match key.split_once('.') {
        Some((ns, name)) => {
            !ns.is_empty() && !name.is_empty() && !name.starts_with('.') && !name.ends_with('.')
        }
        None => false,
    }
}

/// A declared field with its compiled schema (`None` when the schema failed).
struct FieldInfo {
    name: String,
    schema: Option<Schema>,
    required: bool,
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

/// A component's parameters as seen by callers and by its body.
struct Signature {
    legacy: bool,
    params: Vec<Param>,
}

struct Param {
    name: String,
    schema: Option<Schema>,
    required: bool,
    legacy: bool,
}

impl Param {
    fn ty(&self) -> Ty<'_> {
        if self.legacy {
            Ty::Legacy
        } else {
            match &self.schema {
                Some(s) => Ty::Schema(s),
                None => Ty::Error,
            }
        }
    }
}

struct Decls<'d> {
    names: Vec<&'d str>,
    inputs: &'d [FieldInfo],
    context: &'d [FieldInfo],
    components: &'d [Signature],
    depths: &'d [usize],
}

struct Cx<'a> {
    sources: &'a Sources,
    diags: Vec<Diagnostic>,
    /// [`Interaction::sites`], in the order nodes are lowered.
    sites: Vec<ir::Site>,
}

impl Cx<'_> {
    /// Records where a node was written; the IR keeps the returned index.
    fn site(&mut self, loc: &Loc) -> ir::SiteId {
        let Some(file) = self.sources.get(loc.file) else {
            return ir::SiteId::NONE;
        };
        let Some(span) = file.root.as_ref().and_then(|r| r.span_of(&loc.pointer)) else {
            return ir::SiteId::NONE;
        };
        let Ok(id) = u32::try_from(self.sites.len()) else {
            return ir::SiteId::NONE;
        };
        self.sites.push(ir::Site {
            file: Str::Owned(file.name.clone()),
            pointer: Str::Owned(loc.pointer.clone()),
            span,
        });
        ir::SiteId(id)
    }

    fn err(&mut self, code: Code, message: impl Into<String>, loc: &Loc, help: impl Into<String>) {
        let d = self.sources.error(code, message, loc).help(help);
        self.diags.push(d);
    }

    fn schema(&mut self, doc: &serde_json::Value, loc: &Loc) -> Option<Schema> {
        match compile_schema(doc, &loc.pointer) {
            Ok(s) => Some(s),
            Err(diags) => {
                for d in diags {
                    let d = self.sources.locate(d, loc.file);
                    self.diags.push(d);
                }
                None
            }
        }
    }

    fn fields(
        &mut self,
        fields: &dto::OrderedMap<dto::FieldDecl>,
        loc: &Loc,
        what: &str,
    ) -> Vec<FieldInfo> {
        fields
            .iter()
            .map(|(name, decl)| {
                let floc = loc.child(name);
                self.check_name(name, &floc, what);
                FieldInfo {
                    name: name.to_owned(),
                    schema: self.schema(&decl.schema, &floc.child("schema")),
                    required: decl.required,
                }
            })
            .collect()
    }

    fn check_name(&mut self, name: &str, loc: &Loc, what: &str) {
        if name.is_empty() || name.contains('.') {
            self.err(
                Code::InvalidValue,
                format!("{what} name `{name}` cannot be referenced"),
                loc,
                "names are non-empty and contain no `.` (references use `.` between segments)",
            );
        }
    }

    /// Reports every violation of `value` against `schema` under `loc`.
    fn violations(
        &mut self,
        code: Code,
        schema: &Schema,
        value: &serde_json::Value,
        loc: &Loc,
        what: &str,
    ) {
        if let Err(violations) = validate(schema, value.as_value()) {
            for SchemaViolation {
                pointer,
                message,
                keyword,
            } in violations
            {
                let vloc = Loc::new(loc.file, format!("{}{}", loc.pointer, pointer));
                // Name the place of a nested value, not only the top one.
                let at = if pointer.is_empty() {
                    String::new()
                } else {
                    format!(" at {pointer}")
                };
                self.err(
                    code,
                    format!("{what} is invalid{at}: {message}"),
                    &vloc,
                    format!("fix the value to satisfy `{keyword}`"),
                );
            }
        } else if code == Code::EvalInvalid {
            // Valid JSON Schema, but an eval test decodes it into the
            // generated types, where `type: integer` is `i64`.
            let mut beyond = Vec::new();
            integers_beyond_i64(schema, value, &mut String::new(), &mut beyond);
            for pointer in beyond {
                let vloc = Loc::new(loc.file, format!("{}{}", loc.pointer, pointer));
                self.err(
                    code,
                    format!("{what} is invalid: the integer does not fit `i64`, the generated type of `type: integer`"),
                    &vloc,
                    "use an integer between -9223372036854775808 and 9223372036854775807, or bound the schema with `minimum`/`maximum`",
                );
            }
        }
    }

    fn eval_values(
        &mut self,
        fields: &[FieldInfo],
        values: &serde_json::Map<String, serde_json::Value>,
        loc: &Loc,
        what: &str,
    ) {
        for (key, value) in values {
            let vloc = loc.child(key);
            match fields.iter().find(|f| f.name == *key) {
                None => {
                    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
                    let help = match did_you_mean(key, &names) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => format!("declared: {}", list_names(&names)),
                    };
                    self.err(
                        Code::EvalInvalid,
                        format!("eval names undeclared {what} `{key}`"),
                        &vloc,
                        help,
                    );
                }
                Some(f) => {
                    if let Some(schema) = &f.schema {
                        self.violations(
                            Code::EvalInvalid,
                            schema,
                            value,
                            &vloc,
                            &format!("eval {what} `{key}`"),
                        );
                    }
                }
            }
        }
        for f in fields
            .iter()
            .filter(|f| f.required && !values.contains_key(&f.name))
        {
            self.err(
                Code::EvalInvalid,
                format!("eval lacks required {what} `{}`", f.name),
                loc,
                format!("add `{}` to the fixture", f.name),
            );
        }
    }

    fn component_signatures(&mut self, contract: &Contract) -> Vec<Signature> {
        let file = contract.loc.file;
        contract
            .components
            .iter()
            .map(|(name, decl)| {
                let loc = Loc::new(file, pointer_push("/components", name));
                match decl {
                    ComponentDecl::Typed { parameters, .. } => {
                        let ploc = loc.child("parameters");
                        let params = parameters
                            .iter()
                            .map(|(pname, p)| {
                                let l = ploc.child(pname);
                                if is_reserved(pname) {
                                    self.err(
                                        Code::LocalReserved,
                                        format!("component parameter `{pname}` collides with the root scope `{pname}`"),
                                        &l,
                                        format!("rename the parameter; {} are reserved", reserved_list()),
                                    );
                                } else {
                                    self.check_name(pname, &l, "parameter");
                                }
                                Param {
                                    name: pname.to_owned(),
                                    schema: self.schema(&p.schema, &l.child("schema")),
                                    required: p.required,
                                    legacy: false,
                                }
                            })
                            .collect();
                        Signature { legacy: false, params }
                    }
                    ComponentDecl::Legacy(body) => {
                        let mut names = Vec::new();
                        legacy_params(body, &mut Vec::new(), &mut names);
                        Signature {
                            legacy: true,
                            params: names
                                .into_iter()
                                .map(|name| Param { name, schema: None, required: true, legacy: true })
                                .collect(),
                        }
                    }
                }
            })
            .collect()
    }

    /// Reports each component call that closes a cycle (`TQX_COMPONENT_CYCLE`).
    fn component_cycles(&mut self, contract: &Contract) {
        let names: Vec<&str> = contract.components.iter().map(|(n, _)| n).collect();
        let calls: Vec<Vec<(usize, Loc)>> = contract
            .components
            .iter()
            .map(|(_, d)| {
                let mut out = Vec::new();
                collect_calls(component_body(d), &names, &mut out);
                out
            })
            .collect();
        // Colour-marking DFS; a back edge is a cycle.
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Active,
            Done,
        }
        fn visit(
            i: usize,
            calls: &[Vec<(usize, Loc)>],
            marks: &mut [Mark],
            stack: &mut Vec<usize>,
            found: &mut Vec<(Loc, Vec<usize>)>,
        ) {
            marks[i] = Mark::Active;
            stack.push(i);
            for (j, loc) in &calls[i] {
                match marks[*j] {
                    Mark::New => visit(*j, calls, marks, stack, found),
                    Mark::Active => {
                        let start = stack.iter().position(|s| s == j).unwrap_or(0);
                        let mut chain = stack[start..].to_vec();
                        chain.push(*j);
                        found.push((loc.clone(), chain));
                    }
                    Mark::Done => {}
                }
            }
            stack.pop();
            marks[i] = Mark::Done;
        }
        let mut marks = vec![Mark::New; names.len()];
        let mut found = Vec::new();
        for i in 0..names.len() {
            if marks[i] == Mark::New {
                visit(i, &calls, &mut marks, &mut Vec::new(), &mut found);
            }
        }
        for (loc, chain) in found {
            let chain: Vec<&str> = chain.iter().map(|i| names[*i]).collect();
            self.err(
                Code::ComponentCycle,
                format!(
                    "components call each other in a cycle: {}",
                    chain.join(" → ")
                ),
                &loc,
                "break the cycle; a component cannot (indirectly) invoke itself",
            );
        }
    }
}

fn reserved_list() -> String {
    ROOT_SCOPES
        .iter()
        .map(|(n, _)| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(" and ")
}

fn list_names(names: &[&str]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn component_body(decl: &ComponentDecl) -> &[ContentNode] {
    match decl {
        ComponentDecl::Typed { content, .. } | ComponentDecl::Legacy(content) => content,
    }
}

fn children(node: &ContentNode) -> impl Iterator<Item = &ContentNode> {
    let (a, b): (&[ContentNode], &[ContentNode]) = match &node.kind {
        NodeKind::When {
            then, otherwise, ..
        } => (then, otherwise),
        NodeKind::ForEach { body, .. } => (body, &[]),
        _ => (&[], &[]),
    };
    a.iter().chain(b.iter())
}

fn collect_calls(nodes: &[ContentNode], names: &[&str], out: &mut Vec<(usize, Loc)>) {
    for node in nodes {
        if let NodeKind::Component { name, .. } = &node.kind
            && let Some(i) = names.iter().position(|n| n == name)
        {
            out.push((i, node.loc.clone()));
        }
        collect_calls_children(node, names, out);
    }
}

fn collect_calls_children(node: &ContentNode, names: &[&str], out: &mut Vec<(usize, Loc)>) {
    for child in children(node) {
        collect_calls(std::slice::from_ref(child), names, out);
    }
}

/// The static `for_each` nesting depth of each component body, following
/// calls (cycles are cut; they are reported separately).
fn component_depths(contract: &Contract) -> Vec<usize> {
    let names: Vec<&str> = contract.components.iter().map(|(n, _)| n).collect();
    let bodies: Vec<&[ContentNode]> = contract
        .components
        .iter()
        .map(|(_, d)| component_body(d))
        .collect();
    fn depth(
        nodes: &[ContentNode],
        names: &[&str],
        bodies: &[&[ContentNode]],
        memo: &mut [Option<usize>],
        active: &mut Vec<usize>,
    ) -> usize {
        let mut max = 0;
        for node in nodes {
            let d = match &node.kind {
                NodeKind::ForEach { body, .. } => 1 + depth(body, names, bodies, memo, active),
                NodeKind::When {
                    then, otherwise, ..
                } => depth(then, names, bodies, memo, active)
                    .max(depth(otherwise, names, bodies, memo, active)),
                NodeKind::Component { name, .. } => match names.iter().position(|n| n == name) {
                    Some(i) => comp(i, names, bodies, memo, active),
                    None => 0,
                },
                _ => 0,
            };
            max = max.max(d);
        }
        max
    }
    fn comp(
        i: usize,
        names: &[&str],
        bodies: &[&[ContentNode]],
        memo: &mut [Option<usize>],
        active: &mut Vec<usize>,
    ) -> usize {
        if let Some(d) = memo[i] {
            return d;
        }
        if active.contains(&i) {
            return 0;
        }
        active.push(i);
        let d = depth(bodies[i], names, bodies, memo, active);
        active.pop();
        memo[i] = Some(d);
        d
    }
    let mut memo = vec![None; names.len()];
    (0..names.len())
        .map(|i| comp(i, &names, &bodies, &mut memo, &mut Vec::new()))
        .collect()
}

/// Infers a legacy component's parameters: the first segment of every
/// reference that is neither a root scope nor a `for_each` item bound inside
/// the body, in order of first use (seed 002: "treated conservatively as
/// required strings").
fn legacy_params(nodes: &[ContentNode], bound: &mut Vec<String>, out: &mut Vec<String>) {
    fn expr(e: &dto::Expr, bound: &[String], out: &mut Vec<String>) {
        match &e.kind {
            ExprKind::Ref { path } => {
                let first = path.split('.').next().unwrap_or_default();
                if !first.is_empty()
                    && !is_reserved(first)
                    && !bound.iter().any(|b| b == first)
                    && !out.iter().any(|o| o == first)
                {
                    out.push(first.to_owned());
                }
            }
            ExprKind::Literal { .. } => {}
            ExprKind::Equals { left, right } => {
                expr(left, bound, out);
                expr(right, bound, out);
            }
            ExprKind::Not { operand } => expr(operand, bound, out),
            ExprKind::And { operands } | ExprKind::Or { operands } => {
                operands.iter().for_each(|o| expr(o, bound, out))
            }
        }
    }
    for node in nodes {
        match &node.kind {
            NodeKind::Interpolate { expression, .. } => expr(expression, bound, out),
            NodeKind::When {
                condition,
                then,
                otherwise,
            } => {
                expr(condition, bound, out);
                legacy_params(then, bound, out);
                legacy_params(otherwise, bound, out);
            }
            NodeKind::ForEach {
                collection,
                item,
                body,
                ..
            } => {
                expr(collection, bound, out);
                bound.push(item.clone());
                legacy_params(body, bound, out);
                bound.pop();
            }
            NodeKind::Component { with, .. } => with.iter().for_each(|(_, e)| expr(e, bound, out)),
            NodeKind::Text { .. } | NodeKind::Include { .. } => {}
        }
    }
}

/// The static type of an expression.
#[derive(Clone, Copy)]
enum Ty<'s> {
    /// Described by a compiled schema.
    Schema(&'s Schema),
    /// Described by a nullable schema, inside a `when` branch whose
    /// condition rules `null` out (`not(equals(ref, null))`).
    NonNull(&'s Schema),
    /// A literal or computed value of known types.
    Types(TypeSet),
    /// A legacy component argument: a required string.
    Legacy,
    /// Unknown because of an earlier error; checks pass silently.
    Error,
}

impl Ty<'_> {
    fn types(self) -> Option<TypeSet> {
        match self {
            Ty::Schema(s) => Some(known_types(s)),
            Ty::NonNull(s) => Some(known_types(s).without_null()),
            Ty::Types(t) => Some(t),
            Ty::Legacy => Some(TypeSet::of(JsonType::String)),
            Ty::Error => None,
        }
    }

    fn describe(self) -> String {
        match self.types() {
            None => "unknown".to_owned(),
            Some(t) if t.is_any() => {
                "an unconstrained value (no `type`, `enum` or `const`)".to_owned()
            }
            Some(t) => t
                .iter()
                .map(JsonType::as_str)
                .collect::<Vec<_>>()
                .join(" or "),
        }
    }

    /// Whether the type is exactly `t` (no `null`, not unconstrained).
    fn is_exactly(self, t: JsonType) -> bool {
        match self.types() {
            None => true,
            Some(set) => {
                set == TypeSet::of(t)
                    || (t == JsonType::Number && set == TypeSet::of(JsonType::Integer))
            }
        }
    }
}

/// The JSON types a schema's values can have: its `type`; without one, the
/// types of its `const` value or of its `enum` values (every value it
/// accepts is one of those), so `{enum: [a, b]}` is a string and
/// `{const: 5}` a number (`docs/format.md`, "Typing rules"). Otherwise
/// unconstrained ([`TypeSet::ANY`]).
fn known_types(s: &Schema) -> TypeSet {
    if !s.types.is_any() {
        return s.types;
    }
    let values: &[IrValue] = match (&s.const_value, &s.enum_values) {
        (Some(c), _) => std::slice::from_ref(c),
        (None, Some(e)) => e,
        (None, None) => return s.types,
    };
    let set = values.iter().fold(TypeSet::ANY, |set, v| {
        set.with(match v.as_value() {
            ValueRef::Number(n) if n.is_integer() => JsonType::Integer,
            other => other.json_type(),
        })
    });
    number_absorbs_integer(set)
}

/// `integer` folded into `number` when both occur (every integer is a
/// number), so `[1, 2.5]` is a number and `[1, 2]` an integer.
fn number_absorbs_integer(set: TypeSet) -> TypeSet {
    if set.contains(JsonType::Number) {
        TypeSet(set.0 & !TypeSet::bit(JsonType::Integer))
    } else {
        set
    }
}

/// The types of the items of a literal array, when all of them are
/// scalars or `null` (`integer` folded into `number` when both occur);
/// `None` for an empty array or one holding arrays or objects, whose items
/// stay unconstrained.
fn literal_item_types(items: &[serde_json::Value]) -> Option<TypeSet> {
    let set = items
        .iter()
        .fold(TypeSet::ANY, |set, v| TypeSet(set.0 | literal_type(v).0));
    if set.is_any() || set.contains(JsonType::Array) || set.contains(JsonType::Object) {
        return None;
    }
    Some(number_absorbs_integer(set))
}

fn literal_type(v: &serde_json::Value) -> TypeSet {
    TypeSet::of(match v {
        serde_json::Value::Null => JsonType::Null,
        serde_json::Value::Bool(_) => JsonType::Boolean,
        serde_json::Value::Number(n) if n.is_i64() || n.is_u64() => JsonType::Integer,
        serde_json::Value::Number(_) => JsonType::Number,
        serde_json::Value::String(_) => JsonType::String,
        serde_json::Value::Array(_) => JsonType::Array,
        serde_json::Value::Object(_) => JsonType::Object,
    })
}

/// Whether every value of `from` is acceptable where `to` is declared
/// (types, nested properties and items; bounds are not compared).
fn assignable(from: &Schema, to: &Schema) -> bool {
    if to.types.is_any() && to.properties.is_empty() && to.items.is_none() {
        return true;
    }
    if !to.types.is_any() {
        let from_types = known_types(from);
        if from_types.is_any() {
            return false;
        }
        let ok = from_types.iter().all(|t| {
            to.types.contains(t) || (t == JsonType::Integer && to.types.contains(JsonType::Number))
        });
        if !ok {
            return false;
        }
    }
    for (name, tp) in to.properties.iter() {
        match from.property(name) {
            Some(fp) if !assignable(fp, tp) => return false,
            Some(_) => {}
            None if to.is_required(name) => return false,
            None => {}
        }
    }
    if to.required.iter().any(|name| !from.is_required(name)) {
        return false;
    }
    if !to.additional_properties
        && (from.additional_properties
            || from
                .properties
                .iter()
                .any(|(n, _)| to.property(n).is_none()))
    {
        return false;
    }
    if let Some(ti) = &to.items {
        match &from.items {
            Some(fi) => {
                if !assignable(fi, ti) {
                    return false;
                }
            }
            None => return false,
        }
    }
    true
}

/// Whether every value `from` accepts is provably accepted by `to`, so that
/// a component argument described by `from` needs no check when its call
/// renders (`docs/format.md`, "Components"). Conservative: beyond types,
/// a value keyword of `to` (`enum`, `const`, bounds, lengths, item counts,
/// `format`) is implied only when `from` has the same keyword with the same
/// value; object and array structure is compared recursively.
fn implies(from: &Schema, to: &Schema) -> bool {
    if !to.types.is_any() {
        let from_types = known_types(from);
        if from_types.is_any()
            || !from_types.iter().all(|t| {
                to.types.contains(t)
                    || (t == JsonType::Integer && to.types.contains(JsonType::Number))
            })
        {
            return false;
        }
    }
    fn same<T: PartialEq>(to: &Option<T>, from: &Option<T>) -> bool {
        to.is_none() || to == from
    }
    let keywords = same(&to.enum_values, &from.enum_values)
        && same(&to.const_value, &from.const_value)
        && same(&to.min_length, &from.min_length)
        && same(&to.max_length, &from.max_length)
        && same(&to.minimum, &from.minimum)
        && same(&to.maximum, &from.maximum)
        && same(&to.exclusive_minimum, &from.exclusive_minimum)
        && same(&to.exclusive_maximum, &from.exclusive_maximum)
        && same(&to.min_items, &from.min_items)
        && same(&to.max_items, &from.max_items)
        && same(&to.format, &from.format);
    if !keywords {
        return false;
    }
    for (name, tp) in to.properties.iter() {
        let ok = match from.property(name) {
            Some(fp) => implies(fp, tp),
            // Without a declaration in `from`, the property may hold
            // anything (unless `from` is closed): only `{}` is implied.
            None => !from.additional_properties || implies(&Schema::ANY, tp),
        };
        if !ok {
            return false;
        }
    }
    if to.required.iter().any(|name| !from.is_required(name)) {
        return false;
    }
    if !to.additional_properties
        && (from.additional_properties
            || from
                .properties
                .iter()
                .any(|(n, _)| to.property(n).is_none()))
    {
        return false;
    }
    match (&to.items, &from.items) {
        (None, _) => true,
        (Some(ti), Some(fi)) => implies(fi, ti),
        (Some(ti), None) => implies(&Schema::ANY, ti),
    }
}

#[derive(Default)]
struct Frame<'s> {
    /// Locals by slot: name and type.
    locals: Vec<(String, Ty<'s>)>,
    /// The component whose body this is.
    component: Option<String>,
}

struct Lowerer<'c, 'a, 'd> {
    cx: &'c mut Cx<'a>,
    decls: &'d Decls<'d>,
    frame: Frame<'d>,
    depth: usize,
    /// References known not to be `null` here (inside the branch of a
    /// `when` that tests them against `null`), as written.
    narrowed: Vec<String>,
}

/// A placeholder for IR that will be discarded because of an error.
fn poison() -> ir::Expr {
    ir::Expr::Literal(IrValue::Null)
}

impl<'d> Lowerer<'_, '_, 'd> {
    fn err(&mut self, code: Code, message: impl Into<String>, loc: &Loc, help: impl Into<String>) {
        self.cx.err(code, message, loc, help);
    }

    fn nodes(&mut self, nodes: &[ContentNode]) -> Vec<ir::Node> {
        let mut out = Vec::with_capacity(nodes.len());
        for node in nodes {
            if let Some(n) = self.node(node) {
                out.push(n);
            }
        }
        out
    }

    fn node(&mut self, node: &ContentNode) -> Option<ir::Node> {
        let loc = &node.loc;
        Some(match &node.kind {
            NodeKind::Text { value } => ir::Node::Text(Str::Owned(value.clone())),
            NodeKind::Interpolate {
                expression,
                filters,
            } => {
                let (value, ty) = self.expr(expression);
                self.filters(ty, filters, expression, loc);
                ir::Node::Interpolate {
                    value,
                    filters: Seq::Owned(filters.clone()),
                    site: self.cx.site(loc),
                }
            }
            NodeKind::When {
                condition,
                then,
                otherwise,
            } => {
                let (cond, ty) = self.expr(condition);
                self.expect_bool(ty, condition, "a `when` condition");
                // `not(equals(ref, null))` rules `null` out in `then`;
                // `equals(ref, null)` rules it out in `else`.
                let (then_refs, else_refs) = null_tests(condition);
                let mark = self.narrowed.len();
                self.narrowed.extend(then_refs);
                let then = self.nodes(then);
                self.narrowed.truncate(mark);
                self.narrowed.extend(else_refs);
                let otherwise = self.nodes(otherwise);
                self.narrowed.truncate(mark);
                ir::Node::When {
                    condition: cond,
                    then: Seq::Owned(then),
                    otherwise: Seq::Owned(otherwise),
                    site: self.cx.site(loc),
                }
            }
            NodeKind::ForEach {
                collection,
                item,
                body,
                separator,
            } => {
                let (coll, ty) = self.expr(collection);
                let item_ty = match ty {
                    Ty::Legacy => {
                        self.legacy_misuse(collection, "as a `for_each` collection");
                        Ty::Error
                    }
                    Ty::Error => Ty::Error,
                    _ if !ty.is_exactly(JsonType::Array) => {
                        self.err(
                            Code::TypeMismatch,
                            format!(
                                "`for_each` needs an array, but `{}` is {}",
                                expr_text(collection),
                                ty.describe()
                            ),
                            &collection.loc,
                            "iterate over an array-typed value (`type: array`, not nullable)",
                        );
                        Ty::Error
                    }
                    Ty::Schema(s) | Ty::NonNull(s) => match &s.items {
                        Some(items) => Ty::Schema(items),
                        None => Ty::Schema(&Schema::ANY),
                    },
                    _ => match &collection.kind {
                        ExprKind::Literal {
                            value: serde_json::Value::Array(items),
                        } => literal_item_types(items).map_or(Ty::Schema(&Schema::ANY), Ty::Types),
                        _ => Ty::Schema(&Schema::ANY),
                    },
                };
                let item_loc = loc.child("item");
                if is_reserved(item) {
                    self.err(
                        Code::LocalReserved,
                        format!("`for_each` item `{item}` collides with the root scope `{item}`"),
                        &item_loc,
                        format!("rename the item; {} are reserved", reserved_list()),
                    );
                } else {
                    self.cx.check_name(item, &item_loc, "`for_each` item");
                }
                self.depth += 1;
                if self.depth == MAX_FOR_EACH_DEPTH + 1 {
                    self.err(
                        Code::RenderBudget,
                        format!("`for_each` nesting depth {} exceeds the render budget of {MAX_FOR_EACH_DEPTH}", self.depth),
                        loc,
                        "flatten the iteration; the depth limit is a format constant (seed 002, \"Render budgets\")",
                    );
                }
                self.frame.locals.push((item.clone(), item_ty));
                let body = self.nodes(body);
                self.frame.locals.pop();
                self.depth -= 1;
                ir::Node::ForEach {
                    collection: coll,
                    body: Seq::Owned(body),
                    separator: separator.clone().map(Str::Owned),
                    site: self.cx.site(loc),
                }
            }
            NodeKind::Component { name, with } => return self.call(node, name, with),
            NodeKind::Include { path, .. } => {
                self.err(
                    Code::IncludeUnresolved,
                    format!("include of `{path}` was not expanded"),
                    loc,
                    "includes are expanded by package composition; compile the contract through its package",
                );
                return None;
            }
        })
    }

    fn call(
        &mut self,
        node: &ContentNode,
        name: &str,
        with: &dto::OrderedMap<dto::Expr>,
    ) -> Option<ir::Node> {
        let decls = self.decls;
        let names = &decls.names;
        let Some(index) = names.iter().position(|n| *n == name) else {
            let help = match did_you_mean(name, names) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!("declared components: {}", list_names(names)),
            };
            self.err(
                Code::ComponentUnknown,
                format!("unknown component `{name}`"),
                &node.loc.child("name"),
                help,
            );
            return None;
        };
        let sig = &decls.components[index];
        let callee_depth = decls.depths.get(index).copied().unwrap_or(0);
        if self.depth <= MAX_FOR_EACH_DEPTH && self.depth + callee_depth > MAX_FOR_EACH_DEPTH {
            self.err(
                Code::RenderBudget,
                format!(
                    "calling `{name}` here nests `for_each` {} deep, over the render budget of {MAX_FOR_EACH_DEPTH}",
                    self.depth + callee_depth
                ),
                &node.loc,
                "flatten the iteration; the depth limit is a format constant (seed 002, \"Render budgets\")",
            );
        }
        let with_loc = node.loc.child("with");
        for (arg, e) in with.iter() {
            if !sig.params.iter().any(|p| p.name == arg) {
                let pnames: Vec<&str> = sig.params.iter().map(|p| p.name.as_str()).collect();
                let help = match did_you_mean(arg, &pnames) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => format!("`{name}` declares: {}", list_names(&pnames)),
                };
                self.err(
                    Code::ComponentArgument,
                    format!("component `{name}` has no parameter `{arg}`"),
                    &e.loc,
                    help,
                );
            }
        }
        let mut args = Vec::with_capacity(sig.params.len());
        let mut checks = Vec::new();
        for p in &sig.params {
            match with.get(&p.name) {
                None => {
                    if p.required {
                        let form = if sig.legacy {
                            " (inferred from the legacy component's body)"
                        } else {
                            ""
                        };
                        self.err(
                            Code::ComponentArgument,
                            format!(
                                "missing required argument `{}` for component `{name}`{form}",
                                p.name
                            ),
                            &with_loc,
                            format!("pass `{}` under `with`", p.name),
                        );
                    }
                    args.push(None);
                }
                Some(e) => {
                    let (value, ty) = self.expr(e);
                    if self.check_argument(name, sig.legacy, p, e, ty)
                        && let Some(schema) = &p.schema
                    {
                        checks.push(ir::ArgCheck {
                            slot: u16::try_from(args.len()).unwrap_or(u16::MAX),
                            schema: schema.clone(),
                            site: self.cx.site(&e.loc),
                        });
                    }
                    args.push(Some(value));
                }
            }
        }
        Some(ir::Node::Call {
            component: u32::try_from(index).unwrap_or(u32::MAX),
            args: Seq::Owned(args),
            checks: Seq::Owned(checks),
            site: self.cx.site(&node.loc),
        })
    }

    /// Checks an argument's type against its parameter; returns whether its
    /// value must also be validated against the parameter's full schema
    /// when the call renders (a fitting argument that is not a literal and
    /// whose schema does not [imply](implies) the parameter's).
    fn check_argument(
        &mut self,
        component: &str,
        legacy: bool,
        p: &Param,
        e: &dto::Expr,
        ty: Ty<'_>,
    ) -> bool {
        if legacy {
            if !ty.is_exactly(JsonType::String) {
                self.err(
                    Code::ComponentArgument,
                    format!(
                        "argument `{}` of legacy component `{component}` must be a string, but `{}` is {}",
                        p.name,
                        expr_text(e),
                        ty.describe()
                    ),
                    &e.loc,
                    "legacy components take required strings; migrate the component to the typed form (`parameters` + `content`) for other types",
                );
            }
            return false;
        }
        let Some(param) = &p.schema else { return false };
        // What the compiler knows of the argument's values.
        let from = match (&e.kind, ty) {
            (ExprKind::Literal { .. }, _) | (_, Ty::Error) => None,
            (_, Ty::Schema(s)) => Some(s.clone()),
            (_, Ty::NonNull(s)) => Some(Schema {
                types: known_types(s).without_null(),
                ..s.clone()
            }),
            (_, Ty::Legacy) => Some(Schema {
                types: TypeSet::of(JsonType::String),
                ..Schema::ANY
            }),
            (_, Ty::Types(t)) => Some(Schema {
                types: t,
                ..Schema::ANY
            }),
        };
        let ok = match (&e.kind, &from) {
            (ExprKind::Literal { value }, _) => validate(param, value.as_value()).is_ok(),
            (_, None) => true,
            (_, Some(from)) => assignable(from, param),
        };
        if !ok {
            self.err(
                Code::ComponentArgument,
                format!(
                    "argument `{}` of component `{component}` is {}, which does not fit the parameter's schema",
                    p.name,
                    ty.describe()
                ),
                &e.loc,
                "pass a value whose schema matches the parameter's declared type",
            );
            return false;
        }
        from.is_some_and(|from| !implies(&from, param))
    }

    fn legacy_misuse(&mut self, e: &dto::Expr, usage: &str) {
        self.err(
            Code::ComponentArgument,
            format!("legacy component argument `{}` is a string and cannot be used {usage}", expr_text(e)),
            &e.loc,
            "legacy components infer required string arguments; migrate the component to the typed form (`parameters` + `content`) to use other types",
        );
    }

    fn expect_bool(&mut self, ty: Ty<'_>, e: &dto::Expr, what: &str) {
        match ty {
            Ty::Legacy => self.legacy_misuse(e, &format!("as {what}")),
            _ if ty.is_exactly(JsonType::Boolean) => {}
            _ => self.err(
                Code::TypeMismatch,
                format!(
                    "{what} must be a boolean, but `{}` is {}",
                    expr_text(e),
                    ty.describe()
                ),
                &e.loc,
                "use a boolean value (`type: boolean`, not nullable) or compare with `equals`",
            ),
        }
    }

    fn filters(&mut self, ty: Ty<'_>, filters: &[Filter], e: &dto::Expr, loc: &Loc) {
        let mut cur = ty;
        for (i, f) in filters.iter().enumerate() {
            let floc = loc.child("filters").child(&i.to_string());
            let (needs, out) = match f {
                Filter::Trim | Filter::Lower | Filter::Upper | Filter::FormatDate => {
                    (Some(JsonType::String), JsonType::String)
                }
                Filter::FormatNumber => (Some(JsonType::Number), JsonType::String),
                Filter::Json => (None, JsonType::String),
            };
            if let Some(needed) = needs {
                if matches!(cur, Ty::Legacy) && needed != JsonType::String {
                    self.legacy_misuse(e, &format!("with `{}`", f.as_str()));
                } else if !cur.is_exactly(needed) {
                    let want = if needed == JsonType::Number {
                        "a number"
                    } else {
                        "a string"
                    };
                    self.err(
                        Code::FilterType,
                        format!(
                            "`{}` needs {want}, but its input is {}",
                            f.as_str(),
                            cur.describe()
                        ),
                        &floc,
                        format!("apply `{}` only to {want} value (not nullable)", f.as_str()),
                    );
                }
            }
            cur = Ty::Types(TypeSet::of(out));
        }
        let scalar = match cur.types() {
            None => true,
            Some(t) => {
                !t.is_any()
                    && t.iter().all(|t| {
                        matches!(
                            t,
                            JsonType::Boolean
                                | JsonType::Integer
                                | JsonType::Number
                                | JsonType::String
                        )
                    })
            }
        };
        if !scalar {
            self.err(
                Code::TypeMismatch,
                format!(
                    "cannot interpolate `{}` directly: it is {}",
                    expr_text(e),
                    cur.describe()
                ),
                &e.loc,
                "arrays, objects and null need the `json` filter; a scalar needs a declared `type` (or an `enum` or `const` of scalars)",
            );
        }
    }

    fn expr(&mut self, e: &dto::Expr) -> (ir::Expr, Ty<'d>) {
        match &e.kind {
            ExprKind::Ref { path } => match self.resolve(path, &e.loc) {
                Some((p, ty)) => (ir::Expr::Ref(p), ty),
                None => (poison(), Ty::Error),
            },
            ExprKind::Literal { value } => (
                ir::Expr::Literal(IrValue::from_json(value)),
                Ty::Types(literal_type(value)),
            ),
            ExprKind::Equals { left, right } => {
                let (l, _) = self.expr(left);
                let (r, _) = self.expr(right);
                (
                    ir::Expr::Equals(Ptr::from(l), Ptr::from(r)),
                    Ty::Types(TypeSet::of(JsonType::Boolean)),
                )
            }
            ExprKind::Not { operand } => {
                let (o, ty) = self.expr(operand);
                self.expect_bool(ty, operand, "the operand of `not`");
                (
                    ir::Expr::Not(Ptr::from(o)),
                    Ty::Types(TypeSet::of(JsonType::Boolean)),
                )
            }
            ExprKind::And { operands } | ExprKind::Or { operands } => {
                let kind = if matches!(e.kind, ExprKind::And { .. }) {
                    "and"
                } else {
                    "or"
                };
                let mut out = Vec::with_capacity(operands.len());
                for o in operands {
                    let (x, ty) = self.expr(o);
                    self.expect_bool(ty, o, &format!("an operand of `{kind}`"));
                    out.push(x);
                }
                let ir = if kind == "and" {
                    ir::Expr::And(Seq::Owned(out))
                } else {
                    ir::Expr::Or(Seq::Owned(out))
                };
                (ir, Ty::Types(TypeSet::of(JsonType::Boolean)))
            }
        }
    }

    /// Resolves a dotted path: root scopes first, then locals (innermost first).
    fn resolve(&mut self, path: &str, loc: &Loc) -> Option<(ir::Path, Ty<'d>)> {
        let loc = loc.child("path");
        let segments: Vec<&str> = path.split('.').collect();
        if segments.iter().any(|s| s.is_empty()) {
            self.err(
                Code::RefUnknown,
                format!("reference `{path}` has an empty segment"),
                &loc,
                "write segments separated by single dots, e.g. `inputs.customer.name`",
            );
            return None;
        }
        let first = segments[0];
        let (root, mut ty, rest): (Root, Ty<'d>, &[&str]) = if let Some((_, root)) =
            ROOT_SCOPES.iter().find(|(n, _)| *n == first)
        {
            let fields = if *root == Root::Inputs {
                self.decls.inputs
            } else {
                self.decls.context
            };
            let Some(field_name) = segments.get(1) else {
                self.err(
                    Code::RefUnknown,
                    format!("reference `{path}` names a scope, not a value"),
                    &loc,
                    format!("reference a declared field, e.g. `{first}.<field>`"),
                );
                return None;
            };
            let Some(field) = fields.iter().find(|f| f.name == *field_name) else {
                let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
                let help = match did_you_mean(field_name, &names) {
                    Some(s) => format!("did you mean `{first}.{s}`?"),
                    None => format!("declared in `{first}`: {}", list_names(&names)),
                };
                self.err(
                    Code::RefUnknown,
                    format!("`{first}` declares no field `{field_name}`"),
                    &loc,
                    help,
                );
                return None;
            };
            let ty = match &field.schema {
                Some(s) => Ty::Schema(s),
                None => Ty::Error,
            };
            (*root, ty, &segments[2..])
        } else if let Some(slot) = self.frame.locals.iter().rposition(|(n, _)| n == first) {
            let ty = self.frame.locals[slot].1;
            (
                Root::Local(u16::try_from(slot).unwrap_or(u16::MAX)),
                ty,
                &segments[1..],
            )
        } else {
            let mut names: Vec<&str> = self.frame.locals.iter().map(|(n, _)| n.as_str()).collect();
            names.extend(ROOT_SCOPES.iter().map(|(n, _)| *n));
            let help = match (&self.frame.component, did_you_mean(first, &names)) {
                (_, Some(s)) => format!("did you mean `{s}`?"),
                (Some(c), None) => format!(
                    "the body of component `{c}` sees only its parameters and `inputs`/`context`, never the caller's locals; pass the value as an argument"
                ),
                (None, None) => format!(
                    "a reference starts with `inputs.`, `context.`, a `for_each` item or a component parameter; in scope: {}",
                    list_names(&names)
                ),
            };
            self.err(
                Code::RefUnknown,
                format!("unknown name `{first}` in reference `{path}`"),
                &loc,
                help,
            );
            return None;
        };
        let mut out = Vec::with_capacity(rest.len() + 1);
        if !matches!(root, Root::Local(_)) {
            // Root scopes are objects: the field name is the first step.
            out.push(Segment::Key(Str::Owned(segments[1].to_owned())));
        }
        let mut walked = path.len() - rest.iter().map(|s| s.len() + 1).sum::<usize>();
        for seg in rest {
            let here = &path[..walked];
            walked += seg.len() + 1;
            match ty {
                Ty::Error => return Some((self.path(root, out, path), Ty::Error)),
                Ty::Legacy => {
                    self.err(
                        Code::ComponentArgument,
                        format!("legacy component argument `{here}` is a string; `{path}` is a nested path"),
                        &loc,
                        "legacy components infer required string arguments; migrate to the typed form to pass objects",
                    );
                    return None;
                }
                Ty::Types(_) => {
                    // A local of known scalar types (an item of a literal
                    // array of scalars): nothing below it.
                    self.err(
                        Code::RefImpossible,
                        format!("`{here}` is {}; it has no `{seg}`", ty.describe()),
                        &loc,
                        "only objects and arrays have nested paths",
                    );
                    return None;
                }
                Ty::Schema(s) | Ty::NonNull(s) => {
                    if s.types.is_only(JsonType::Array) {
                        let Some(index) = array_index(seg) else {
                            self.err(
                                Code::RefImpossible,
                                format!("`{here}` is an array; `{seg}` is not an index"),
                                &loc,
                                "index arrays with a decimal number without sign or leading zeros (`items.0`, `items.12`), or iterate with `for_each`",
                            );
                            return None;
                        };
                        out.push(Segment::Index(index));
                        ty = Ty::Schema(s.items.as_deref().unwrap_or(&Schema::ANY));
                    } else if s.types.contains(JsonType::Object)
                        && (s.types.is_only(JsonType::Object) || !s.properties.is_empty())
                    {
                        match s.property(seg) {
                            Some(p) => {
                                out.push(Segment::Key(Str::Owned((*seg).to_owned())));
                                ty = Ty::Schema(p);
                            }
                            None => {
                                let names: Vec<&str> =
                                    s.properties.iter().map(|(n, _)| n.as_ref()).collect();
                                let help = match did_you_mean(seg, &names) {
                                    Some(x) => format!("did you mean `{here}.{x}`?"),
                                    None => format!("`{here}` declares: {}", list_names(&names)),
                                };
                                self.err(
                                    Code::RefUnknown,
                                    format!("`{here}` declares no property `{seg}`"),
                                    &loc,
                                    help,
                                );
                                return None;
                            }
                        }
                    } else if s.types.is_any()
                        && (known_types(s).is_any()
                            || known_types(s).contains(JsonType::Object)
                            || known_types(s).contains(JsonType::Array))
                    {
                        self.err(
                            Code::RefUnknown,
                            format!("`{here}` has no declared type, so `{seg}` cannot be checked"),
                            &loc,
                            "declare `type: object` with `properties` (or `type: array` with `items`)",
                        );
                        return None;
                    } else {
                        self.err(
                            Code::RefImpossible,
                            format!(
                                "`{here}` is {}; it has no `{seg}`",
                                Ty::Schema(s).describe()
                            ),
                            &loc,
                            "only objects and arrays have nested paths",
                        );
                        return None;
                    }
                }
            }
        }
        if let Ty::Schema(s) = ty
            && self.narrowed.iter().any(|n| n == path)
        {
            ty = Ty::NonNull(s);
        }
        Some((self.path(root, out, path), ty))
    }

    fn path(&self, root: Root, segments: Vec<Segment>, source: &str) -> ir::Path {
        ir::Path {
            root,
            segments: Seq::Owned(segments),
            source: Str::Owned(source.to_owned()),
        }
    }
}

/// The references a condition proves non-null in its `then` and `else`
/// branches: `equals(ref, null)` (either order) proves it in `else`,
/// `not(...)` swaps the branches, and an `and` proves in `then` what each
/// operand proves there (an `or`, dually, in `else`).
fn null_tests(condition: &dto::Expr) -> (Vec<String>, Vec<String>) {
    match &condition.kind {
        ExprKind::Equals { left, right } => match (&left.kind, &right.kind) {
            (
                ExprKind::Ref { path },
                ExprKind::Literal {
                    value: serde_json::Value::Null,
                },
            )
            | (
                ExprKind::Literal {
                    value: serde_json::Value::Null,
                },
                ExprKind::Ref { path },
            ) => (Vec::new(), vec![path.clone()]),
            _ => (Vec::new(), Vec::new()),
        },
        ExprKind::Not { operand } => {
            let (then, otherwise) = null_tests(operand);
            (otherwise, then)
        }
        ExprKind::And { operands } => (
            operands.iter().flat_map(|o| null_tests(o).0).collect(),
            Vec::new(),
        ),
        ExprKind::Or { operands } => (
            Vec::new(),
            operands.iter().flat_map(|o| null_tests(o).1).collect(),
        ),
        _ => (Vec::new(), Vec::new()),
    }
}

fn expr_text(e: &dto::Expr) -> String {
    match &e.kind {
        ExprKind::Ref { path } => path.clone(),
        ExprKind::Literal { value } => value.to_string(),
        ExprKind::Equals { .. } => "equals(…)".to_owned(),
        ExprKind::Not { .. } => "not(…)".to_owned(),
        ExprKind::And { .. } => "and(…)".to_owned(),
        ExprKind::Or { .. } => "or(…)".to_owned(),
    }
}

/// An array index in a reference path: `0`, or decimal digits without a
/// leading zero (as in RFC 6901 section 4), within `u32`. `+1`, `01`, `-1`
/// and `1e2` are not indexes.
fn array_index(segment: &str) -> Option<u32> {
    let digits = !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit());
    if digits && (segment == "0" || !segment.starts_with('0')) {
        segment.parse().ok()
    } else {
        None
    }
}

/// JSON Pointers (appended to `at`) of integers in `value` that a schema
/// generated as `i64` (`type: integer`, optionally nullable) cannot hold.
/// Follows `properties` and `items`, as the generated types do.
fn integers_beyond_i64(
    schema: &Schema,
    value: &serde_json::Value,
    at: &mut String,
    out: &mut Vec<String>,
) {
    use serde_json::Value;
    match value {
        Value::Number(n) if schema.types.without_null().is_only(JsonType::Integer) => {
            // An `i64`, or an integer-valued float in `i64`'s range (`12.0`
            // decodes); a `u64` above `i64::MAX` or a larger float does not.
            const RANGE: std::ops::Range<f64> =
                -9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0;
            let fits = n.as_i64().is_some()
                || (n.as_u64().is_none() && n.as_f64().is_some_and(|f| RANGE.contains(&f)));
            if !fits {
                out.push(at.clone());
            }
        }
        Value::Object(map) => {
            for (key, member) in map {
                if let Some(property) = schema.property(key) {
                    let len = at.len();
                    at.push('/');
                    at.push_str(&templiqx_contracts::diagnostic::escape_pointer_token(key));
                    integers_beyond_i64(property, member, at, out);
                    at.truncate(len);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = &schema.items {
                for (i, item) in items.iter().enumerate() {
                    let len = at.len();
                    at.push('/');
                    at.push_str(&i.to_string());
                    integers_beyond_i64(item_schema, item, at, out);
                    at.truncate(len);
                }
            }
        }
        _ => {}
    }
}
