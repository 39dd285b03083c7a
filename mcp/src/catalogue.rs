//! The contracts of the served roots, compiled on each request: what the
//! prompts are and what `render` finds by id.

use crate::Server;
use std::collections::HashSet;
use templiqx_build::dto::{Contract, FieldDecl};
use templiqx_build::{CompiledContract, CompiledInput, Compiler, Target};

/// Every served input, compiled.
pub(crate) struct Catalogue {
    /// One per served path, in the order given.
    pub inputs: Vec<CompiledInput>,
    /// Every contract that parsed, in order, with its prompt name.
    entries: Vec<Entry>,
}

/// One contract of the catalogue.
struct Entry {
    /// The prompt name: the contract id; `PACKAGE/ID` for a contract whose
    /// id an earlier served contract has.
    name: String,
    input: usize,
    contract: usize,
}

/// Which scope a prompt argument fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    Inputs,
    Context,
}

impl Scope {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Scope::Inputs => "inputs",
            Scope::Context => "context",
        }
    }
}

/// One prompt argument: a field of `inputs` or `context`.
pub(crate) struct Argument<'c> {
    /// The argument name: the field's name, or `inputs.NAME` /
    /// `context.NAME` when both scopes declare it.
    pub name: String,
    pub scope: Scope,
    pub field: &'c str,
    pub decl: &'c FieldDecl,
}

impl Catalogue {
    /// Compiles every served path for `target` (no code is generated from
    /// a prompt, so code generation is not checked, as `templiqx render`).
    pub(crate) fn compile(server: &Server, target: Target) -> Catalogue {
        let roots = server.roots();
        let compiler = Compiler::new(roots.base(), target).check_codegen(false);
        let inputs: Vec<CompiledInput> = roots
            .served()
            .iter()
            .map(|path| compiler.compile(path))
            .collect();
        let mut seen = HashSet::new();
        let mut entries = Vec::new();
        for (i, input) in inputs.iter().enumerate() {
            let package = input
                .package
                .map(|p| input.loader.package(p).manifest.package.clone());
            for (c, compiled) in input.contracts.iter().enumerate() {
                let Some(contract) = &compiled.contract else {
                    continue;
                };
                let mut name = contract.id.clone();
                if !seen.insert(name.clone()) {
                    name = format!("{}/{}", package.as_deref().unwrap_or(&input.name), name);
                    if !seen.insert(name.clone()) {
                        continue;
                    }
                }
                entries.push(Entry {
                    name,
                    input: i,
                    contract: c,
                });
            }
        }
        Catalogue { inputs, entries }
    }

    /// Every prompt: its name, the compiled contract and what it parsed
    /// to.
    pub(crate) fn prompts(&self) -> impl Iterator<Item = (&str, &CompiledContract, &Contract)> {
        self.entries.iter().filter_map(|e| {
            let compiled = &self.inputs[e.input].contracts[e.contract];
            let contract = compiled.contract.as_ref()?;
            Some((e.name.as_str(), compiled, contract))
        })
    }

    /// The contract served as the prompt `name`.
    pub(crate) fn find(&self, name: &str) -> Option<(&CompiledContract, &Contract)> {
        self.prompts()
            .find(|(n, _, _)| *n == name)
            .map(|(_, compiled, contract)| (compiled, contract))
    }

    /// Every prompt name, for a message naming what exists.
    pub(crate) fn names(&self) -> Vec<&str> {
        self.prompts().map(|(n, _, _)| n).collect()
    }
}

/// The prompt arguments of `contract`: its inputs, then its context
/// fields, in declaration order.
pub(crate) fn arguments(contract: &Contract) -> Vec<Argument<'_>> {
    let both: HashSet<&str> = contract
        .inputs
        .0
        .iter()
        .filter(|(name, _)| contract.context.get(name).is_some())
        .map(|(name, _)| name.as_str())
        .collect();
    fn scoped<'c>(
        scope: Scope,
        fields: &'c [(String, FieldDecl)],
        both: &HashSet<&str>,
    ) -> Vec<Argument<'c>> {
        fields
            .iter()
            .map(|(field, decl)| Argument {
                name: if both.contains(field.as_str()) {
                    format!("{}.{field}", scope.as_str())
                } else {
                    field.clone()
                },
                scope,
                field,
                decl,
            })
            .collect()
    }
    let mut out = scoped(Scope::Inputs, &contract.inputs.0, &both);
    out.extend(scoped(Scope::Context, &contract.context.0, &both));
    out
}

/// The JSON Schema type of `schema` as a prompt argument's description
/// names it: `string`, `integer | null`, or `any JSON value`.
pub(crate) fn type_name(schema: &serde_json::Value) -> String {
    match schema.get("type") {
        Some(serde_json::Value::String(t)) => t.clone(),
        Some(serde_json::Value::Array(types)) => types
            .iter()
            .filter_map(serde_json::Value::as_str)
            .collect::<Vec<_>>()
            .join(" | "),
        _ if schema.get("enum").is_some() => "one of the `enum` values".to_owned(),
        _ => "any JSON value".to_owned(),
    }
}

/// Whether a field of `schema` takes a prompt argument's text as is: its
/// type is `string`, or a union holding `string`.
pub(crate) fn takes_text(schema: &serde_json::Value) -> bool {
    match schema.get("type") {
        Some(serde_json::Value::String(t)) => t == "string",
        Some(serde_json::Value::Array(types)) => types.iter().any(|t| t == "string"),
        _ => false,
    }
}
