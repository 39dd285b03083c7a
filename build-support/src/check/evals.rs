//! Eval fixtures (`docs/format.md`, "Eval fixtures"): unique ids, inputs
//! and context checked against the declarations, `fake_output` against
//! `output_schema`, and the numbers an eval test decodes into the generated
//! `i64`/`f64` exactly (`templiqx_contracts::typed`).

use super::OpenRows;
use super::contract::Declared;
use super::{CompileOptions, Cx, Decls, FieldInfo, lower};
use crate::dataset::{RowField, RowTypes};
use crate::dto::{Contract, EvalDecl, Loc};
use std::collections::HashMap;
use templiqx_contracts::expect::{
    evaluate_check, evaluate_check_with_case, observed_values, observed_values_with_case,
};
use templiqx_contracts::validate::validate;
use templiqx_contracts::{AsValue, Code, Diagnostic, Schema, ir, words};

/// The most problems of one dataset reported one by one; the rest are
/// counted in one more diagnostic, so a broken file of 100,000 rows does
/// not flood the output.
const MAX_ROW_DIAGNOSTICS: u64 = 50;

/// A declared field as a dataset row is checked against it.
fn row_field(f: &FieldInfo) -> RowField<'_> {
    RowField {
        name: &f.name,
        schema: f.schema.as_ref(),
        required: f.required,
    }
}

/// The help of an id with a character no report can carry.
const ID_HELP: &str = "eval and check ids name tests and report entries (JUnit, HTML, the terminal); write them with printable characters";

/// The first character of `id` that no report can carry as text,
/// described (`docs/format.md`, "Eval fixtures"; [`words::unprintable`]).
fn unprintable(id: &str) -> Option<String> {
    id.chars()
        .find_map(|c| words::unprintable(c).map(|what| format!("U+{:04X}, {what}", u32::from(c))))
}

impl Cx<'_> {
    /// The eval-fixture phase: every problem of a fixture's values is
    /// `TQX_EVAL_INVALID`; its `expect` checks are lowered like content
    /// (their reference and type codes). With
    /// [`CompileOptions::fake_output_in_tests`], `fake_output` — its schema
    /// and the checks against it — is left to the generated tests.
    pub(super) fn evals(
        &mut self,
        contract: &Contract,
        declared: &Declared,
        decls: &Decls<'_>,
        options: &CompileOptions,
        datasets: Option<OpenRows<'_>>,
    ) {
        let mut ids = HashMap::new();
        for eval in &contract.evals {
            let before = self.diags.len();
            if let Some(what) = unprintable(&eval.id) {
                self.err(
                    Code::EvalInvalid,
                    format!("eval id `{}` holds {what}", words::printable(&eval.id)),
                    &eval.loc.child("id"),
                    ID_HELP,
                );
            }
            if eval.id.contains('#') {
                self.err(
                    Code::EvalInvalid,
                    format!("eval id `{}` holds `#`", words::printable(&eval.id)),
                    &eval.loc.child("id"),
                    "`#` separates a dataset entry's id from a row's in a fixture name (`contract::entry#ID`), so an eval id holds none; write `-` or `.` instead",
                );
            }
            if let Some(first) = ids.insert(eval.id.as_str(), eval.loc.pointer.clone()) {
                self.err(
                    Code::EvalInvalid,
                    format!("eval id `{}` is used twice", eval.id),
                    &eval.loc.child("id"),
                    format!("eval ids are unique within a contract; the first is at {first}"),
                );
            }
            if eval.dataset.is_some() {
                self.dataset_entry(eval, declared, decls, datasets);
                continue;
            }
            if eval.case_schema.is_some() {
                self.err(
                    Code::EvalInvalid,
                    format!("eval `{}` has a `case_schema` but no `dataset`", eval.id),
                    &eval.loc.child("case_schema"),
                    "`case_schema` types the expected data of each row of a `dataset`; name the data file, or remove it",
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
            let checks = self.expect_checks(eval, declared, decls);
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
                // Checks run against a valid fixture only: they were typed
                // against the declarations and `output_schema`.
                if self.diags.len() == before && validate(schema, out.as_value()).is_ok() {
                    self.run_checks(eval, &checks, out);
                }
            }
        }
    }

    /// The ids of a fixture's `expect` (non-empty, unique within the
    /// fixture: `TQX_EVAL_INVALID`) and its lowered checks (`None` for a
    /// check with an error).
    fn expect_checks(
        &mut self,
        eval: &EvalDecl,
        declared: &Declared,
        decls: &Decls<'_>,
    ) -> Vec<Option<ir::Check>> {
        self.check_ids(eval);
        lower::expectations(self, decls, declared.output_schema.as_ref(), None, eval)
    }

    /// The ids of a fixture's `expect`: non-empty, printable, unique within
    /// the fixture (`TQX_EVAL_INVALID`).
    fn check_ids(&mut self, eval: &EvalDecl) {
        let mut ids: HashMap<&str, String> = HashMap::new();
        for check in &eval.expect {
            let id_loc = check.loc.child("id");
            if check.id.is_empty() {
                self.err(
                    Code::EvalInvalid,
                    format!("a check of eval `{}` has an empty id", eval.id),
                    &id_loc,
                    "name the check; reports and failing tests name checks by id",
                );
            } else if let Some(what) = unprintable(&check.id) {
                self.err(
                    Code::EvalInvalid,
                    format!(
                        "check id `{}` of eval `{}` holds {what}",
                        words::printable(&check.id),
                        words::printable(&eval.id)
                    ),
                    &id_loc,
                    ID_HELP,
                );
            } else if let Some(first) = ids.insert(&check.id, check.loc.pointer.clone()) {
                self.err(
                    Code::EvalInvalid,
                    format!(
                        "check id `{}` is used twice in eval `{}`",
                        check.id, eval.id
                    ),
                    &id_loc,
                    format!("check ids are unique within a fixture; the first is at {first}"),
                );
            }
        }
    }

    /// An eval entry with a `dataset` (`docs/format.md`, "Datasets"): no
    /// inline case beside it, its `case_schema` compiled, its checks
    /// lowered with `case` in scope, and every row of the file read,
    /// typed and checked as an inline fixture is (`TQX_EVAL_INVALID` in
    /// the data file, at the row's line), its `fake_output` against the
    /// checks too. Rows are read one at a time, never all at once.
    fn dataset_entry(
        &mut self,
        eval: &EvalDecl,
        declared: &Declared,
        decls: &Decls<'_>,
        datasets: Option<OpenRows<'_>>,
    ) {
        let Some(dataset) = &eval.dataset else { return };
        for (key, given) in [
            ("inputs", !eval.inputs.is_empty()),
            ("context", !eval.context.is_empty()),
            ("fake_output", eval.fake_output.is_some()),
        ] {
            if given {
                self.err(
                    Code::EvalInvalid,
                    format!(
                        "eval `{}` names a `dataset` and gives `{key}` inline",
                        eval.id
                    ),
                    &eval.loc.child(key),
                    format!("an entry with a `dataset` takes its cases from the file's rows; give `{key}` in each row"),
                );
            }
        }
        if crate::dataset::Format::of(&dataset.path).is_none() {
            self.err(
                Code::EvalInvalid,
                format!(
                    "dataset `{}` is neither a `.jsonl` nor a `.csv` file",
                    dataset.path
                ),
                &eval.loc.child("dataset"),
                "name a JSON Lines file (`.jsonl`) or a CSV file with a header row (`.csv`)",
            );
            return;
        }
        let case = eval
            .case_schema
            .as_ref()
            .map(|doc| self.schema(doc, &eval.loc.child("case_schema")));
        self.check_ids(eval);
        let checks = lower::expectations(
            self,
            decls,
            declared.output_schema.as_ref(),
            Some(case.as_ref().and_then(Option::as_ref)),
            eval,
        );
        let (Some(open), Some(_)) = (datasets, &dataset.file) else {
            self.err(
                Code::IncludeUnresolved,
                format!(
                    "dataset `{}` of eval `{}` cannot be read without the contract's package",
                    dataset.path, eval.id
                ),
                &eval.loc.child("dataset"),
                "compile the contract in its package (`templiqx check DIR`, `Builder::package`): a dataset path is relative to the package root",
            );
            return;
        };
        let mut rows = match open(dataset) {
            Ok(rows) => rows,
            Err(d) => {
                self.err(
                    Code::IncludeUnresolved,
                    d.message,
                    &eval.loc.child("dataset"),
                    "dataset paths are relative to the package root, written with `/`, and stay inside the package",
                );
                return;
            }
        };
        let case_schema = case.as_ref().and_then(Option::as_ref);
        let types = RowTypes {
            inputs: declared.inputs.iter().map(row_field).collect(),
            context: declared.context.iter().map(row_field).collect(),
            case: case_schema,
            output: declared.output_schema.as_ref(),
        };
        let checks_ok = checks.iter().all(Option::is_some);
        let (mut count, mut invalid) = (0u64, 0u64);
        // Each row id's line, keyed by a 128-bit digest of the id: memory
        // for the duplicate check is 20 bytes a row (plus the table's
        // slack), whatever the ids' length (docs/benchmarks.md, "Datasets
        // at scale"); two distinct ids share a digest with odds of about
        // rows² / 2¹²⁹.
        let mut ids: HashMap<[u8; 16], u32> = HashMap::new();
        let report = |this: &mut Self, d: Diagnostic, invalid: &mut u64| {
            *invalid += 1;
            if *invalid <= MAX_ROW_DIAGNOSTICS {
                this.diags.push(d);
            }
        };
        while let Some(raw) = rows.next() {
            count += 1;
            let raw = match raw {
                Ok(raw) => raw,
                Err(d) => {
                    report(self, d, &mut invalid);
                    continue;
                }
            };
            let row = match types.check(&raw, rows.columns()) {
                Ok(row) => row,
                Err(ds) => {
                    for d in ds {
                        report(self, d, &mut invalid);
                    }
                    continue;
                }
            };
            if let Some(first) = ids.insert(id_digest(&row.id), row.line) {
                let mut d = Diagnostic::error(
                    Code::EvalInvalid,
                    format!(
                        "row `{}` (line {}) of `{}` reuses the id of line {first}",
                        words::printable(&row.id),
                        row.line,
                        dataset.display
                    ),
                )
                .in_file(dataset.display.clone())
                .at("/id")
                .help("row ids are unique within a dataset: rows are named `contract::entry#id`");
                d.span = Some(raw.span_of(Some("/id")));
                report(self, d, &mut invalid);
            }
            if let (Some(output), true) = (&row.fake_output, checks_ok) {
                for (check, decl) in checks.iter().flatten().zip(&eval.expect) {
                    if check.judge.is_some() {
                        continue;
                    }
                    let case = row.case.as_ref().map(AsValue::as_value);
                    let outcome = evaluate_check_with_case(
                        check,
                        &row.inputs,
                        &row.context,
                        case,
                        output.as_value(),
                    );
                    if outcome == Ok(true) {
                        continue;
                    }
                    let why = match &outcome {
                        Err(e) => format!(": {}", e.message),
                        Ok(_) => String::new(),
                    };
                    let mut d = Diagnostic::error(
                        Code::EvalInvalid,
                        format!(
                            "check `{}` of eval `{}` fails against the `fake_output` of row `{}` (line {}) of `{}`{why}",
                            decl.id,
                            eval.id,
                            words::printable(&row.id),
                            row.line,
                            dataset.display
                        ),
                    )
                    .in_file(dataset.display.clone())
                    .at("/fake_output")
                    .help("fix the row's `fake_output` or `case`, or the check");
                    d.span = Some(raw.span_of(Some("/fake_output")));
                    d.notes.push(format!("the check: {}", check.source));
                    for o in observed_values_with_case(
                        check,
                        &row.inputs,
                        &row.context,
                        case,
                        output.as_value(),
                    ) {
                        d.notes.push(match o.value {
                            Some(v) => format!("{} = {}", o.expression, words::truncate(&v)),
                            None => format!("{} has no value", o.expression),
                        });
                    }
                    report(self, d, &mut invalid);
                }
            }
        }
        if invalid > MAX_ROW_DIAGNOSTICS {
            self.diags.push(
                Diagnostic::error(
                    Code::EvalInvalid,
                    format!(
                        "`{}` has {} more problems than the {MAX_ROW_DIAGNOSTICS} shown",
                        dataset.display,
                        invalid - MAX_ROW_DIAGNOSTICS
                    ),
                )
                .in_file(dataset.display.clone())
                .help("fix the rows shown and check again"),
            );
        }
        if count == 0 {
            self.err(
                Code::EvalInvalid,
                format!(
                    "dataset `{}` of eval `{}` has no rows",
                    dataset.path, eval.id
                ),
                &eval.loc.child("dataset"),
                "add rows to the file, or remove the entry",
            );
        }
    }

    /// Evaluates a fixture's checks against its (valid) `fake_output`: a
    /// check that is `false`, or cannot be decided, is `TQX_EVAL_INVALID`
    /// at the check, naming the values it read.
    fn run_checks(
        &mut self,
        eval: &EvalDecl,
        checks: &[Option<ir::Check>],
        output: &serde_json::Value,
    ) {
        for (decl, check) in eval.expect.iter().zip(checks) {
            let Some(check) = check else { continue };
            if check.judge.is_some() {
                // A model-graded check needs its judge's output, which only
                // an eval run has (`docs/format.md`, "Model-graded checks").
                continue;
            }
            let outcome = evaluate_check(check, &eval.inputs, &eval.context, output.as_value());
            if outcome == Ok(true) {
                continue;
            }
            let why = match &outcome {
                Err(e) => format!(": {}", e.message),
                Ok(_) => String::new(),
            };
            let mut d = self
                .sources
                .error(
                    Code::EvalInvalid,
                    format!(
                        "check `{}` of eval `{}` fails against its `fake_output`{why}",
                        check.id, eval.id
                    ),
                    &decl.check.loc,
                )
                .help("fix the fixture's `fake_output`, or the check");
            d.notes.push(format!("the check: {}", check.source));
            for o in observed_values(check, &eval.inputs, &eval.context, output.as_value()) {
                d.notes.push(match o.value {
                    Some(v) => format!("{} = {}", o.expression, words::truncate(&v)),
                    None => format!("{} has no value", o.expression),
                });
            }
            self.diags.push(d);
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
                    let fix =
                        words::replacement(key, &names, "").filter(|r| !values.contains_key(r));
                    self.suggest(self.sources.fix_whole(&vloc, true, fix));
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

/// The first 16 bytes of the SHA-256 of a dataset row's id: what the
/// duplicate check keeps of each id.
fn id_digest(id: &str) -> [u8; 16] {
    use sha2::Digest;
    let full = sha2::Sha256::digest(id.as_bytes());
    let mut digest = [0u8; 16];
    digest.copy_from_slice(&full[..16]);
    digest
}
