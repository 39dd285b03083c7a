//! `templiqx eval` on several models in one run and what a run costs
//! (`docs/eval.md`, "Comparing models", "Cost"): the variants the flags
//! name (`--model` repeated on the run's provider, `--variant
//! NAME=PROVIDER:MODEL@URL`), their adapters, the price table
//! (`--prices`), and the table that shows the variants side by side.

use crate::args::{EvalProviderKind, ProviderKind};
use crate::cmd::eval::Options;
use crate::provider::{Adapter, without_userinfo};
use crate::ui::Ui;
use anstyle::{AnsiColor, Style};
use std::io;
use templiqx::{AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter, StreamEvent};
use templiqx_build::CompiledContract;
use templiqx_contracts::{
    CapabilityProfile, Code, Diagnostic, Diagnostics, RenderedInteraction, RuntimeFailure,
};
use templiqx_eval::cost::CostTotals;
use templiqx_eval::stats::{Rate, Summary};
use templiqx_eval::{Endpoint, FakeAdapter, Outcome, Prices, Variant, VariantOutcome};

/// The adapter of one variant: a provider's, run as `templiqx run` and a
/// chain's members run it ([`Adapter`]), or the fake provider's.
pub enum VariantAdapter {
    /// `templiqx-openai` or `templiqx-anthropic`.
    Provider(Box<Adapter>),
    /// The fake provider, answering as one of its models.
    Fake(FakeAdapter),
}

/// Every call goes to the variant's own adapter.
impl AsyncRuntimeAdapter for VariantAdapter {
    fn descriptor(&self) -> &AdapterDescriptor {
        match self {
            VariantAdapter::Provider(a) => a.descriptor(),
            VariantAdapter::Fake(a) => a.descriptor(),
        }
    }

    /// The variant's own adapter's (`--recover-output`), so a variant
    /// recovers as the same adapter does alone (`docs/runtime.md`, "Output
    /// recovery").
    fn output_recovery(&self) -> templiqx::OutputRecovery {
        match self {
            VariantAdapter::Provider(a) => a.output_recovery(),
            VariantAdapter::Fake(a) => a.output_recovery(),
        }
    }

    async fn invoke(
        &self,
        request: &RenderedInteraction<'_>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        match self {
            VariantAdapter::Provider(a) => a.invoke(request).await,
            VariantAdapter::Fake(a) => a.invoke(request).await,
        }
    }

    fn redact(&self, text: &str) -> String {
        match self {
            VariantAdapter::Provider(a) => a.redact(text),
            VariantAdapter::Fake(a) => a.redact(text),
        }
    }

    async fn invoke_streaming(
        &self,
        request: &RenderedInteraction<'_>,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<AdapterOutput, RuntimeFailure> {
        match self {
            VariantAdapter::Provider(a) => a.invoke_streaming(request, sink).await,
            VariantAdapter::Fake(a) => a.invoke_streaming(request, sink).await,
        }
    }

    async fn before_retry(
        &self,
        request: &RenderedInteraction<'_>,
        failure: &RuntimeFailure,
        attempts_made: u32,
    ) -> bool {
        match self {
            VariantAdapter::Provider(a) => a.before_retry(request, failure, attempts_made).await,
            VariantAdapter::Fake(a) => a.before_retry(request, failure, attempts_made).await,
        }
    }
}

/// One `--variant NAME=PROVIDER:MODEL@URL`, parsed.
#[derive(Debug, PartialEq, Eq)]
struct Spec {
    name: String,
    provider: EvalProviderKind,
    model: String,
    base_url: Option<String>,
}

/// `NAME=PROVIDER:MODEL@URL` (`@URL` optional for `fake`): the provider
/// up to the first `:`, the model up to the first `@` after it (model
/// names may hold `:`, `gemma3:270m`), the base URL after it.
fn parse_spec(text: &str) -> Result<Spec, Diagnostic> {
    let usage = |message: String| {
        Diagnostic::error(Code::InvalidValue, message).help(
            "--variant NAME=PROVIDER:MODEL@URL, e.g. `small=openai:gemma3:270m@http://127.0.0.1:8080/v1` or `broken=fake:empty` (docs/eval.md, \"Comparing models\")",
        )
    };
    let Some((name, rest)) = text.split_once('=') else {
        return Err(usage(format!(
            "--variant `{}` has no NAME=",
            text.escape_debug()
        )));
    };
    let Some((provider, rest)) = rest.split_once(':') else {
        return Err(usage(format!("--variant `{name}` has no PROVIDER:MODEL")));
    };
    let provider = match provider {
        "openai" => EvalProviderKind::Openai,
        "anthropic" => EvalProviderKind::Anthropic,
        "fake" => EvalProviderKind::Fake,
        other => {
            return Err(usage(format!(
                "--variant `{name}`: unknown provider `{}` (openai, anthropic or fake)",
                other.escape_debug()
            )));
        }
    };
    let (model, base_url) = match rest.split_once('@') {
        Some((model, url)) => (model, Some(url.to_owned())),
        None => (rest, None),
    };
    if model.is_empty() {
        return Err(usage(format!("--variant `{name}` names no model")));
    }
    if !Variant::valid_name(name) {
        return Err(usage(format!(
            "`{}` is not a valid variant name: 1 to 64 letters, digits, `.`, `_`, `-`, `:`, `/`, `@` or `+`",
            name.escape_debug()
        )));
    }
    match (provider, &base_url) {
        (EvalProviderKind::Fake, Some(_)) => {
            return Err(usage(format!(
                "--variant `{name}`: the fake provider takes no @URL"
            )));
        }
        (EvalProviderKind::Openai | EvalProviderKind::Anthropic, None) => {
            return Err(usage(format!(
                "--variant `{name}`: openai and anthropic need @URL, the API base URL"
            )));
        }
        (_, Some(url)) if url.is_empty() => {
            return Err(usage(format!("--variant `{name}` has an empty @URL")));
        }
        _ => {}
    }
    Ok(Spec {
        name: name.to_owned(),
        provider,
        model: model.to_owned(),
        base_url,
    })
}

/// Whether the flags ask for the variants' path: several variants, or a
/// model of the fake provider.
pub fn wanted(options: &Options<'_>) -> bool {
    let args = options.provider;
    !options.variants.is_empty()
        || args.model.len() > 1
        || (args.provider == Some(EvalProviderKind::Fake) && !args.model.is_empty())
}

/// The variants the flags name, in order: one per `--model` on the run's
/// `--provider` and `--base-url` (named after the model; the fake
/// provider's default model `fake` when it names none), then each
/// `--variant`; each with its adapter. The wire flags apply to every
/// variant.
///
/// # Errors
///
/// `TQX_INVALID_VALUE` for a `--variant` that does not parse, a fake
/// model that does not exist; `TQX_RUNTIME_PERMANENT` for an adapter that
/// refuses its configuration (the same as for one model).
pub fn configure<'c>(
    options: &Options<'_>,
    contracts: impl Fn() -> Vec<&'c CompiledContract>,
    target: &CapabilityProfile,
) -> Result<Vec<(Variant, VariantAdapter)>, Diagnostics> {
    let args = options.provider;
    let mut specs = Vec::new();
    if let Some(provider) = args.provider {
        let models: Vec<String> = if args.model.is_empty() {
            vec!["fake".to_owned()]
        } else {
            args.model.clone()
        };
        for model in models {
            specs.push(Spec {
                name: model.clone(),
                provider,
                model,
                base_url: args.base_url.clone(),
            });
        }
    }
    let mut errors = Vec::new();
    for text in options.variants {
        match parse_spec(text) {
            Ok(spec) => specs.push(spec),
            Err(d) => errors.push(d),
        }
    }
    let mut variants = Vec::new();
    for spec in specs {
        match adapter(&spec, options, &contracts, target) {
            Ok(pair) => variants.push(pair),
            Err(d) => errors.push(d),
        }
    }
    if errors.is_empty() {
        Ok(variants)
    } else {
        Err(Diagnostics::from(errors))
    }
}

/// The adapter and model of the judges of model-graded checks
/// (`--judge-provider`, `--judge-model`, `--judge-base-url`;
/// `docs/eval.md`, "Judges"): `None` when no flag names one, so each
/// variant judges with its own adapter. A flag left out is the run's: its
/// `--provider`, its first `--model` (`fake` for the fake provider), its
/// `--base-url`; the wire flags apply.
///
/// # Errors
///
/// As for a variant: `TQX_INVALID_VALUE` for a judge without a provider
/// (a `--chain` run) or model, or a fake model that does not exist;
/// `TQX_RUNTIME_PERMANENT` for an adapter that refuses its configuration.
pub fn judge<'c>(
    options: &Options<'_>,
    contracts: impl Fn() -> Vec<&'c CompiledContract>,
    target: &CapabilityProfile,
) -> Result<Option<(VariantAdapter, String)>, Diagnostic> {
    let args = options.provider;
    if args.judge_provider.is_none() && args.judge_model.is_none() && args.judge_base_url.is_none()
    {
        return Ok(None);
    }
    let help = "--judge-provider, --judge-model and --judge-base-url default to the run's --provider, --model and --base-url (docs/eval.md, \"Judges\")";
    let Some(provider) = args.judge_provider.or(args.provider) else {
        return Err(Diagnostic::error(
            Code::InvalidValue,
            "the judges have no provider: give --judge-provider (a --chain run has none of its own)",
        )
        .help(help));
    };
    let model = match (&args.judge_model, provider) {
        (Some(m), _) => m.clone(),
        (None, EvalProviderKind::Fake) if args.provider != Some(EvalProviderKind::Fake) => {
            "fake".to_owned()
        }
        (None, _) => match args.model.first() {
            Some(m) => m.clone(),
            None if provider == EvalProviderKind::Fake => "fake".to_owned(),
            None => {
                return Err(Diagnostic::error(
                    Code::InvalidValue,
                    "the judges have no model: give --judge-model",
                )
                .help(help));
            }
        },
    };
    let base_url = match provider {
        EvalProviderKind::Fake => None,
        _ => args
            .judge_base_url
            .clone()
            .or_else(|| args.base_url.clone()),
    };
    if provider != EvalProviderKind::Fake && base_url.is_none() {
        return Err(Diagnostic::error(
            Code::InvalidValue,
            "the judges have no base URL: give --judge-base-url",
        )
        .help(help));
    }
    let spec = Spec {
        name: "judge".to_owned(),
        provider,
        model,
        base_url,
    };
    let (variant, adapter) = adapter(&spec, options, &contracts, target)?;
    Ok(Some((adapter, variant.model)))
}

/// The variant and adapter of `spec`.
fn adapter<'c>(
    spec: &Spec,
    options: &Options<'_>,
    contracts: &impl Fn() -> Vec<&'c CompiledContract>,
    target: &CapabilityProfile,
) -> Result<(Variant, VariantAdapter), Diagnostic> {
    let kind = match spec.provider {
        EvalProviderKind::Fake => {
            let fake = FakeAdapter::new(contracts(), target.iter())
                .with_output_recovery(crate::provider::recovery(&options.provider.wire))
                .model(&spec.model)
                .map_err(|message| {
                    Diagnostic::error(Code::InvalidValue, message).help(
                        "docs/eval.md, \"Comparing models\", says how each fake model answers",
                    )
                })?;
            let endpoint = Endpoint::new("fake", spec.model.clone());
            return Ok((
                Variant::new(spec.name.clone(), &endpoint),
                VariantAdapter::Fake(fake),
            ));
        }
        EvalProviderKind::Openai => ProviderKind::Openai,
        EvalProviderKind::Anthropic => ProviderKind::Anthropic,
    };
    let base_url = spec.base_url.as_deref().unwrap_or_default();
    let wire = &options.provider.wire;
    let adapter = Adapter::new(kind, base_url, &spec.model, wire).map_err(|message| {
        Diagnostic::error(
            Code::RuntimePermanent,
            format!(
                "the {} adapter of the variant `{}` refuses its configuration: {message}",
                kind.name(),
                spec.name
            ),
        )
        .help("fix the flag it names (see `templiqx eval --help` and docs/adapters.md); nothing was sent")
    })?;
    // Header values may be secrets: names only. Nor is a base URL's
    // `user:password@` kept.
    let headers: Vec<&str> = wire
        .headers
        .iter()
        .map(|h| h.split_once(':').map_or(h.as_str(), |(n, _)| n.trim()))
        .collect();
    let transport = serde_json::json!({
        "base_url": without_userinfo(base_url),
        "structured_output": format!("{:?}", wire.structured_output),
        "developer_as_system": wire.developer_as_system,
        "max_tokens_field_legacy": wire.max_tokens_field_legacy,
        "headers": headers,
    })
    .to_string();
    let endpoint = Endpoint::new(kind.name(), spec.model.clone()).transport(transport);
    Ok((
        Variant::new(spec.name.clone(), &endpoint),
        VariantAdapter::Provider(Box::new(adapter)),
    ))
}

/// The price table at `--prices FILE`.
///
/// # Errors
///
/// `TQX_IO` for a file that cannot be read; the table's own diagnostics
/// ([`Prices::parse`]) for one that is not a price table.
pub fn prices(path: &std::path::Path) -> Result<Prices, Diagnostics> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        Diagnostics::from(vec![
            Diagnostic::error(
                Code::Io,
                format!(
                    "cannot read the price table {file}: {}",
                    crate::compile::io_reason(&e)
                ),
            )
            .help("--prices names a YAML price table (docs/eval.md, \"Cost\")"),
        ])
    })?;
    Prices::parse(&text, &file)
}

/// A rate as `95.0% [76.4, 99.1]`; a value strictly between 0 and 1 gets
/// the decimals it needs not to read as 0 or 100 (`99.9% [99.4, 99.98]`:
/// `templiqx_eval::stats::percent_digits`).
fn rate(r: &Rate) -> String {
    use templiqx_eval::stats::percent_digits;
    format!(
        "{}% [{}, {}]",
        percent_digits(r.rate),
        percent_digits(r.low),
        percent_digits(r.high)
    )
}

/// The cost of `s` in words (`unknown` when not known), or `-` without a
/// price table.
fn cost(s: &Summary, currency: Option<&str>) -> String {
    match currency {
        Some(c) => s.cost.unwrap_or_default().describe(c),
        None => "-".to_owned(),
    }
}

/// What `s` cost in words (`unknown` when not known), with what an
/// execution cost on average when every cost is known.
pub fn cost_text(s: &Summary, currency: &str) -> String {
    let totals = s.cost.unwrap_or_default();
    let each = match (totals.amount, totals.unpriced, totals.priced) {
        (Some(a), 0, n) if n > 0 => format!(
            " ({} {currency} an execution)",
            templiqx_eval::cost::amount(a / n as f64)
        ),
        _ => String::new(),
    };
    format!("{}{each}", totals.describe(currency))
}

/// The variants side by side (`docs/eval.md`, "Comparing models"): the
/// variants, then per contract a row per fixture and variant with its
/// pass rate and interval, how it compares with the first variant
/// (Fisher's exact test), and its cost; then each variant's overall line
/// and the run's cost.
pub fn table(ui: &mut Ui, outcome: &Outcome) -> io::Result<()> {
    table_of(
        ui,
        &outcome.variants,
        outcome.run.currency.as_deref(),
        outcome.cost.as_ref(),
    )
}

/// [`table`] of `variants`, priced in `currency`, the run's cost `total`.
pub fn table_of(
    ui: &mut Ui,
    variants: &[VariantOutcome],
    currency: Option<&str>,
    total: Option<&CostTotals>,
) -> io::Result<()> {
    let bold = Style::new().bold();
    let red = Style::new().fg_color(Some(AnsiColor::Red.into()));
    let green = Style::new().fg_color(Some(AnsiColor::Green.into()));
    let Some(first) = variants.first() else {
        return Ok(());
    };
    ui.line("")?;
    ui.line(&ui.paint(
        bold,
        &format!(
            "{} variants: each fixture ran on every one; each after the first is compared with `{}` (Fisher's exact test, two-sided, α = 0.05)",
            variants.len(),
            first.variant.name
        ),
    ))?;
    let width = variants
        .iter()
        .map(|v| v.variant.name.len())
        .max()
        .unwrap_or(0);
    for v in variants {
        ui.line(&format!(
            "  {}: {} `{}`",
            v.variant.name, v.variant.provider, v.variant.model
        ))?;
    }
    let mut header = vec![
        "fixture",
        "variant",
        "n",
        "passed",
        "pass rate [95% CI]",
        "against the first",
    ];
    if currency.is_some() {
        header.push("cost");
    }
    // Columns shown only when they say something: the rows of dataset
    // entries that passed every execution, and output recovery.
    let with_rows = variants
        .iter()
        .any(|v| v.stats.fixtures.iter().any(|f| f.rows.is_some()));
    let with_recovery = variants
        .iter()
        .any(|v| v.stats.overall.summary.recovered_rate.passed > 0);
    if with_rows {
        header.push("rows passed");
    }
    if with_recovery {
        header.push("recovered");
    }
    for c in &first.stats.contracts {
        // Rows: cells, and the colour of the comparison cell.
        let mut rows: Vec<(Vec<String>, Option<Style>)> =
            vec![(header.iter().map(|h| (*h).to_owned()).collect(), None)];
        let fixtures: Vec<&str> = first
            .stats
            .fixtures_of(&c.contract)
            .map(|f| f.fixture.as_str())
            .collect();
        let subjects = fixtures
            .iter()
            .map(|f| Some(*f))
            .chain((fixtures.len() > 1).then_some(None));
        for fixture in subjects {
            for (i, v) in variants.iter().enumerate() {
                let (summary, entry_rows) = match fixture {
                    Some(f) => v
                        .stats
                        .fixture(&c.contract, f)
                        .map_or((None, None), |s| (Some(&s.summary), s.rows.as_ref())),
                    None => (v.stats.contract(&c.contract).map(|s| &s.summary), None),
                };
                let Some(s) = summary else { continue };
                let compared = v.comparison.as_ref().and_then(|cmp| match fixture {
                    Some(f) => cmp.fixture(&c.contract, f).map(|f| f.pass_rate),
                    None => cmp.contract(&c.contract).map(|c| c.pass_rate),
                });
                let (against, style) = match compared {
                    None => ("(reference)".to_owned(), None),
                    Some(r) => {
                        let p = templiqx_eval::compare::p_value_text(r.p_value);
                        let (word, style) = if r.regression {
                            ("significantly lower", Some(red))
                        } else if r.improvement {
                            ("significantly higher", Some(green))
                        } else {
                            ("not significant", None)
                        };
                        (
                            format!("{:+.1} points, {p}, {word}", r.difference * 100.0),
                            style,
                        )
                    }
                };
                let name = match (i, fixture) {
                    (0, Some(f)) => f.to_owned(),
                    (0, None) => "(all fixtures)".to_owned(),
                    _ => String::new(),
                };
                let mut cells = vec![
                    name,
                    v.variant.name.clone(),
                    s.executions.to_string(),
                    s.pass_rate.passed.to_string(),
                    rate(&s.pass_rate),
                    against,
                ];
                if currency.is_some() {
                    cells.push(cost(s, currency));
                }
                if with_rows {
                    cells.push(entry_rows.map_or_else(String::new, |r| {
                        format!("{} of {}", r.passed_all.passed, r.rows)
                    }));
                }
                if with_recovery {
                    cells.push(format!(
                        "{} of {}",
                        s.recovered_rate.passed, s.recovered_rate.total
                    ));
                }
                rows.push((cells, style));
            }
        }
        let widths: Vec<usize> = (0..header.len())
            .map(|i| {
                rows.iter()
                    .map(|(r, _)| r[i].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        ui.line("")?;
        let fp = c
            .interaction_fingerprint
            .as_deref()
            .map_or_else(String::new, |f| {
                format!(" (interaction {})", f.get(..12).unwrap_or(f))
            });
        let title = ui.paint(bold, &format!("contract {}", c.contract));
        ui.line(&format!("{title}{fp}"))?;
        for (i, (cells, style)) in rows.iter().enumerate() {
            let text: Vec<String> = cells
                .iter()
                .zip(&widths)
                .enumerate()
                .map(|(k, (cell, w))| {
                    let pad = " ".repeat(w - cell.chars().count());
                    // Names and words left, figures right.
                    let padded = if matches!(k, 0 | 1 | 5 | 6) {
                        format!("{cell}{pad}")
                    } else {
                        format!("{pad}{cell}")
                    };
                    match (k, style) {
                        (5, Some(style)) if i > 0 => ui.paint(*style, &padded),
                        _ => padded,
                    }
                })
                .collect();
            let text = format!("  {}", text.join("  "));
            if i == 0 {
                ui.line(&ui.paint(bold, text.trim_end()))?;
            } else {
                ui.line(text.trim_end())?;
            }
        }
    }
    ui.line("")?;
    for v in variants {
        let o = &v.stats.overall;
        let priced = currency.map_or_else(String::new, |c| {
            format!("; cost {}", cost(&o.summary, Some(c)))
        });
        ui.line(&format!(
            "overall {:<width$}  {} executions; pass rate {} ({} of {}), schema-valid {}, pass^n {}{priced}",
            v.variant.name,
            o.summary.executions,
            rate(&o.summary.pass_rate),
            o.summary.pass_rate.passed,
            o.summary.pass_rate.total,
            rate(&o.summary.schema_valid_rate),
            if o.summary.pass_all { "yes" } else { "no" },
        ))?;
    }
    if let (Some(currency), Some(total)) = (currency, total) {
        ui.line(&format!("cost of the run: {}", total.describe(currency)))?;
    }
    ui.line("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_specs_parse() {
        assert_eq!(
            parse_spec("small=openai:gemma3:270m@http://127.0.0.1:8080/v1").unwrap(),
            Spec {
                name: "small".into(),
                provider: EvalProviderKind::Openai,
                model: "gemma3:270m".into(),
                base_url: Some("http://127.0.0.1:8080/v1".into()),
            }
        );
        assert_eq!(
            parse_spec("bad=fake:empty").unwrap().provider,
            EvalProviderKind::Fake
        );
        for (wrong, says) in [
            ("openai:gpt", "has no NAME="),
            ("x=gpt", "no PROVIDER:MODEL"),
            ("x=mistral:m@http://h", "unknown provider"),
            ("x=openai:m", "need @URL"),
            ("x=fake:fake@http://h", "takes no @URL"),
            ("x=openai:@http://h", "names no model"),
            ("a b=fake:fake", "not a valid variant name"),
        ] {
            let d = parse_spec(wrong).unwrap_err();
            assert_eq!(d.code.as_str(), "TQX_INVALID_VALUE");
            assert!(d.message.contains(says), "{wrong}: {}", d.message);
        }
    }
}
