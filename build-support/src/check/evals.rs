//! Eval fixtures (`docs/format.md`, "Eval fixtures"): unique ids, inputs
//! and context checked against the declarations, `fake_output` against
//! `output_schema`, and the integers an eval test decodes into `i64`.

use super::contract::Declared;
use super::{CompileOptions, Cx, FieldInfo};
use crate::dto::{Contract, Loc};
use std::collections::HashMap;
use templiqx_contracts::words;
use templiqx_contracts::{Code, JsonType, Schema};

impl Cx<'_> {
    /// The eval-fixture phase: every problem is `TQX_EVAL_INVALID`. With
    /// [`CompileOptions::fake_output_in_tests`], `fake_output` is left to
    /// the generated tests.
    pub(super) fn evals(
        &mut self,
        contract: &Contract,
        declared: &Declared,
        options: &CompileOptions,
    ) {
        let mut ids = HashMap::new();
        for eval in &contract.evals {
            if let Some(first) = ids.insert(eval.id.as_str(), eval.loc.pointer.clone()) {
                self.err(
                    Code::EvalInvalid,
                    format!("eval id `{}` is used twice", eval.id),
                    &eval.loc.child("id"),
                    format!("eval ids are unique within a contract; the first is at {first}"),
                );
            }
            self.eval_values(
                &declared.inputs,
                &eval.inputs,
                &eval.loc.child("inputs"),
                "input",
            );
            self.eval_values(
                &declared.context,
                &eval.context,
                &eval.loc.child("context"),
                "context field",
            );
            if let (Some(out), Some(schema), false) = (
                &eval.fake_output,
                &declared.output_schema,
                options.fake_output_in_tests,
            ) {
                self.violations(
                    Code::EvalInvalid,
                    schema,
                    out,
                    &eval.loc.child("fake_output"),
                    &format!("`fake_output` of eval `{}`", eval.id),
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
                    let help = words::did_you_mean(key, &names, "declared: ");
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

    /// Reports each integer of a schema-valid `value` that the generated
    /// `i64` of `type: integer` cannot hold (`TQX_EVAL_INVALID`).
    pub(super) fn eval_integers(
        &mut self,
        schema: &Schema,
        value: &serde_json::Value,
        loc: &Loc,
        what: &str,
    ) {
        let mut beyond = Vec::new();
        integers_beyond_i64(schema, value, &mut String::new(), &mut beyond);
        for pointer in beyond {
            let vloc = Loc::new(loc.file, format!("{}{}", loc.pointer, pointer));
            self.err(
                Code::EvalInvalid,
                format!("{what} is invalid: the integer does not fit `i64`, the generated type of `type: integer`"),
                &vloc,
                "use an integer between -9223372036854775808 and 9223372036854775807, or bound the schema with `minimum`/`maximum`",
            );
        }
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
