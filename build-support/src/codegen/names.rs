//! The one naming module: every identifier the generator writes — module,
//! type, enum variant, field, eval-test function — is decided here
//! (`docs/format.md`, "Generated Rust", "Names").
//!
//! Rules, for every kind of name:
//!
//! - non-ASCII letters are transliterated to ASCII (`naïve` → `naive`,
//!   `名前` → `ming_qian`), other characters become word breaks;
//! - a name is checked against every Rust keyword of every edition
//!   ([`STRICT`], [`RESERVED`], [`WEAK`]); a keyword becomes a raw
//!   identifier where the position allows one (fields: `type` → `r#type`)
//!   and gets a `_` suffix elsewhere (modules, test functions);
//! - the names that cannot be raw ([`NOT_RAW`]: `self`, `Self`, `super`,
//!   `crate`, `_`) are spelled differently (`self` → `self_`, a type or
//!   variant `Self` → `SelfValue`);
//! - a leading digit gets a prefix (`_` for snake case, `T` for types, `V`
//!   for variants), an empty name a placeholder;
//! - names that the generated module defines itself ([`MODULE_ITEMS`]) are
//!   never given to a generated type, and sibling names (types of one
//!   module, variants of one enum, tests of one contract) that come out
//!   equal get a numeric suffix in declaration order (`AB`, `AB2`).
//!
//! Two properties of one object that become the same field stay an error
//! (`TQX_CODEGEN_COLLISION`, raised by the type generator with
//! [`field_ident`]): a silently renumbered field would change meaning when
//! a property is added.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use std::borrow::Cow;
use std::collections::BTreeSet;

/// Strict keywords of every edition (2015–2024), `Self` included.
pub(crate) const STRICT: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while",
];

/// Reserved keywords of every edition (`try` since 2018, `gen` since 2024).
pub(crate) const RESERVED: &[&str] = &[
    "abstract", "become", "box", "do", "final", "gen", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// Weak keywords: keywords in some positions only (`union`,
/// `macro_rules`, `raw` in `&raw const`, `safe` in `unsafe extern` blocks).
/// The generator treats them as keywords everywhere.
pub(crate) const WEAK: &[&str] = &["macro_rules", "raw", "safe", "union"];

/// Keywords that are not valid raw identifiers (`r#self` is an error).
pub(crate) const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// What every generated contract module defines besides the generated
/// types: a generated type never takes one of these names. `InputsFields`,
/// `ContextFields` and `OutputFields` name no item: they stay reserved so
/// that the names of generated types stay what earlier releases chose.
pub(crate) const MODULE_ITEMS: &[&str] = &[
    "Inputs",
    "Context",
    "Output",
    "InputsFields",
    "ContextFields",
    "OutputFields",
    "CONTRACT_ID",
    "CONTRACT_VERSION",
    "CONTRACT_FINGERPRINT",
    "INTERACTION_FINGERPRINT",
    "INTERACTION",
    "EVALS",
    "render",
    "decode_output",
    "execute",
    "execute_streaming",
    "execute_async",
    "execute_streaming_async",
    "execute_partial",
    "execute_partial_async",
    "PartialOutput",
    "partial",
    "evals",
];

/// Whether `s` is a keyword of any edition (strict, reserved or weak), or
/// `_`.
pub(crate) fn is_keyword(s: &str) -> bool {
    s == "_" || STRICT.contains(&s) || RESERVED.contains(&s) || WEAK.contains(&s)
}

/// `s` with non-ASCII characters transliterated to ASCII (`naïve` →
/// `naive`, `größe` → `grosse`, `名前` → `Ming Qian`); characters without a
/// transliteration become a space, which the case conversions treat as a
/// word break. ASCII text is returned unchanged, without copying.
fn ascii(s: &str) -> Cow<'_, str> {
    if s.is_ascii() {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(deunicode::deunicode_with_tofu(s, " "))
    }
}

/// ASCII snake case of `ascii(s)`: letters lower-cased, every run of
/// other characters one `_`.
pub(crate) fn snake(s: &str) -> String {
    let s = ascii(s);
    let mut out = String::with_capacity(s.len());
    let mut prev_lower = false;
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && prev_lower && !out.ends_with('_') {
                out.push('_');
            }
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            out.push(c.to_ascii_lowercase());
        } else {
            if !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
            prev_lower = false;
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

/// ASCII Pascal case of the alphanumeric runs of `ascii(s)`
/// (`merge_data` → `MergeData`, `größe` → `Grosse`).
pub(crate) fn pascal(s: &str) -> String {
    ascii(s)
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut cs = w.chars();
            match cs.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + cs.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// The module name for a contract id: ASCII snake case, a leading digit or
/// an empty name prefixed with `_`, a keyword of any edition suffixed with
/// `_` (`bli-61-date-term-extraction` → `bli_61_date_term_extraction`,
/// `type` → `type_`, `self` → `self_`), and so is the name of a crate
/// hosts and generated code refer to by path ([`EXTERN_CRATES`]:
/// `templiqx` → `templiqx_`, `std` → `std_`).
pub(crate) fn module_name(id: &str) -> String {
    let mut s = snake(id);
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if is_keyword(&s) || EXTERN_CRATES.contains(&s.as_str()) {
        s.push('_');
    }
    s
}

/// Crate names a host's code or the generated code refers to by path
/// (`std::…`, `templiqx::include_contract!`, `serde::Deserialize`): a
/// contract module of one of these names would shadow the crate in the
/// host's scope, so it gets a `_` suffix like a keyword.
pub(crate) const EXTERN_CRATES: &[&str] = &[
    "alloc",
    "core",
    "proc_macro",
    "serde",
    "serde_json",
    "std",
    "templiqx",
    "test",
];

/// The Rust field name of a property, in snake case (`firstName` and
/// `first-name` → `first_name`, `type` → `r#type`, `union` → `r#union`,
/// `self` → `self_`, `2fa` → `_2fa`; non-ASCII letters are transliterated:
/// `naïve` → `naive`, `名前` → `ming_qian`). A keyword is returned in its
/// raw form (`r#…`); [`ident`] turns it into tokens.
pub(crate) fn field_ident(name: &str) -> String {
    let mut s = snake(name);
    if name.starts_with('_') {
        s.insert(0, '_');
    }
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if NOT_RAW.contains(&s.as_str()) {
        format!("{s}_")
    } else if is_keyword(&s) {
        format!("r#{s}")
    } else {
        s
    }
}

/// The name of a struct's extra-members map (open objects): the first of
/// `additional_properties`, `additional_properties_`, … that no declared
/// field takes.
pub(crate) fn extra_field(taken: &[String]) -> String {
    let mut name = "additional_properties".to_owned();
    while taken.contains(&name) {
        name.push('_');
    }
    name
}

/// Tokens of an identifier decided by this module (`r#type` becomes a raw
/// identifier).
pub(crate) fn ident(name: &str) -> TokenStream {
    match name.strip_prefix("r#") {
        Some(raw) => {
            let id = Ident::new_raw(raw, Span::call_site());
            quote! { #id }
        }
        None => {
            let id = Ident::new(name, Span::call_site());
            quote! { #id }
        }
    }
}

/// Pascal case for a type or variant: never empty, never starting with a
/// digit (`prefix` is put before one), never `Self`.
fn pascal_item(text: &str, empty: &str, prefix: char) -> String {
    let mut base = pascal(text);
    if base.is_empty() {
        base = empty.to_owned();
    }
    if base.starts_with(|c: char| c.is_ascii_digit()) {
        base.insert(0, prefix);
    }
    if base == "Self" {
        base.push_str("Value");
    }
    base
}

/// The type names of one generated module.
pub(crate) struct TypeNames {
    taken: BTreeSet<String>,
}

impl Default for TypeNames {
    /// A fresh set: only [`MODULE_ITEMS`] are taken.
    fn default() -> TypeNames {
        TypeNames {
            taken: MODULE_ITEMS.iter().map(|s| (*s).to_owned()).collect(),
        }
    }
}

impl TypeNames {
    /// A fresh type name for a property `name` inside type `parent`: its
    /// Pascal case, else prefixed with the parent type's name, else that
    /// with a numeric suffix. Deterministic (first come, first served in
    /// declaration order).
    pub(crate) fn fresh(&mut self, name: &str, parent: &str) -> String {
        let base = capped(pascal_item(name, "Value", 'T'));
        if self.taken.insert(base.clone()) {
            return base;
        }
        let prefixed = capped(format!("{parent}{base}"));
        if self.taken.insert(prefixed.clone()) {
            return prefixed;
        }
        (2..)
            .map(|n| format!("{prefixed}{n}"))
            .find(|c| self.taken.insert(c.clone()))
            .unwrap_or(prefixed)
    }
}

/// The longest type name the generator writes, in bytes: rustdoc writes a
/// file `struct.<Name>.html` per type, and file systems refuse names over
/// 255 bytes.
pub(crate) const MAX_TYPE_NAME: usize = 96;

/// `name`, or, when it is longer than [`MAX_TYPE_NAME`], its first bytes
/// followed by 16 hex digits of its FNV-1a hash, so distinct long names
/// stay distinct and the result is the same on every build.
fn capped(name: String) -> String {
    if name.len() <= MAX_TYPE_NAME {
        return name;
    }
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    let mut cut = MAX_TYPE_NAME - 16;
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{hash:016X}", &name[..cut])
}

/// The variant names of one generated enum.
#[derive(Default)]
pub(crate) struct VariantNames {
    taken: BTreeSet<String>,
}

impl VariantNames {
    /// The variant for a string value: its Pascal case (`a-b` → `AB`,
    /// `""` → `V`, `2x` → `V2x`, `self` → `SelfValue`), numbered when a
    /// sibling took it (`A_B` after `a-b` → `AB2`).
    pub(crate) fn fresh(&mut self, value: &str) -> String {
        let base = pascal_item(value, "V", 'V');
        if self.taken.insert(base.clone()) {
            return base;
        }
        (2..)
            .map(|n| format!("{base}{n}"))
            .find(|c| self.taken.insert(c.clone()))
            .unwrap_or(base)
    }
}

/// The test function names of one contract's eval module.
#[derive(Default)]
pub(crate) struct TestNames {
    taken: BTreeSet<String>,
}

impl TestNames {
    /// The test function for an eval id: snake case, `eval_` before a
    /// leading digit or an empty name, a keyword suffixed with `_`
    /// (`fn` → `fn_`), numbered when a sibling took it (`Fn` after `fn` →
    /// `fn_2`).
    pub(crate) fn fresh(&mut self, eval_id: &str) -> String {
        let mut name = snake(eval_id);
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            name.insert_str(0, "eval_");
        }
        if is_keyword(&name) {
            name.push('_');
        }
        if self.taken.insert(name.clone()) {
            return name;
        }
        // `fn_` taken: `fn_2`, never the bare keyword `fn`.
        let base = name.trim_end_matches('_').to_owned();
        (2..)
            .map(|n| format!("{base}_{n}"))
            .find(|c| self.taken.insert(c.clone()))
            .unwrap_or(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn awkward_property_names_become_valid_fields() {
        assert_eq!(field_ident("type"), "r#type");
        assert_eq!(field_ident("self"), "self_");
        assert_eq!(field_ident("Self"), "self_");
        assert_eq!(field_ident("super"), "super_");
        assert_eq!(field_ident("crate"), "crate_");
        assert_eq!(field_ident("_"), "__");
        assert_eq!(field_ident("union"), "r#union");
        assert_eq!(field_ident("macro_rules"), "r#macro_rules");
        assert_eq!(field_ident("gen"), "r#gen");
        assert_eq!(field_ident("try"), "r#try");
        assert_eq!(field_ident("first-name"), "first_name");
        assert_eq!(field_ident("naïve"), "naive");
        assert_eq!(field_ident("größe"), "grosse");
        assert_eq!(field_ident("名前"), "ming_qian");
        assert_eq!(field_ident("Ürün-Adı"), "urun_adi");
        // Nothing to transliterate: still a valid, if uninformative, name.
        assert_eq!(field_ident("\u{E000}"), "__");
        assert_eq!(field_ident("2fa"), "_2fa");
        assert_eq!(field_ident("Camel"), "camel");
        assert_eq!(field_ident("firstName"), "first_name");
        assert_eq!(field_ident("HTTPStatus"), "httpstatus");
        assert_eq!(field_ident("_private"), "_private");
        assert_eq!(
            module_name("bli-61-date-term-extraction"),
            "bli_61_date_term_extraction"
        );
        assert_eq!(module_name("type"), "type_");
        assert_eq!(module_name("self"), "self_");
        assert_eq!(module_name("union"), "union_");
        assert_eq!(module_name("2x"), "_2x");
        assert_eq!(pascal("merge_data"), "MergeData");
    }

    #[test]
    fn types_variants_and_tests_are_fresh_and_never_keywords() {
        let mut types = TypeNames::default();
        assert_eq!(types.fresh("self", "Inputs"), "SelfValue");
        assert_eq!(types.fresh("inputs", "Output"), "OutputInputs");
        assert_eq!(types.fresh("render", "Inputs"), "Render");
        assert_eq!(types.fresh("Render", "Inputs"), "InputsRender");
        assert_eq!(types.fresh("render", "Inputs"), "InputsRender2");
        assert_eq!(types.fresh("2x", "Inputs"), "T2x");
        // The partial output's alias is the module's own name.
        assert_eq!(
            types.fresh("partial_output", "Output"),
            "OutputPartialOutput"
        );
        assert_eq!(types.fresh("", "Inputs"), "Value");
        // Long names are capped (rustdoc writes one file per type), and
        // stay distinct and deterministic.
        let long_a = types.fresh(&"b".repeat(245), "Inputs");
        let long_b = types.fresh(&format!("{}c", "b".repeat(244)), "Inputs");
        assert_eq!(long_a.len(), MAX_TYPE_NAME);
        assert_ne!(long_a, long_b);
        assert_eq!(
            long_a,
            TypeNames::default().fresh(&"b".repeat(245), "Inputs")
        );
        assert!(long_a.starts_with("Bbbb"), "{long_a}");
        let mut variants = VariantNames::default();
        let got: Vec<String> = ["a-b", "A_B", "", "2x", "self", "Self"]
            .iter()
            .map(|v| variants.fresh(v))
            .collect();
        assert_eq!(got, ["AB", "AB2", "V", "V2x", "SelfValue", "SelfValue2"]);
        let mut tests = TestNames::default();
        let got: Vec<String> = ["fn", "Fn", "self", "2", "", "gen", "macro_rules"]
            .iter()
            .map(|v| tests.fresh(v))
            .collect();
        assert_eq!(
            got,
            [
                "fn_",
                "fn_2",
                "self_",
                "eval_2",
                "eval_",
                "gen_",
                "macro_rules_"
            ]
        );
        assert_eq!(
            extra_field(&["additional_properties".into()]),
            "additional_properties_"
        );
        for k in STRICT.iter().chain(RESERVED).chain(WEAK) {
            assert!(is_keyword(k), "{k}");
        }
    }
}
