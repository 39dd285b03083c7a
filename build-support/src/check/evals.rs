//! Eval fixtures (`docs/format.md`, "Eval fixtures"): unique ids, inputs
//! and context checked against the declarations, `fake_output` against
//! `output_schema`, and the numbers an eval test decodes into the generated
//! `i64`/`f64` exactly (`templiqx_contracts::typed`).

use super::contract::Declared;
use super::{CompileOptions, Cx, FieldInfo};
use crate::dto::{Contract, Loc};
use std::collections::HashMap;
use templiqx_contracts::words;
use templiqx_contracts::{Code, Schema};

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

    /// Reports each number of a schema-valid `value` that its generated
    /// type (`i64` or `f64`) cannot hold exactly (`TQX_EVAL_INVALID`;
    /// `templiqx_contracts::typed`).
    pub(super) fn eval_integers(
        &mut self,
        schema: &Schema,
        value: &serde_json::Value,
        loc: &Loc,
        what: &str,
    ) {
        use templiqx_contracts::AsValue as _;
        use templiqx_contracts::typed::{Unfit, unrepresentable};
        for (pointer, unfit) in unrepresentable(schema, value.as_value()) {
            let vloc = Loc::new(loc.file, format!("{}{}", loc.pointer, pointer));
            let (message, help) = match unfit {
                Unfit::OutsideI64 => (
                    "the integer does not fit `i64`, the generated type of `type: integer`",
                    "use an integer between -9223372036854775808 and 9223372036854775807, or \
                     bound the schema with `minimum`/`maximum`",
                ),
                Unfit::DoubleBeyondExactIntegers => (
                    "the integer-valued double is beyond 2^53, so the generated `i64` of \
                     `type: integer` would not hold the number canonical JSON writes for it",
                    "write the integer without a fraction or exponent (`1234567890123456789`, \
                     not `1234567890123456789.0`), or bound the schema with `minimum`/`maximum`",
                ),
                Unfit::IntegerBeyondF64 => (
                    "the integer is beyond 2^53, so the generated `f64` of `type: number` \
                     would not hold it exactly",
                    "use a number between -9007199254740992 and 9007199254740992, or bound \
                     the schema with `minimum`/`maximum`",
                ),
            };
            self.err(
                Code::EvalInvalid,
                format!("{what} is invalid: {message}"),
                &vloc,
                help,
            );
        }
    }
}
