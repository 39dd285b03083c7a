//! The HTML report of a run (`docs/eval.md`, "Output and reports"): one self-contained
//! HTML5 file, with inline CSS and inline SVG charts, no script and no
//! external asset, to open from disk or attach to a CI run.
//!
//! Every figure is also in `data-*` attributes of its row or bar, in full
//! precision (Rust's shortest round-trip form), for tools and tests:
//!
//! - `tr.fixture`, `rect.bar`: `data-fixture` (`contract::fixture`),
//!   `data-contract`, `data-fixture-id`, `data-executions`,
//!   `data-passed`, `data-pass-rate`, `data-low`, `data-high` (the 95%
//!   Wilson interval), and on rows `data-schema-valid-rate`,
//!   `data-schema-valid-low`, `data-schema-valid-high`, `data-pass-all`,
//!   `data-distinct-outputs`, `data-p50-ms`, `data-p95-ms`,
//!   `data-output-tokens-per-s`, `data-cached`, `data-recovered` (the
//!   executions whose output output recovery read out of the model's
//!   text; listed as `TQX_OUTPUT_RECOVERED` beside the failure codes when
//!   above 0) (an absent figure is an empty attribute); bars carry
//!   `data-series` (`current` or `baseline`).
//! - `tr.check`: `data-fixture`, `data-check`, `data-passed`,
//!   `data-total`, `data-rate`, `data-low`, `data-high`.
//! - `rect.latency`: `data-contract`, `data-low-ms`, `data-high-ms`,
//!   `data-count`.
//! - `tr.rate-comparison`: `data-fixture`, `data-what` (`pass_rate`,
//!   `schema_valid_rate` or `check`), `data-check`, `data-baseline-rate`,
//!   `data-current-rate`, `data-difference`, `data-p-value`,
//!   `data-significant`, `data-regression`, `data-improvement`.
//! - `section.contract`: `data-contract`, `data-executions`,
//!   `data-pass-rate`, `data-low`, `data-high`, `data-pass-all`,
//!   `data-interaction-fingerprint`; `section.overall` the same for the
//!   run; `dl.run`: `data-run-id`, `data-provider`, `data-model`,
//!   `data-repeat`, `data-started-at`.

mod charts;
mod markup;

use std::fmt::Write as _;

use crate::compare::{Comparison, RateComparison};
use crate::cost::CostTotals;
use crate::explain::{self, excerpt};
use crate::record::{ExecutionRecord, RunInfo};
use crate::run::VariantOutcome;
use crate::stats::{FixtureStats, RunStats, Summary};
use charts::{latency_chart, pass_rate_chart};
use markup::{esc, fixture_key, ms_text, num, opt_num, p_text, percent, rate_text};

const STYLE: &str = "
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:72rem;padding:1rem 1.5rem;color:#1b1f24;background:#fff}
h1{margin:.2rem 0}h2{margin-top:2rem;border-bottom:1px solid #d0d7de;padding-bottom:.2rem}
code{font-family:ui-monospace,'SFMono-Regular',Menlo,monospace;font-size:.9em;overflow-wrap:anywhere}
dl.run{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;margin:.5rem 0}
dl.run dt{font-weight:600}dl.run dd{margin:0}
table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}
th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:right;vertical-align:top}
th{background:#f6f8fa}th:first-child{text-align:left}td.id{text-align:left;overflow-wrap:anywhere;max-width:22rem}
.ci,.n{color:#57606a;font-size:.85em}
.pass{color:#1a7f37;font-weight:600}.fail{color:#cf222e;font-weight:600}
.regression{color:#cf222e;font-weight:600}.improvement{color:#1a7f37;font-weight:600}
.changed{color:#9a6700;font-weight:600}
svg{display:block;margin:.5rem 0;max-width:100%;height:auto;font-size:11px}
svg text{paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}svg .label,svg .value{fill:#1b1f24}svg .axis{fill:#57606a}
svg .grid{stroke:#d0d7de;stroke-width:1}
svg line.interval{stroke:#1b1f24;stroke-width:1.5}svg rect.variant-bar-track{fill:#f6f8fa}
svg rect.bar.current{fill:#0969da}svg rect.bar.baseline{fill:#afb8c1}
svg rect.bar.regression{fill:#cf222e}svg rect.bar.improvement{fill:#1a7f37}
svg .whisker{stroke:#1b1f24;stroke-width:1.5}
svg rect.latency{fill:#8250df}svg .marker{stroke:#cf222e;stroke-width:1.5;stroke-dasharray:4 2}
article.execution{border:1px solid #d0d7de;border-left:4px solid #cf222e;border-radius:4px;padding:.25rem .75rem;margin:.5rem 0}
article.execution.passed{border-left-color:#1a7f37}article.execution h4{margin:.3rem 0}
pre.output{background:#f6f8fa;padding:.5rem;overflow:auto;max-height:24rem;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85rem}
ul.observed,ul.violations{margin:.2rem 0;padding-left:1.2rem}p.message,p.help{margin:.3rem 0}p.help{color:#57606a}
details.passing{margin:.5rem 0}details.passing summary{cursor:pointer;color:#1a7f37}
ul.codes{list-style:none;margin:0;padding:0;text-align:left}ul.codes code{white-space:nowrap;overflow-wrap:normal}
footer{margin-top:3rem;color:#57606a;font-size:.85rem}
";

/// The HTML report of a run: its [`RunInfo`], its [`RunStats`] and, when
/// given, its [`Comparison`] with a baseline. One self-contained HTML5
/// document (inline CSS and SVG; no script, no external asset); every
/// user-supplied text (contract, fixture and check ids, codes, model
/// names) is escaped.
///
/// Per contract: a table of its fixtures (executions, pass rate with its
/// 95% Wilson interval, schema-valid rate, pass^N, distinct outputs,
/// latency p50/p95 in ms, output tokens/s, cached executions, failure
/// codes), a table of the check pass rates, a bar chart of the fixtures'
/// pass rates with the interval as whiskers (with a comparison, the
/// baseline's bar beside the current one, the p-value, and regressions
/// and improvements marked), the latency histogram, and with a comparison
/// a table of every rate before and after. The module documentation lists
/// the `data-*` attributes carrying the figures. An interrupted run
/// ([`RunInfo::interrupted_at`]) is marked incomplete: `(incomplete)` in
/// the title and a `dd.incomplete` with `data-interrupted-at` in the
/// header.
#[must_use]
pub fn html(stats: &RunStats, run: &RunInfo, comparison: Option<&Comparison>) -> String {
    html_with_samples(stats, run, comparison, &[])
}

/// [`html`], with the drill-down into `samples` ([`Outcome::samples`](crate::Outcome::samples),
/// or executions read back from the history): per fixture, its failing
/// executions — why each failed, the failed checks with their expressions
/// and the values they read, the schema violations, the provider's message
/// and help, the output pretty-printed — and its passing ones collapsed
/// in a `<details>` element (HTML's own disclosure: no script). Every text
/// a model or server wrote is escaped, its control characters shown as
/// `\u{…}`. Each execution is an `article.execution` with
/// `data-fixture`, `data-repeat`, `data-passed` and `data-code`; each
/// failed check a `tr.failed-check` with `data-check`; each value an
/// `li.observed` with `data-expression` and `data-value`, and what a
/// model-graded check's judge answered an `li.judge`; each violation
/// an `li.violation` with `data-pointer` and `data-keyword`.
#[must_use]
pub fn html_with_samples(
    stats: &RunStats,
    run: &RunInfo,
    comparison: Option<&Comparison>,
    samples: &[ExecutionRecord],
) -> String {
    html_with_variants(stats, run, comparison, samples, &[])
}

/// [`html_with_samples`], with a run's several variants
/// ([`Outcome::variants`](crate::Outcome::variants); `docs/eval.md`,
/// "Comparing models") shown together: a `section.variants` with, per
/// fixture, every variant's pass rate and interval side by side
/// (`tr.variant-rate`: `data-fixture`, `data-variant`, `data-passed`,
/// `data-executions`, `data-pass-rate`, `data-low`, `data-high`, and for
/// a variant after the first `data-difference`, `data-p-value`,
/// `data-significant` against the first; `data-cost` when priced), and
/// an SVG chart of them (`rect.variant-bar`); each execution of the
/// drill-down names its variant (`data-variant`). With a price table
/// ([`RunInfo::currency`]) the overall section and the fixture tables
/// show what the executions cost (`p.cost`: `data-cost`, `data-priced`,
/// `data-unpriced`; "unknown" when no cost is known).
#[must_use]
pub fn html_with_variants(
    stats: &RunStats,
    run: &RunInfo,
    comparison: Option<&Comparison>,
    samples: &[ExecutionRecord],
    variants: &[VariantOutcome],
) -> String {
    let currency = run.currency.as_deref();
    let mut out = String::with_capacity(16 * 1024);
    let run_id = run.id.map(|id| id.to_string());
    let mut title = match &run_id {
        Some(id) => format!("templiqx eval — run {id}"),
        None => "templiqx eval".to_owned(),
    };
    if run.interrupted_at.is_some() {
        title.push_str(" (incomplete)");
    }
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        esc(&title)
    );
    header(&mut out, run, run_id.as_deref());
    out.push_str("<main>\n");
    overall(&mut out, stats, comparison);
    if let (Some(currency), Some(cost)) = (currency, cost_of(stats, variants)) {
        let _ = writeln!(
            out,
            "<p class=\"cost\" data-cost=\"{}\" data-priced=\"{}\" data-unpriced=\"{}\">Cost of \
             the run: {}.</p>",
            opt_num(cost.amount),
            cost.priced,
            cost.unpriced,
            esc(&cost.describe(currency)),
        );
    }
    if !variants.is_empty() {
        variants_section(&mut out, variants, currency);
    }
    for (index, contract) in stats.contracts.iter().enumerate() {
        let fixtures: Vec<&FixtureStats> = stats.fixtures_of(&contract.contract).collect();
        let _ = write!(
            out,
            "<section class=\"contract\" id=\"contract-{index}\" data-contract=\"{}\" \
             data-interaction-fingerprint=\"{}\" {}>\n<h2>Contract <code>{}</code></h2>\n",
            esc(&contract.contract),
            esc(contract.interaction_fingerprint.as_deref().unwrap_or("")),
            summary_attributes(&contract.summary),
            esc(&contract.contract),
        );
        interaction(
            &mut out,
            contract.interaction_fingerprint.as_deref(),
            comparison.and_then(|c| c.contract(&contract.contract)),
        );
        let _ = writeln!(
            out,
            "<p>{} fixture(s), {} execution(s); pass rate {}; pass^N {}.</p>",
            contract.fixtures,
            contract.summary.executions,
            rate_text(&contract.summary.pass_rate),
            pass_all_text(contract.summary.pass_all),
        );
        fixture_table(&mut out, &fixtures, currency);
        check_table(&mut out, &fixtures);
        out.push_str("<h3>Pass rate per fixture</h3>\n");
        pass_rate_chart(&mut out, &contract.contract, &fixtures, comparison);
        out.push_str("<h3>Latency</h3>\n");
        latency_chart(&mut out, &contract.contract, &contract.summary.latency);
        if let Some(comparison) = comparison {
            comparison_table(&mut out, &contract.contract, comparison);
        }
        drill_down(&mut out, &fixtures, samples);
        out.push_str("</section>\n");
    }
    out.push_str(
        "</main>\n<footer>Generated by <code>templiqx eval</code>. Rates are the share of \
         executions that passed, with their 95% Wilson score interval; comparisons use the \
         two-sided Fisher's exact test at α = 0.05 (see <code>docs/eval.md</code>).</footer>\n\
         </body>\n</html>\n",
    );
    out
}

/// What the run cost: every variant's executions, or the run's.
fn cost_of(stats: &RunStats, variants: &[VariantOutcome]) -> Option<CostTotals> {
    if variants.is_empty() {
        return stats.overall.summary.cost;
    }
    let mut total = CostTotals::default();
    for v in variants {
        total.merge(&v.stats.overall.summary.cost?);
    }
    Some(total)
}

/// The colours of the variants' bars, in turn.
const VARIANT_COLOURS: [&str; 6] = [
    "#0969da", "#bf3989", "#1a7f37", "#9a6700", "#8250df", "#57606a",
];

/// The variants side by side: per fixture, each variant's pass rate with
/// its interval and, after the first, the difference with the first and
/// its p-value (Fisher's exact test); then a chart of the same.
fn variants_section(out: &mut String, variants: &[VariantOutcome], currency: Option<&str>) {
    out.push_str(
        "<section class=\"variants\" id=\"variants\">\n<h2>Variants</h2>\n<p>Every fixture ran \
         on each variant; each variant after the first is compared with the first by the \
         two-sided Fisher's exact test at α = 0.05.</p>\n<ul class=\"variant-list\">\n",
    );
    for (i, v) in variants.iter().enumerate() {
        let s = &v.stats.overall.summary;
        let cost = match (currency, s.cost) {
            (Some(c), Some(t)) => format!("; cost {}", esc(&t.describe(c))),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "<li class=\"variant\" data-variant=\"{}\" data-provider=\"{}\" data-model=\"{}\" {}>\
             <span style=\"color:{}\">■</span> <code>{}</code>: {} <code>{}</code>; pass rate {}{cost}</li>",
            esc(&v.variant.name),
            esc(&v.variant.provider),
            esc(&v.variant.model),
            summary_attributes(s),
            VARIANT_COLOURS[i % VARIANT_COLOURS.len()],
            esc(&v.variant.name),
            esc(&v.variant.provider),
            esc(&v.variant.model),
            rate_text(&s.pass_rate),
        );
    }
    out.push_str(
        "</ul>\n<table class=\"variant-rates\">\n<thead><tr><th>Fixture</th><th>Variant</th>\
        <th>Executions</th><th>Pass rate [95% CI]</th><th>Against the first</th>",
    );
    if currency.is_some() {
        out.push_str("<th>Cost</th>");
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    let first = &variants[0];
    let mut chart: Vec<(String, Vec<(usize, crate::stats::Rate)>)> = Vec::new();
    for f in &first.stats.fixtures {
        let key = fixture_key(f);
        let mut bars = Vec::new();
        for (i, v) in variants.iter().enumerate() {
            let Some(vf) = v.stats.fixture(&f.contract, &f.fixture) else {
                continue;
            };
            let s = &vf.summary;
            bars.push((i, s.pass_rate));
            let compared = v
                .comparison
                .as_ref()
                .and_then(|c| c.fixture(&f.contract, &f.fixture));
            let (attrs, against) = match compared {
                None => (String::new(), "reference".to_owned()),
                Some(c) => {
                    let r = &c.pass_rate;
                    let mark = if r.regression {
                        "<span class=\"regression\">significantly lower</span>"
                    } else if r.improvement {
                        "<span class=\"improvement\">significantly higher</span>"
                    } else {
                        "<span class=\"n\">not significant</span>"
                    };
                    (
                        format!(
                            " data-difference=\"{}\" data-p-value=\"{}\" data-significant=\"{}\"",
                            num(r.difference),
                            num(r.p_value),
                            r.significant
                        ),
                        format!(
                            "{:+.1} points, p = {} {mark}",
                            r.difference * 100.0,
                            p_text(r.p_value)
                        ),
                    )
                }
            };
            let cost = s.cost.unwrap_or_default();
            let _ = write!(
                out,
                "<tr class=\"variant-rate\" data-fixture=\"{}\" data-variant=\"{}\" \
                 data-executions=\"{}\" data-passed=\"{}\" data-pass-rate=\"{}\" data-low=\"{}\" \
                 data-high=\"{}\"{attrs}{}><td class=\"id\"><code>{}</code></td><td class=\"id\">\
                 <code>{}</code></td><td>{}</td><td>{}</td><td>{against}</td>",
                esc(&key),
                esc(&v.variant.name),
                s.executions,
                s.pass_rate.passed,
                num(s.pass_rate.rate),
                num(s.pass_rate.low),
                num(s.pass_rate.high),
                currency.map_or_else(String::new, |_| format!(
                    " data-cost=\"{}\"",
                    opt_num(cost.amount)
                )),
                esc(&key),
                esc(&v.variant.name),
                s.executions,
                rate_text(&s.pass_rate),
            );
            if let Some(currency) = currency {
                let _ = write!(out, "<td>{}</td>", esc(&cost.describe(currency)));
            }
            out.push_str("</tr>\n");
        }
        chart.push((key, bars));
    }
    out.push_str("</tbody>\n</table>\n");
    // The chart: per fixture, a bar per variant with its interval.
    let (label_w, bar_w, row_h, gap) = (260.0, 360.0, 14.0, 10.0);
    let rows: usize = chart.iter().map(|(_, b)| b.len()).sum();
    let height = rows as f64 * row_h + chart.len() as f64 * (gap + 14.0) + 20.0;
    let _ = writeln!(
        out,
        "<svg class=\"variant-chart\" viewBox=\"0 0 {} {height}\" width=\"{}\" height=\"{height}\" \
         role=\"img\" aria-label=\"pass rate per fixture and variant\">",
        label_w + bar_w + 60.0,
        label_w + bar_w + 60.0,
    );
    let mut y = 10.0;
    for (key, bars) in &chart {
        let _ = writeln!(
            out,
            "<text class=\"label\" x=\"0\" y=\"{}\">{}</text>",
            y + 10.0,
            esc(&markup::truncate(key, 60))
        );
        y += 14.0;
        for (i, rate) in bars {
            let v = &variants[*i];
            let colour = VARIANT_COLOURS[i % VARIANT_COLOURS.len()];
            let width = rate.rate * bar_w;
            let _ = writeln!(
                out,
                "<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\
                 <rect class=\"variant-bar-track\" x=\"{label_w}\" y=\"{}\" width=\"{bar_w}\" height=\"{}\" \
                 fill=\"#f6f8fa\" stroke=\"{colour}\" stroke-width=\"0.5\"/>\
                 <rect class=\"variant-bar\" data-fixture=\"{}\" data-variant=\"{}\" data-pass-rate=\"{}\" \
                 data-low=\"{}\" data-high=\"{}\" x=\"{label_w}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{colour}\"/>\
                 <line class=\"interval\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#1b1f24\"/>\
                 <text class=\"value\" x=\"{}\" y=\"{}\">{}</text>",
                label_w - 6.0,
                y + row_h - 3.0,
                esc(&markup::truncate(&v.variant.name, 30)),
                y + 1.0,
                row_h - 2.0,
                esc(key),
                esc(&v.variant.name),
                num(rate.rate),
                num(rate.low),
                num(rate.high),
                y + 1.0,
                num(width),
                row_h - 2.0,
                num(label_w + rate.low * bar_w),
                num(label_w + rate.high * bar_w),
                y + row_h / 2.0,
                y + row_h / 2.0,
                label_w + bar_w + 6.0,
                y + row_h - 3.0,
                percent(rate.rate),
            );
            y += row_h;
        }
        y += gap;
    }
    out.push_str("</svg>\n</section>\n");
}

/// The longest output the report prints whole, in characters.
const OUTPUT_CHARS: usize = 20_000;

/// The drill-down of a contract's section: per fixture with samples, its
/// failing executions, then its passing ones collapsed.
fn drill_down(out: &mut String, fixtures: &[&FixtureStats], samples: &[ExecutionRecord]) {
    fn of<'s>(
        f: &'s FixtureStats,
        samples: &'s [ExecutionRecord],
    ) -> impl Iterator<Item = &'s ExecutionRecord> {
        samples.iter().filter(move |r| f.holds(r))
    }
    if !fixtures.iter().any(|f| of(f, samples).next().is_some()) {
        return;
    }
    out.push_str("<h3>Executions</h3>\n");
    for f in fixtures {
        let (failing, passing): (Vec<&ExecutionRecord>, Vec<&ExecutionRecord>) =
            of(f, samples).partition(|r| !r.passed());
        if failing.is_empty() && passing.is_empty() {
            continue;
        }
        let failed = f.summary.executions - f.summary.pass_rate.passed;
        let _ = writeln!(
            out,
            "<h4 class=\"drill-down\" data-fixture=\"{}\"><code>{}</code>: {failed} of {} \
             execution(s) failed{}</h4>",
            esc(&fixture_key(f)),
            esc(&f.fixture),
            f.summary.executions,
            if failing.len() as u64 == failed {
                String::new()
            } else {
                format!(", the first {} shown", failing.len())
            },
        );
        for record in failing {
            execution(out, record);
        }
        if !passing.is_empty() {
            let _ = writeln!(
                out,
                "<details class=\"passing\" data-fixture=\"{}\"><summary>{} passing \
                 execution(s) of {} (the first {})</summary>",
                esc(&fixture_key(f)),
                passing.len(),
                f.summary.pass_rate.passed,
                passing.len(),
            );
            for record in passing {
                execution(out, record);
            }
            out.push_str("</details>\n");
        }
    }
}

/// One execution: why it failed, its failed checks with their values, its
/// violations, the provider's message and help, its output.
fn execution(out: &mut String, record: &ExecutionRecord) {
    let passed = record.passed();
    // A dataset row's fixture is `entry#ROW` (docs/eval.md, "Datasets"):
    // its heading names the row, since the drill-down groups the rows of
    // an entry under the entry.
    let row = crate::select::dataset_row(&record.fixture).map(|(_, row)| row);
    let _ = writeln!(
        out,
        "<article class=\"execution {}\" data-fixture=\"{}\" data-repeat=\"{}\" \
         data-passed=\"{passed}\" data-code=\"{}\"{}{}>\n<h4>{}{}Repeat {} — <span class=\"{}\">{}</span></h4>",
        if passed { "passed" } else { "failed" },
        esc(&format!("{}::{}", record.contract, record.fixture)),
        record.repeat,
        esc(record.code.as_deref().unwrap_or("")),
        record
            .variant
            .as_deref()
            .map_or_else(String::new, |v| format!(" data-variant=\"{}\"", esc(v))),
        row.map_or_else(String::new, |r| format!(" data-row=\"{}\"", esc(r))),
        record
            .variant
            .as_deref()
            .map_or_else(String::new, |v| format!(
                "Variant <code>{}</code>, ",
                esc(v)
            )),
        row.map_or_else(String::new, |r| format!("Row <code>{}</code>, ", esc(r))),
        record.repeat,
        if passed { "pass" } else { "fail" },
        esc(&explain::headline(record)),
    );
    let checks: Vec<_> = explain::failed_checks(record).collect();
    if !checks.is_empty() {
        out.push_str(
            "<table class=\"failed-checks\">\n<thead><tr><th>Check</th><th>Expression</th>\
             <th>Values read</th></tr></thead>\n<tbody>\n",
        );
        for c in checks {
            let _ = write!(
                out,
                "<tr class=\"failed-check\" data-check=\"{}\" data-verdict=\"{}\"><td class=\"id\">\
                 <code>{}</code></td><td class=\"id\"><code>{}</code>{}</td><td class=\"id\">\
                 <ul class=\"observed\">",
                esc(&c.id),
                c.verdict.as_str(),
                esc(&c.id),
                esc(&excerpt(&c.expression, explain::MESSAGE_EXCERPT)),
                c.error.as_deref().map_or_else(String::new, |e| format!(
                    "<br>could not be decided: {}",
                    esc(&excerpt(e, explain::MESSAGE_EXCERPT))
                )),
            );
            for o in &c.observed {
                let _ = write!(
                    out,
                    "<li class=\"observed\" data-expression=\"{}\" data-value=\"{}\"><code>{}</code></li>",
                    esc(&excerpt(&o.expression, 200)),
                    esc(&excerpt(
                        o.value.as_deref().unwrap_or(""),
                        explain::MESSAGE_EXCERPT
                    )),
                    esc(&explain::observed_line(o)),
                );
            }
            // What a model-graded check's judge answered (`docs/eval.md`,
            // "Judges").
            for line in explain::judge_lines(c) {
                let _ = write!(out, "<li class=\"judge\"><code>{}</code></li>", esc(&line));
            }
            out.push_str("</ul></td></tr>\n");
        }
        out.push_str("</tbody>\n</table>\n");
    }
    let evidence = &record.evidence;
    if !evidence.violations.is_empty() {
        out.push_str("<ul class=\"violations\">\n");
        for v in &evidence.violations {
            let _ = writeln!(
                out,
                "<li class=\"violation\" data-pointer=\"{}\" data-keyword=\"{}\">{}</li>",
                esc(&excerpt(&v.pointer, 200)),
                esc(&v.keyword),
                esc(&explain::violation_line(v)),
            );
        }
        out.push_str("</ul>\n");
    }
    // The headline quotes the message up to MESSAGE_EXCERPT characters.
    if record.code.is_some()
        && let Some(message) = evidence
            .message
            .as_ref()
            .filter(|m| m.chars().count() > explain::MESSAGE_EXCERPT)
    {
        let _ = writeln!(
            out,
            "<p class=\"message\">{}</p>",
            esc(&excerpt(message, 4 * explain::MESSAGE_EXCERPT))
        );
    }
    if let Some(whole) = &evidence.provider_message {
        let _ = writeln!(
            out,
            "<details class=\"provider-message\"><summary>The provider's whole message</summary>\
             <pre class=\"output\">{}</pre></details>",
            esc(&pretty(whole))
        );
    }
    if let Some(help) = &evidence.help {
        let _ = writeln!(
            out,
            "<p class=\"help\">help: {}</p>",
            esc(&excerpt(help, explain::MESSAGE_EXCERPT))
        );
    }
    if let Some(output) = &evidence.output {
        let _ = writeln!(out, "<pre class=\"output\">{}</pre>", esc(&pretty(output)));
    }
    out.push_str("</article>\n");
}

/// An output for the page: JSON pretty-printed when that loses nothing
/// (it reads back to the same compact text: a number beyond `f64` is
/// shown as written), other text as written, its lines kept and any other
/// control character shown as `\u{…}`; each line at most
/// [`OUTPUT_CHARS`].
fn pretty(output: &str) -> String {
    let text = match serde_json::from_str::<serde_json::Value>(output) {
        Ok(value) if serde_json::to_string(&value).is_ok_and(|t| t == output) => {
            serde_json::to_string_pretty(&value).unwrap_or_else(|_| output.to_owned())
        }
        _ => output.to_owned(),
    };
    text.split('\n')
        .map(|line| excerpt(line, OUTPUT_CHARS))
        .collect::<Vec<_>>()
        .join("\n")
}

fn header(out: &mut String, run: &RunInfo, run_id: Option<&str>) {
    let _ = write!(
        out,
        "<header>\n<h1>templiqx eval</h1>\n<dl class=\"run\" data-run-id=\"{}\" \
         data-provider=\"{}\" data-model=\"{}\" data-repeat=\"{}\" data-started-at=\"{}\">\n\
         <dt>Run</dt><dd>{}</dd>\n<dt>Provider</dt><dd>{}</dd>\n<dt>Model</dt><dd><code>{}</code></dd>\n\
         <dt>Repeats</dt><dd>{}</dd>\n<dt>Started at</dt><dd>{}</dd>\n\
         <dt>Sampling</dt><dd><code>{}</code></dd>\n{}</dl>\n</header>\n",
        esc(run_id.unwrap_or("")),
        esc(&run.provider),
        esc(&run.model),
        run.repeat,
        esc(&run.started_at),
        esc(run_id.unwrap_or("not stored")),
        esc(&run.provider),
        esc(&run.model),
        run.repeat,
        esc(&run.started_at),
        esc(&run.sampling),
        run.interrupted_at
            .as_deref()
            .map_or_else(String::new, |at| format!(
                "<dt>Status</dt><dd class=\"incomplete\" data-interrupted-at=\"{}\">incomplete: \
             interrupted at {}; the figures cover only the executions that ran</dd>\n",
                esc(at),
                esc(at)
            )),
    );
}

fn summary_attributes(summary: &Summary) -> String {
    format!(
        "data-executions=\"{}\" data-passed=\"{}\" data-pass-rate=\"{}\" data-low=\"{}\" \
         data-high=\"{}\" data-pass-all=\"{}\"",
        summary.executions,
        summary.pass_rate.passed,
        num(summary.pass_rate.rate),
        num(summary.pass_rate.low),
        num(summary.pass_rate.high),
        summary.pass_all
    )
}

fn pass_all_text(pass_all: bool) -> &'static str {
    if pass_all {
        "<span class=\"pass\">yes</span>"
    } else {
        "<span class=\"fail\">no</span>"
    }
}

fn overall(out: &mut String, stats: &RunStats, comparison: Option<&Comparison>) {
    let s = &stats.overall.summary;
    let _ = write!(
        out,
        "<section class=\"overall\" id=\"overall\" {}>\n<h2>Overall</h2>\n\
         <p>{} contract(s), {} fixture(s), {} execution(s) ({} cached); pass rate {}; \
         schema-valid {}; pass^N {}.</p>\n",
        summary_attributes(s),
        stats.overall.contracts,
        stats.overall.fixtures,
        s.executions,
        s.cached,
        rate_text(&s.pass_rate),
        rate_text(&s.schema_valid_rate),
        pass_all_text(s.pass_all),
    );
    if let Some(c) = comparison {
        let regressions = c.fixtures.iter().filter(|f| f.has_regression()).count();
        let improvements = c
            .fixtures
            .iter()
            .filter(|f| {
                f.pass_rate.improvement
                    || f.schema_valid_rate.improvement
                    || f.checks.iter().any(|k| k.comparison.improvement)
            })
            .count();
        let o = &c.overall_pass_rate;
        let _ = writeln!(
            out,
            "<p class=\"comparison-summary\" data-regressions=\"{regressions}\" \
             data-improvements=\"{improvements}\">Against the baseline: pass rate {} → {} \
             (p = {}); <span class=\"{}\">{regressions} fixture(s) with a regression</span>, \
             {improvements} with an improvement.</p>",
            percent(o.baseline.rate),
            percent(o.current.rate),
            p_text(o.p_value),
            if regressions > 0 { "regression" } else { "n" },
        );
        let list = |out: &mut String, class: &str, title: &str, items: Vec<String>| {
            if items.is_empty() {
                return;
            }
            let _ = write!(out, "<p>{title}:</p>\n<ul class=\"{class}\">\n");
            for item in items {
                let _ = writeln!(out, "<li><code>{}</code></li>", esc(&item));
            }
            out.push_str("</ul>\n");
        };
        let key = |k: &crate::compare::FixtureKey| format!("{}::{}", k.contract, k.fixture);
        list(
            out,
            "added-contracts",
            "Contracts not in the baseline",
            c.added_contracts.clone(),
        );
        list(
            out,
            "removed-contracts",
            "Contracts only in the baseline",
            c.removed_contracts.clone(),
        );
        list(
            out,
            "added-fixtures",
            "Fixtures not in the baseline",
            c.added_fixtures.iter().map(key).collect(),
        );
        list(
            out,
            "removed-fixtures",
            "Fixtures only in the baseline",
            c.removed_fixtures.iter().map(key).collect(),
        );
    }
    if !stats.contracts.is_empty() {
        out.push_str("<nav>\n<ul>\n");
        for (index, contract) in stats.contracts.iter().enumerate() {
            let _ = writeln!(
                out,
                "<li><a href=\"#contract-{index}\"><code>{}</code></a> — {}</li>",
                esc(&contract.contract),
                percent(contract.summary.pass_rate.rate),
            );
        }
        out.push_str("</ul>\n</nav>\n");
    }
    out.push_str("</section>\n");
}

fn interaction(
    out: &mut String,
    fingerprint: Option<&str>,
    comparison: Option<&crate::compare::ContractComparison>,
) {
    let Some(fingerprint) = fingerprint else {
        return;
    };
    let _ = write!(
        out,
        "<p class=\"interaction\">Interaction fingerprint <code>{}</code>",
        esc(fingerprint)
    );
    if let Some(c) = comparison.filter(|c| c.interaction_changed) {
        let _ = write!(
            out,
            " — <span class=\"changed\" data-interaction-changed=\"true\">changed since the \
             baseline</span> (was <code>{}</code>)",
            esc(c.baseline_interaction_fingerprint.as_deref().unwrap_or("")),
        );
    }
    out.push_str(".</p>\n");
}

/// Under a dataset entry's id: its rows, how many passed every execution,
/// and the failing rows listed (`docs/eval.md`, "Datasets").
fn rows_cell(rows: &crate::stats::RowStats) -> String {
    let failing = rows.passed_all.failed();
    let listed = if rows.failing.is_empty() {
        String::new()
    } else {
        let ids: Vec<String> = rows
            .failing
            .iter()
            .map(|id| format!("<code>{}</code>", esc(id)))
            .collect();
        let which = if failing > rows.failing.len() as u64 {
            format!(
                "; failing (the first {} of {failing}): ",
                rows.failing.len()
            )
        } else {
            "; failing: ".to_owned()
        };
        format!("{which}{}", ids.join(", "))
    };
    format!(
        "<div class=\"rows\" data-rows=\"{}\" data-rows-passed-all=\"{}\" data-rows-varied=\"{}\">\
         {} row(s), {} passed every execution{listed}</div>",
        rows.rows, rows.passed_all.passed, rows.varied, rows.rows, rows.passed_all.passed
    )
}

fn fixture_table(out: &mut String, fixtures: &[&FixtureStats], currency: Option<&str>) {
    out.push_str(
        "<table class=\"fixtures\">\n<thead><tr><th>Fixture</th><th>Executions</th>\
         <th>Pass rate [95% CI]</th><th>Schema-valid [95% CI]</th><th>pass^N</th>\
         <th>Distinct outputs</th><th>p50 ms</th><th>p95 ms</th><th>Output tokens/s</th>\
         <th>Cached</th>",
    );
    if currency.is_some() {
        out.push_str("<th>Cost</th>");
    }
    out.push_str("<th>Failure codes</th></tr></thead>\n<tbody>\n");
    for f in fixtures {
        let s = &f.summary;
        let key = fixture_key(f);
        let _ = write!(
            out,
            "<tr class=\"fixture\" data-fixture=\"{}\" data-contract=\"{}\" data-fixture-id=\"{}\" \
             {} data-schema-valid-rate=\"{}\" data-schema-valid-low=\"{}\" \
             data-schema-valid-high=\"{}\" data-distinct-outputs=\"{}\" data-p50-ms=\"{}\" \
             data-p95-ms=\"{}\" data-output-tokens-per-s=\"{}\" data-cached=\"{}\" \
             data-recovered=\"{}\">\
             <td class=\"id\"><code>{}</code>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
            esc(&key),
            esc(&f.contract),
            esc(&f.fixture),
            summary_attributes(s),
            num(s.schema_valid_rate.rate),
            num(s.schema_valid_rate.low),
            num(s.schema_valid_rate.high),
            s.distinct_outputs,
            opt_num(s.latency.p50_ms),
            opt_num(s.latency.p95_ms),
            opt_num(s.output_tokens_per_s),
            s.cached,
            s.recovered_rate.passed,
            esc(&f.fixture),
            f.rows.as_ref().map_or_else(String::new, rows_cell),
            s.executions,
            rate_text(&s.pass_rate),
            rate_text(&s.schema_valid_rate),
            pass_all_text(s.pass_all),
            s.distinct_outputs,
            ms_text(s.latency.p50_ms),
            ms_text(s.latency.p95_ms),
            s.output_tokens_per_s
                .map(|t| format!("{t:.1}"))
                .unwrap_or_else(|| "–".to_owned()),
            s.cached,
        );
        if let Some(currency) = currency {
            let cost = s.cost.unwrap_or_default();
            let _ = write!(
                out,
                "<td class=\"cost\" data-cost=\"{}\">{}</td>",
                opt_num(cost.amount),
                esc(&cost.describe(currency))
            );
        }
        out.push_str("<td>");
        let recovered = s.recovered_rate.passed;
        if !s.failure_codes.is_empty() || recovered > 0 {
            out.push_str("<ul class=\"codes\">");
            for (code, count) in &s.failure_codes {
                let _ = write!(
                    out,
                    "<li class=\"code\" data-code=\"{}\" data-count=\"{count}\"><code>{}</code> × {count}</li>",
                    esc(code),
                    esc(code),
                );
            }
            // Output recovery's warnings: a fixture that passes only
            // through recovery shows (`docs/eval.md`, "Output recovery").
            if recovered > 0 {
                let _ = write!(
                    out,
                    "<li class=\"code recovered\" data-code=\"TQX_OUTPUT_RECOVERED\" data-count=\"{recovered}\"><code>TQX_OUTPUT_RECOVERED</code> × {recovered} (recovered)</li>",
                );
            }
            out.push_str("</ul>");
        }
        out.push_str("</td></tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
}

fn check_table(out: &mut String, fixtures: &[&FixtureStats]) {
    out.push_str("<h3>Checks</h3>\n");
    if fixtures.iter().all(|f| f.summary.checks.is_empty()) {
        out.push_str("<p>No <code>expect</code> checks.</p>\n");
        return;
    }
    out.push_str(
        "<table class=\"checks\">\n<thead><tr><th>Fixture</th><th>Check</th>\
         <th>Pass rate [95% CI]</th></tr></thead>\n<tbody>\n",
    );
    for f in fixtures {
        let key = fixture_key(f);
        for check in &f.summary.checks {
            let r = &check.rate;
            let _ = writeln!(
                out,
                "<tr class=\"check\" data-fixture=\"{}\" data-check=\"{}\" data-passed=\"{}\" \
                 data-total=\"{}\" data-rate=\"{}\" data-low=\"{}\" data-high=\"{}\">\
                 <td class=\"id\"><code>{}</code></td><td class=\"id\"><code>{}</code></td>\
                 <td>{}</td></tr>",
                esc(&key),
                esc(&check.id),
                r.passed,
                r.total,
                num(r.rate),
                num(r.low),
                num(r.high),
                esc(&f.fixture),
                esc(&check.id),
                rate_text(r),
            );
        }
    }
    out.push_str("</tbody>\n</table>\n");
}

fn comparison_row(
    out: &mut String,
    key: &str,
    fixture: &str,
    what: &str,
    check: &str,
    label: &str,
    r: &RateComparison,
) {
    let status = if r.regression {
        "<span class=\"regression\">▼ regression</span>"
    } else if r.improvement {
        "<span class=\"improvement\">▲ improvement</span>"
    } else {
        "–"
    };
    let _ = writeln!(
        out,
        "<tr class=\"rate-comparison\" data-fixture=\"{}\" data-what=\"{what}\" data-check=\"{}\" \
         data-baseline-rate=\"{}\" data-current-rate=\"{}\" data-difference=\"{}\" \
         data-p-value=\"{}\" data-significant=\"{}\" data-regression=\"{}\" \
         data-improvement=\"{}\"><td class=\"id\"><code>{}</code></td><td class=\"id\">{label}</td>\
         <td>{}</td><td>{}</td><td>{:+.1} pt</td><td>{}</td><td>{status}</td></tr>",
        esc(key),
        esc(check),
        num(r.baseline.rate),
        num(r.current.rate),
        num(r.difference),
        num(r.p_value),
        r.significant,
        r.regression,
        r.improvement,
        esc(fixture),
        rate_text(&r.baseline),
        rate_text(&r.current),
        r.difference * 100.0,
        p_text(r.p_value),
    );
}

fn comparison_table(out: &mut String, contract: &str, comparison: &Comparison) {
    out.push_str("<h3>Against the baseline</h3>\n");
    let fixtures: Vec<_> = comparison
        .fixtures
        .iter()
        .filter(|f| f.contract == contract)
        .collect();
    if fixtures.is_empty() {
        out.push_str("<p>No fixture of this contract is in the baseline.</p>\n");
        return;
    }
    out.push_str(
        "<table class=\"comparison\">\n<thead><tr><th>Fixture</th><th>Rate</th>\
         <th>Baseline [95% CI]</th><th>Current [95% CI]</th><th>Difference</th>\
         <th>Fisher p</th><th></th></tr></thead>\n<tbody>\n",
    );
    for f in fixtures {
        let key = format!("{}::{}", f.contract, f.fixture);
        comparison_row(
            out,
            &key,
            &f.fixture,
            "pass_rate",
            "",
            "pass rate",
            &f.pass_rate,
        );
        comparison_row(
            out,
            &key,
            &f.fixture,
            "schema_valid_rate",
            "",
            "schema-valid",
            &f.schema_valid_rate,
        );
        for check in &f.checks {
            let label = format!("check <code>{}</code>", esc(&check.id));
            comparison_row(
                out,
                &key,
                &f.fixture,
                "check",
                &check.id,
                &label,
                &check.comparison,
            );
        }
        if !f.added_checks.is_empty() || !f.removed_checks.is_empty() {
            let ids = |ids: &[String]| {
                ids.iter()
                    .map(|id| format!("<code>{}</code>", esc(id)))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let _ = writeln!(
                out,
                "<tr class=\"check-changes\"><td class=\"id\"><code>{}</code></td>\
                 <td class=\"id\" colspan=\"6\">checks added: {}; removed: {}</td></tr>",
                esc(&f.fixture),
                if f.added_checks.is_empty() {
                    "none".to_owned()
                } else {
                    ids(&f.added_checks)
                },
                if f.removed_checks.is_empty() {
                    "none".to_owned()
                } else {
                    ids(&f.removed_checks)
                },
            );
        }
    }
    out.push_str("</tbody>\n</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::compare;
    use crate::record::{ExecutionRecord, Verdict};
    use crate::stats::tests::record;
    use crate::stats::{Accumulator, Rate};
    use scraper::{ElementRef, Html, Selector};

    const HOSTILE: &str = "<img src=x onerror=alert(1)>";
    const HOSTILE_FIXTURE: &str = "\"><script>alert('x')</script>&amp;";

    fn records(passing: u32) -> Vec<ExecutionRecord> {
        let mut records = Vec::new();
        for repeat in 0..20 {
            let verdict = if repeat < passing {
                Verdict::Pass
            } else {
                Verdict::Fail
            };
            records.push(record(
                "greeting",
                "formal",
                repeat,
                repeat != 19,
                &[("polite", verdict), ("short", Verdict::Pass)],
                40.0 * f64::from(repeat + 1),
            ));
            records.push(record(
                HOSTILE,
                HOSTILE_FIXTURE,
                repeat,
                true,
                &[(HOSTILE, Verdict::Pass)],
                5.0,
            ));
        }
        records.push(record("greeting", "casual", 0, true, &[], 12.5));
        records
    }

    fn stats(passing: u32, fingerprint: &str) -> RunStats {
        let mut acc = Accumulator::new();
        acc.set_interaction_fingerprint("greeting", fingerprint);
        acc.set_interaction_fingerprint(HOSTILE, HOSTILE);
        acc.extend(&records(passing));
        acc.stats()
    }

    fn run_info() -> RunInfo {
        RunInfo {
            id: Some(42),
            started_at: "2026-01-02T03:04:05Z".into(),
            provider: "fake".into(),
            model: "m<1>".into(),
            sampling: "{\"temperature\":0}".into(),
            repeat: 20,
            interrupted_at: None,
            variants: Vec::new(),
            currency: None,
            max_cost: None,
        }
    }

    fn select<'a>(doc: &'a Html, selector: &str) -> Vec<ElementRef<'a>> {
        doc.select(&Selector::parse(selector).unwrap()).collect()
    }

    fn attr<'a>(element: &ElementRef<'a>, name: &str) -> &'a str {
        element
            .value()
            .attr(name)
            .unwrap_or_else(|| panic!("no {name} on {:?}", element.value()))
    }

    fn f(element: &ElementRef<'_>, name: &str) -> f64 {
        attr(element, name).parse().unwrap()
    }

    /// `data-{name}`, `data-{bounds}low` and `data-{bounds}high` are the
    /// rate and its interval.
    fn assert_rate(element: &ElementRef<'_>, name: &str, bounds: &str, rate: &Rate) {
        assert_eq!(f(element, &format!("data-{name}")), rate.rate);
        assert_eq!(f(element, &format!("data-{bounds}low")), rate.low);
        assert_eq!(f(element, &format!("data-{bounds}high")), rate.high);
    }

    #[test]
    fn figures_are_those_of_the_stats() {
        let stats = stats(15, "sha256:aa");
        let html = html(&stats, &run_info(), None);
        let doc = Html::parse_document(&html);
        assert!(doc.errors.is_empty(), "{:?}", doc.errors);

        let run = &select(&doc, "dl.run")[0];
        assert_eq!(attr(run, "data-run-id"), "42");
        assert_eq!(attr(run, "data-model"), "m<1>");
        assert_eq!(attr(run, "data-repeat"), "20");
        assert_eq!(attr(run, "data-started-at"), "2026-01-02T03:04:05Z");

        let rows = select(&doc, "tr.fixture");
        assert_eq!(rows.len(), stats.fixtures.len());
        for fixture in &stats.fixtures {
            let key = format!("{}::{}", fixture.contract, fixture.fixture);
            let s = &fixture.summary;
            let row = rows
                .iter()
                .find(|r| attr(r, "data-fixture") == key)
                .unwrap_or_else(|| panic!("no row for {key}"));
            assert_eq!(attr(row, "data-contract"), fixture.contract);
            assert_eq!(attr(row, "data-fixture-id"), fixture.fixture);
            assert_eq!(f(row, "data-executions"), s.executions as f64);
            assert_eq!(f(row, "data-passed"), s.pass_rate.passed as f64);
            assert_rate(row, "pass-rate", "", &s.pass_rate);
            assert_rate(
                row,
                "schema-valid-rate",
                "schema-valid-",
                &s.schema_valid_rate,
            );
            assert_eq!(attr(row, "data-pass-all"), s.pass_all.to_string());
            assert_eq!(f(row, "data-distinct-outputs"), s.distinct_outputs as f64);
            assert_eq!(Some(f(row, "data-p50-ms")), s.latency.p50_ms);
            assert_eq!(Some(f(row, "data-p95-ms")), s.latency.p95_ms);
            assert_eq!(
                Some(f(row, "data-output-tokens-per-s")),
                s.output_tokens_per_s
            );
            for (code, count) in &s.failure_codes {
                let li = row
                    .select(&Selector::parse("li.code").unwrap())
                    .find(|li| attr(li, "data-code") == code)
                    .unwrap();
                assert_eq!(f(&li, "data-count"), *count as f64);
            }

            let bars: Vec<_> = select(&doc, "rect.bar")
                .into_iter()
                .filter(|b| attr(b, "data-fixture") == key)
                .collect();
            assert_eq!(bars.len(), 1);
            assert_eq!(attr(&bars[0], "data-series"), "current");
            assert_rate(&bars[0], "pass-rate", "", &s.pass_rate);

            for check in &s.checks {
                let row = select(&doc, "tr.check")
                    .into_iter()
                    .find(|r| attr(r, "data-fixture") == key && attr(r, "data-check") == check.id)
                    .unwrap();
                assert_eq!(f(&row, "data-passed"), check.rate.passed as f64);
                assert_eq!(f(&row, "data-total"), check.rate.total as f64);
                assert_rate(&row, "rate", "", &check.rate);
            }
        }
        let formal = stats.fixture("greeting", "formal").unwrap();
        assert_eq!(formal.summary.pass_rate.passed, 15);
        assert_eq!(formal.summary.failure_codes.len(), 1);

        for contract in &stats.contracts {
            let section = select(&doc, "section.contract")
                .into_iter()
                .find(|s| attr(s, "data-contract") == contract.contract)
                .unwrap();
            assert_rate(&section, "pass-rate", "", &contract.summary.pass_rate);
            let counts: f64 = select(&doc, "rect.latency")
                .iter()
                .filter(|r| attr(r, "data-contract") == contract.contract)
                .map(|r| f(r, "data-count"))
                .sum();
            assert_eq!(counts, contract.summary.executions as f64);
        }
        let overall = &select(&doc, "section.overall")[0];
        assert_rate(overall, "pass-rate", "", &stats.overall.summary.pass_rate);
        assert!(select(&doc, "tr.rate-comparison").is_empty());
    }

    #[test]
    fn comparison_bars_p_values_and_regressions() {
        let baseline = stats(20, "sha256:aa");
        let current = stats(8, "sha256:bb");
        let comparison = compare(&baseline, &current);
        let html = html(&current, &run_info(), Some(&comparison));
        let doc = Html::parse_document(&html);
        assert!(doc.errors.is_empty(), "{:?}", doc.errors);

        let formal = comparison.fixture("greeting", "formal").unwrap();
        assert!(formal.pass_rate.regression);
        let bars: Vec<_> = select(&doc, "rect.bar")
            .into_iter()
            .filter(|b| attr(b, "data-fixture") == "greeting::formal")
            .collect();
        assert_eq!(bars.len(), 2);
        let baseline_bar = bars
            .iter()
            .find(|b| attr(b, "data-series") == "baseline")
            .unwrap();
        let current_bar = bars
            .iter()
            .find(|b| attr(b, "data-series") == "current")
            .unwrap();
        assert_rate(baseline_bar, "pass-rate", "", &formal.pass_rate.baseline);
        assert_rate(current_bar, "pass-rate", "", &formal.pass_rate.current);
        assert!(
            attr(current_bar, "class")
                .split(' ')
                .any(|c| c == "regression")
        );

        let rows = select(&doc, "tr.rate-comparison");
        let pass = rows
            .iter()
            .find(|r| {
                attr(r, "data-fixture") == "greeting::formal" && attr(r, "data-what") == "pass_rate"
            })
            .unwrap();
        assert_eq!(f(pass, "data-p-value"), formal.pass_rate.p_value);
        assert_eq!(f(pass, "data-difference"), formal.pass_rate.difference);
        assert_eq!(attr(pass, "data-regression"), "true");
        let polite = rows
            .iter()
            .find(|r| attr(r, "data-what") == "check" && attr(r, "data-check") == "polite")
            .unwrap();
        let polite_cmp = &formal
            .checks
            .iter()
            .find(|c| c.id == "polite")
            .unwrap()
            .comparison;
        assert_eq!(f(polite, "data-p-value"), polite_cmp.p_value);
        assert_eq!(f(polite, "data-baseline-rate"), polite_cmp.baseline.rate);
        assert_eq!(f(polite, "data-current-rate"), polite_cmp.current.rate);

        assert_eq!(select(&doc, "[data-interaction-changed]").len(), 1);
        let summary = &select(&doc, "p.comparison-summary")[0];
        assert_eq!(attr(summary, "data-regressions"), "1");
    }

    #[test]
    fn self_contained_and_escaped() {
        let baseline = stats(20, "sha256:aa");
        let current = stats(8, "sha256:bb");
        let comparison = compare(&baseline, &current);
        let html = html(&current, &run_info(), Some(&comparison));
        let lower = html.to_ascii_lowercase();
        assert!(!lower.contains("<script"), "a script element");
        assert!(!lower.contains("<img"), "an img element");
        assert!(!lower.contains("http://") && !lower.contains("https://"));
        assert!(lower.starts_with("<!doctype html>"));

        let doc = Html::parse_document(&html);
        assert!(doc.errors.is_empty(), "{:?}", doc.errors);
        assert!(select(&doc, "script, img, iframe, link, object, embed").is_empty());
        for element in select(&doc, "[src], [href]") {
            let target = element
                .value()
                .attr("src")
                .or(element.value().attr("href"))
                .unwrap();
            assert!(target.starts_with('#'), "external reference {target}");
        }
        assert!(select(&doc, "[onerror], [onload], [onclick]").is_empty());
        // The hostile ids survive as text and attribute values.
        let section = select(&doc, "section.contract")
            .into_iter()
            .find(|s| attr(s, "data-contract") == HOSTILE)
            .expect("the hostile contract's section");
        let heading: String = section
            .select(&Selector::parse("h2").unwrap())
            .next()
            .unwrap()
            .text()
            .collect();
        assert_eq!(heading, format!("Contract {HOSTILE}"));
        let key = format!("{HOSTILE}::{HOSTILE_FIXTURE}");
        assert_eq!(
            select(&doc, "tr.fixture")
                .iter()
                .filter(|r| attr(r, "data-fixture") == key)
                .count(),
            1
        );
        assert!(
            select(&doc, "tr.check")
                .iter()
                .any(|r| attr(r, "data-check") == HOSTILE)
        );
        assert_eq!(attr(&select(&doc, "dl.run")[0], "data-model"), "m<1>");
    }

    #[test]
    fn a_dataset_row_s_execution_names_the_row() {
        let mut row = record(
            "lease-term-extraction",
            "labelled-leases#lease-0101",
            2,
            true,
            &[("right-rent", Verdict::Fail)],
            10.0,
        );
        row.variant = Some("small".into());
        let mut out = String::new();
        execution(&mut out, &row);
        let doc = Html::parse_fragment(&out);
        let article = &select(&doc, "article.execution")[0];
        assert_eq!(attr(article, "data-row"), "lease-0101");
        assert_eq!(
            attr(article, "data-fixture"),
            "lease-term-extraction::labelled-leases#lease-0101"
        );
        let heading: String = select(&doc, "article.execution h4")[0].text().collect();
        assert!(
            heading.starts_with("Variant small, Row lease-0101, Repeat 2 — "),
            "{heading}"
        );
        // An inline fixture's execution has no row.
        let mut out = String::new();
        execution(&mut out, &record("greeting", "formal", 0, true, &[], 1.0));
        let doc = Html::parse_fragment(&out);
        let article = &select(&doc, "article.execution")[0];
        assert!(article.value().attr("data-row").is_none());
        let heading: String = select(&doc, "article.execution h4")[0].text().collect();
        assert!(heading.starts_with("Repeat 0 — "), "{heading}");
    }

    #[test]
    fn empty_run_renders() {
        let stats = Accumulator::new().stats();
        let html = html(&stats, &run_info(), None);
        let doc = Html::parse_document(&html);
        assert!(doc.errors.is_empty(), "{:?}", doc.errors);
        assert!(select(&doc, "section.contract").is_empty());
        assert_eq!(select(&doc, "section.overall").len(), 1);
    }
}
