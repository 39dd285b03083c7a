//! What a run costs (`docs/eval.md`, "Cost"): a price table per model,
//! read from a YAML file (`--prices`), prices each execution by the tokens
//! its provider reported; the statistics add the costs up per fixture, per
//! contract, per variant and over the run.
//!
//! The file's shape:
//!
//! ```yaml
//! currency: USD                 # optional (default USD): a word printed after amounts
//! models:                       # per model name as sent (--model), prices per million tokens
//!   gpt-4o-mini: { input: 0.15, output: 0.60, cached_input: 0.075 }
//!   fake:        { input: 1.00, output: 4.00 }
//! ```
//!
//! A model without a price, or an execution without token counts, has no
//! cost: it is *unknown*, never 0.
//!
//! An execution costs, per million tokens ([`Prices::cost_of`]):
//! `(input_tokens − cached_input_tokens) × input + cached_input_tokens ×
//! cached_input + output_tokens × output`, where `cached_input_tokens` are
//! the input tokens the provider read from its prompt cache
//! ([`templiqx::Usage::cached_input_tokens`]) and `cached_input` is the
//! model's `input` price when the table gives none.

use std::collections::BTreeMap;

use crate::record::ExecutionRecord;
use serde::{Deserialize, Serialize};
use templiqx_build::yaml::{self, Node, NodeValue};
use templiqx_contracts::{Code, Diagnostic, Diagnostics};

/// One model's prices, per million tokens, in the table's currency.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// Per million input (prompt) tokens.
    pub input: f64,
    /// Per million output (completion) tokens.
    pub output: f64,
    /// Per million cached input tokens (those the provider read from its
    /// prompt cache, [`templiqx::Usage::cached_input_tokens`]), when the
    /// provider prices them apart; without it they are priced at `input`
    /// ([`Prices::cost_of`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input: Option<f64>,
}

/// A price table: what `--prices FILE` reads (`docs/eval.md`, "Cost").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prices {
    /// The currency, a word printed after every amount (`USD`, `EUR`,
    /// `credits`); default `USD`.
    pub currency: String,
    /// Model name (as sent, `--model`) → its prices.
    pub models: BTreeMap<String, Price>,
}

impl Prices {
    /// The price table in `text`, the YAML file `file` (named in the
    /// diagnostics).
    ///
    /// # Errors
    ///
    /// Every problem at once, each with the file, the JSON pointer and the
    /// line: `TQX_PARSE_YAML` for text that is not YAML;
    /// `TQX_INVALID_TYPE` for a root, `models` or model entry that is not
    /// a mapping, a currency that is not a string or a price that is not a
    /// number; `TQX_MISSING_FIELD` for no `models` or a model without
    /// `input` or `output`; `TQX_UNKNOWN_FIELD` for any other key (a
    /// misspelt `ouput` is not silently no price); `TQX_INVALID_VALUE` for
    /// a negative price, or a currency that is empty or holds a control
    /// character.
    pub fn parse(text: &str, file: &str) -> Result<Prices, Diagnostics> {
        let root = yaml::parse(text)
            .map_err(|d| Diagnostics::from(vec![of_a_price_table(d).in_file(file)]))?;
        let mut errors = Vec::new();
        let mut prices = Prices {
            currency: "USD".to_owned(),
            models: BTreeMap::new(),
        };
        let help = "a price table is `currency: USD` (optional) and `models:`, a mapping of model names to `{ input: N, output: N, cached_input: N }`, prices per million tokens (docs/eval.md, \"Cost\")";
        let Some(entries) = root.as_map() else {
            errors.push(
                Diagnostic::error(
                    Code::InvalidType,
                    format!("the price table is {}, not a mapping", kind(&root)),
                )
                .at("")
                .help(help),
            );
            return Err(located(errors, file, &root));
        };
        let mut models = None;
        for (key, value) in entries {
            let pointer = format!("/{}", escape(&key.text));
            match key.text.as_str() {
                "currency" => match value.as_str().map(str::trim) {
                    Some(c) if !c.is_empty() && !c.chars().any(char::is_control) => {
                        prices.currency = c.to_owned();
                    }
                    Some(c) => errors.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            match c.chars().find(|c| c.is_control()) {
                                // Named by its code point: the character
                                // itself would act on the terminal.
                                Some(control) => format!(
                                    "`currency` holds a control character (U+{:04X})",
                                    u32::from(control)
                                ),
                                None => "`currency` is empty".to_owned(),
                            },
                        )
                        .at(pointer)
                        .help("a word printed after amounts: `USD`, `EUR`, `credits`"),
                    ),
                    None => errors.push(
                        Diagnostic::error(
                            Code::InvalidType,
                            format!("`currency` is {}, not a string", kind(value)),
                        )
                        .at(pointer),
                    ),
                },
                "models" => models = Some(value),
                other => errors.push(
                    Diagnostic::error(
                        Code::UnknownField,
                        format!("unknown field `{other}` in the price table"),
                    )
                    .at(pointer)
                    .help(help),
                ),
            }
        }
        match models.map(|m| (m, m.as_map())) {
            None => errors.push(
                Diagnostic::error(Code::MissingField, "the price table has no `models`")
                    .at("")
                    .help(help),
            ),
            Some((m, None)) => errors.push(
                Diagnostic::error(
                    Code::InvalidType,
                    format!("`models` is {}, not a mapping", kind(m)),
                )
                .at("/models")
                .help(help),
            ),
            Some((_, Some(entries))) => {
                for (model, value) in entries {
                    let pointer = format!("/models/{}", escape(&model.text));
                    if let Some(price) = price(&model.text, value, &pointer, &mut errors) {
                        prices.models.insert(model.text.clone(), price);
                    }
                }
            }
        }
        if errors.is_empty() {
            Ok(prices)
        } else {
            Err(located(errors, file, &root))
        }
    }

    /// The price of `model`, if the table has one.
    #[must_use]
    pub fn price(&self, model: &str) -> Option<&Price> {
        self.models.get(model)
    }

    /// What `input_tokens` and `output_tokens` of `model` cost, every input
    /// token at `input` (none taken as cached); `None` when the table has
    /// no price for the model or a count is missing. [`Prices::cost_of`]
    /// prices an execution's cached input tokens apart.
    #[must_use]
    pub fn cost(
        &self,
        model: &str,
        input_tokens: Option<u64>,
        output_tokens: Option<u64>,
    ) -> Option<f64> {
        self.tokens_cost(model, input_tokens, Some(0), output_tokens)
    }

    /// What the execution `record` of `model` (the model name as sent)
    /// cost, in the table's currency (`docs/eval.md`, "Cost"): per million
    /// tokens, `(input_tokens − cached_input_tokens) × input +
    /// cached_input_tokens × cached_input + output_tokens × output`, the
    /// cached input tokens at `input` when the model has no `cached_input`
    /// price. A record whose cached count is unknown (`None`, as a history
    /// row before version 7 reads) has none cached.
    ///
    /// `None` when the cost is unknown: the table has no price for the
    /// model, or the record has no input or output token count (a failed
    /// call). It does not know whether the record was reused from the
    /// history (`--cache`; such a record was not paid for again): that is
    /// the caller's to decide.
    #[must_use]
    pub fn cost_of(&self, model: &str, record: &ExecutionRecord) -> Option<f64> {
        self.tokens_cost(
            model,
            record.input_tokens,
            Some(record.cached_input_tokens.unwrap_or(0)),
            record.output_tokens,
        )
    }

    /// What `input` tokens, `cached` of them read from the provider's
    /// prompt cache, and `output` tokens of `model` cost; `None` when the
    /// model has no price or a count is `None`. A cached count above the
    /// input count is taken as the input count (every input token cached).
    pub(crate) fn tokens_cost(
        &self,
        model: &str,
        input: Option<u64>,
        cached: Option<u64>,
        output: Option<u64>,
    ) -> Option<f64> {
        let price = self.price(model)?;
        let (input, output) = (input?, output?);
        let cached = cached?.min(input);
        let cached_price = price.cached_input.unwrap_or(price.input);
        Some(
            ((input - cached) as f64 * price.input
                + cached as f64 * cached_price
                + output as f64 * price.output)
                / 1_000_000.0,
        )
    }
}

/// Costs added up over a set of executions ([`Summary::cost`](crate::stats::Summary::cost)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CostTotals {
    /// The sum of the known costs; `None` when no execution's cost is
    /// known (unknown is never 0).
    pub amount: Option<f64>,
    /// Executions whose cost is known.
    pub priced: u64,
    /// Executions whose cost is not known (no price for the model, no
    /// token counts): when any, `amount` is a lower bound.
    pub unpriced: u64,
}

impl CostTotals {
    /// Counts one execution's cost.
    pub fn add(&mut self, cost: Option<f64>) {
        match cost {
            Some(c) if c.is_finite() => {
                self.amount = Some(self.amount.unwrap_or(0.0) + c);
                self.priced += 1;
            }
            _ => self.unpriced += 1,
        }
    }

    /// Pools `other` into these totals.
    pub fn merge(&mut self, other: &CostTotals) {
        if let Some(a) = other.amount {
            self.amount = Some(self.amount.unwrap_or(0.0) + a);
        }
        self.priced += other.priced;
        self.unpriced += other.unpriced;
    }

    /// The totals in words: `0.0123 USD`; `unknown` when no cost is known;
    /// `≥ 0.0123 USD (2 of 6 unknown)` when some are not.
    #[must_use]
    pub fn describe(&self, currency: &str) -> String {
        match (self.amount, self.unpriced) {
            (None, _) => "unknown".to_owned(),
            (Some(a), 0) => format!("{} {currency}", amount(a)),
            (Some(a), n) => format!(
                "≥ {} {currency} ({n} of {} unknown)",
                amount(a),
                self.priced + n
            ),
        }
    }
}

/// An amount in words: four significant digits for small amounts
/// (`0.001235`), two decimals for large ones (`123.45`), trailing zeros
/// dropped (`0.005`, `12.5`).
#[must_use]
pub fn amount(a: f64) -> String {
    if a == 0.0 {
        return "0".to_owned();
    }
    let text = if a.abs() >= 100.0 {
        format!("{a:.2}")
    } else {
        // Four significant digits.
        let digits = (3 - a.abs().log10().floor() as i32).clamp(2, 12) as usize;
        format!("{a:.digits$}")
    };
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// The prices of `model` in `value`, or why not (into `errors`).
fn price(model: &str, value: &Node, pointer: &str, errors: &mut Vec<Diagnostic>) -> Option<Price> {
    let Some(entries) = value.as_map() else {
        errors.push(
            Diagnostic::error(
                Code::InvalidType,
                format!("the prices of `{model}` are {}, not a mapping", kind(value)),
            )
            .at(pointer)
            .help("`{ input: N, output: N, cached_input: N }`, per million tokens"),
        );
        return None;
    };
    let (mut input, mut output, mut cached_input) = (None, None, None);
    let before = errors.len();
    for (key, value) in entries {
        let at = format!("{pointer}/{}", escape(&key.text));
        let slot = match key.text.as_str() {
            "input" => &mut input,
            "output" => &mut output,
            "cached_input" => &mut cached_input,
            other => {
                errors.push(
                    Diagnostic::error(
                        Code::UnknownField,
                        format!("unknown field `{other}` in the prices of `{model}`"),
                    )
                    .at(at)
                    .help(
                        "the fields are `input`, `output` and `cached_input`, per million tokens",
                    ),
                );
                continue;
            }
        };
        match &value.value {
            NodeValue::Number(n) => match (*n).as_f64() {
                p if p.is_finite() && p >= 0.0 => *slot = Some(p),
                _ => errors.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!("the `{}` price of `{model}` is negative", key.text),
                    )
                    .at(at)
                    .help("a price per million tokens, 0 or more"),
                ),
            },
            _ => errors.push(
                Diagnostic::error(
                    Code::InvalidType,
                    format!(
                        "the `{}` price of `{model}` is {}, not a number",
                        key.text,
                        kind(value)
                    ),
                )
                .at(at)
                .help("a price per million tokens: `0.15`, not `\"$0.15\"`"),
            ),
        }
    }
    for (name, slot) in [("input", &input), ("output", &output)] {
        if slot.is_none() && errors.len() == before {
            errors.push(
                Diagnostic::error(
                    Code::MissingField,
                    format!("the prices of `{model}` have no `{name}`"),
                )
                .at(pointer)
                .help("`{ input: N, output: N }`, per million tokens; a model without prices is left out of the table (its cost is unknown)"),
            );
        }
    }
    Some(Price {
        input: input?,
        output: output?,
        cached_input,
    })
}

/// `value`'s kind in words: `a string`, `a sequence`, `null`.
/// A YAML reader's diagnostic, whose help speaks of a contract (the reader
/// is the compiler's), reworded for a price table: more than one document,
/// nesting too deep.
fn of_a_price_table(mut d: Diagnostic) -> Diagnostic {
    if d.help.as_deref().is_some_and(|h| h.contains("contract")) {
        d.help = Some(if d.message.contains("more than one YAML document") {
            "a price table is exactly one YAML document: remove this `---` and what follows \
             (docs/eval.md, \"Cost\")"
                .to_owned()
        } else {
            "a price table is `currency:` and `models:`, a mapping of model names to \
             `{ input: N, output: N }`: flatten the structure (docs/eval.md, \"Cost\")"
                .to_owned()
        });
    }
    d
}

fn kind(value: &Node) -> &'static str {
    match &value.value {
        NodeValue::Null => "null",
        NodeValue::Bool(_) => "a boolean",
        NodeValue::Number(_) => "a number",
        NodeValue::String(_) => "a string",
        NodeValue::Seq(_) => "a sequence",
        NodeValue::Map(_) => "a mapping",
    }
}

/// A key as a JSON pointer token.
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// `errors` with the file and, from their pointers, their lines.
fn located(mut errors: Vec<Diagnostic>, file: &str, root: &Node) -> Diagnostics {
    for e in &mut errors {
        e.file = Some(file.to_owned());
    }
    yaml::locate(&mut errors, file, root);
    Diagnostics::from(errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_executions_per_million_tokens() {
        let prices = Prices::parse(
            "currency: EUR\nmodels:\n  small: { input: 0.5, output: 2, cached_input: 0.25 }\n",
            "prices.yaml",
        )
        .unwrap();
        assert_eq!(prices.currency, "EUR");
        let cost = prices.cost("small", Some(1_000), Some(500)).unwrap();
        assert!((cost - 0.0015).abs() < 1e-12, "{cost}");
        assert_eq!(prices.cost("other", Some(1), Some(1)), None);
        assert_eq!(prices.cost("small", None, Some(1)), None);
    }

    /// An execution record with these token counts.
    fn record(input: Option<u64>, cached: Option<u64>, output: Option<u64>) -> ExecutionRecord {
        ExecutionRecord {
            contract: "lease".into(),
            fixture: "fixed-term".into(),
            repeat: 0,
            code: None,
            schema_valid: true,
            checks: Vec::new(),
            latency_ms: 1.0,
            queue_ms: 0.0,
            input_tokens: input,
            output_tokens: output,
            cached_input_tokens: cached,
            attempts: 1,
            output_fingerprint: None,
            cached: false,
            variant: None,
            cost: None,
            recovered: false,
            evidence: crate::record::Evidence::default(),
        }
    }

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-12)
    }

    #[test]
    fn cached_input_tokens_are_priced_at_cached_input() {
        let prices = Prices::parse(
            "models:\n  small: { input: 0.5, output: 2, cached_input: 0.25 }\n",
            "prices.yaml",
        )
        .unwrap();
        // 400 uncached × 0.5 + 600 cached × 0.25 + 500 out × 2, per million.
        let cost = prices.cost_of("small", &record(Some(1_000), Some(600), Some(500)));
        assert!(close(cost, 0.00135), "{cost:?}");
        // None cached, or the count unknown: every input token at `input`,
        // as `cost` prices them.
        let none = prices.cost_of("small", &record(Some(1_000), Some(0), Some(500)));
        assert!(close(none, 0.0015), "{none:?}");
        let unknown = prices.cost_of("small", &record(Some(1_000), None, Some(500)));
        assert!(close(unknown, 0.0015), "{unknown:?}");
        assert_eq!(unknown, prices.cost("small", Some(1_000), Some(500)));
        // Every input token cached (a count above the input is capped).
        let all = prices.cost_of("small", &record(Some(100), Some(500), Some(0)));
        assert!(close(all, 0.000025), "{all:?}");
        // Unknown without token counts or a price: never 0.
        assert_eq!(prices.cost_of("small", &record(None, None, None)), None);
        assert_eq!(
            prices.cost_of("small", &record(Some(1), Some(0), None)),
            None
        );
        let priced = record(Some(1_000), Some(600), Some(500));
        assert_eq!(prices.cost_of("other", &priced), None);
    }

    #[test]
    fn cached_input_tokens_are_priced_at_input_without_a_cached_input_price() {
        let prices = Prices::parse(
            "models:\n  plain: { input: 0.5, output: 2 }\n",
            "prices.yaml",
        )
        .unwrap();
        let cost = prices.cost_of("plain", &record(Some(1_000), Some(600), Some(500)));
        assert!(close(cost, 0.0015), "{cost:?}");
        assert_eq!(cost, prices.cost("plain", Some(1_000), Some(500)));
    }

    #[test]
    fn totals_say_unknown_never_zero() {
        let mut t = CostTotals::default();
        assert_eq!(t.describe("USD"), "unknown");
        t.add(None);
        assert_eq!(t.describe("USD"), "unknown");
        t.add(Some(0.0015));
        assert_eq!(t.describe("USD"), "≥ 0.0015 USD (1 of 2 unknown)");
        let mut known = CostTotals::default();
        known.add(Some(12.345));
        assert_eq!(known.describe("EUR"), "12.35 EUR");
        assert_eq!(amount(0.0), "0");
        assert_eq!(amount(0.000001), "0.000001");
        assert_eq!(amount(120.5), "120.5");
        assert_eq!(amount(0.020625), "0.02063");
    }

    #[test]
    fn a_bad_table_names_every_problem_with_its_line() {
        let text = "models:\n  small: { input: 0.5, ouput: 2 }\n  big: { input: -1, output: \"$3\" }\nextra: 1\n";
        let errors = Prices::parse(text, "prices.yaml").unwrap_err().into_vec();
        let seen: Vec<(&str, Option<&str>, Option<u32>)> = errors
            .iter()
            .map(|d| {
                (
                    d.code.as_str(),
                    d.json_pointer.as_deref(),
                    d.span.map(|s| s.start.line),
                )
            })
            .collect();
        assert!(
            seen.contains(&("TQX_UNKNOWN_FIELD", Some("/extra"), Some(4))),
            "{seen:?}"
        );
        assert!(
            seen.contains(&("TQX_UNKNOWN_FIELD", Some("/models/small/ouput"), Some(2))),
            "{seen:?}"
        );
        assert!(
            seen.contains(&("TQX_INVALID_VALUE", Some("/models/big/input"), Some(3))),
            "{seen:?}"
        );
        assert!(
            seen.contains(&("TQX_INVALID_TYPE", Some("/models/big/output"), Some(3))),
            "{seen:?}"
        );
        assert!(
            errors
                .iter()
                .all(|d| d.file.as_deref() == Some("prices.yaml"))
        );
        let broken = Prices::parse("models: [", "p.yaml").unwrap_err().into_vec();
        assert_eq!(broken[0].code.as_str(), "TQX_PARSE_YAML");
        let none = Prices::parse("currency: USD\n", "p.yaml")
            .unwrap_err()
            .into_vec();
        assert_eq!(none[0].code.as_str(), "TQX_MISSING_FIELD");
    }

    #[test]
    fn a_currency_with_a_control_character_says_so() {
        let models = "models:\n  small: { input: 0.5, output: 2 }\n";
        let escape = Prices::parse(&format!("currency: \"US\\eD\"\n{models}"), "p.yaml")
            .unwrap_err()
            .into_vec();
        assert_eq!(escape.len(), 1, "{escape:?}");
        assert_eq!(escape[0].code.as_str(), "TQX_INVALID_VALUE");
        assert_eq!(
            escape[0].message,
            "`currency` holds a control character (U+001B)"
        );
        assert!(!escape[0].message.contains('\u{1b}'));
        assert_eq!(escape[0].json_pointer.as_deref(), Some("/currency"));
        let empty = Prices::parse(&format!("currency: \"  \"\n{models}"), "p.yaml")
            .unwrap_err()
            .into_vec();
        assert_eq!(empty[0].message, "`currency` is empty");
    }

    #[test]
    fn two_documents_are_told_apart_from_a_contract() {
        let text = "models:\n  small: { input: 0.5, output: 2 }\n---\nmodels: {}\n";
        let errors = Prices::parse(text, "p.yaml").unwrap_err().into_vec();
        assert_eq!(errors[0].code.as_str(), "TQX_PARSE_YAML");
        assert_eq!(errors[0].file.as_deref(), Some("p.yaml"));
        let help = errors[0].help.as_deref().unwrap();
        assert!(
            help.starts_with("a price table is exactly one YAML document"),
            "{help}"
        );
        assert!(!help.contains("contract"), "{help}");
        // Nesting too deep: the help speaks of a price table too.
        let deep = format!("models: {}{}\n", "[".repeat(300), "]".repeat(300));
        let errors = Prices::parse(&deep, "p.yaml").unwrap_err().into_vec();
        let help = errors[0].help.as_deref().unwrap_or_default();
        assert!(!help.contains("contract"), "{help}");
    }
}
