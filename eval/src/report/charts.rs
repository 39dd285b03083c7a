//! The report's inline SVG charts: per contract, the pass rate of each
//! fixture with its 95% Wilson interval as whiskers (beside the
//! baseline's, with a comparison), and the latency histogram on a
//! logarithmic axis with the p50 and p95 marked.

use std::fmt::Write as _;

use super::markup::{esc, fixture_key, ms_text, num, p_text, percent, truncate};
use crate::compare::Comparison;
use crate::latency::LatencyStats;
use crate::stats::{FixtureStats, Rate};

/// Pass-rate chart geometry, in SVG user units.
const CHART_WIDTH: f64 = 800.0;
const LABEL_END: f64 = 214.0;
const BAR_START: f64 = 220.0;
const BAR_WIDTH: f64 = 380.0;
const TOP: f64 = 22.0;

fn bar(
    out: &mut String,
    f: &FixtureStats,
    rate: &Rate,
    series: &str,
    class: &str,
    y: f64,
    height: f64,
) {
    let key = &fixture_key(f);
    let x = |r: f64| BAR_START + r.clamp(0.0, 1.0) * BAR_WIDTH;
    let mid = y + height / 2.0;
    let _ = writeln!(
        out,
        "<rect class=\"bar {class}\" data-series=\"{series}\" data-fixture=\"{}\" \
         data-contract=\"{}\" data-fixture-id=\"{}\" data-executions=\"{}\" data-passed=\"{}\" \
         data-pass-rate=\"{}\" data-low=\"{}\" data-high=\"{}\" x=\"{BAR_START:.1}\" y=\"{y:.1}\" \
         width=\"{:.1}\" height=\"{height:.1}\"><title>{} ({series}): {} [{}, {}], {}/{}</title></rect>\n\
         <line class=\"whisker\" x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{mid:.1}\" y2=\"{mid:.1}\"/>\
         <line class=\"whisker\" x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/>\
         <line class=\"whisker\" x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/>",
        esc(key),
        esc(&f.contract),
        esc(&f.fixture),
        rate.total,
        rate.passed,
        num(rate.rate),
        num(rate.low),
        num(rate.high),
        x(rate.rate) - BAR_START,
        esc(key),
        percent(rate.rate),
        percent(rate.low),
        percent(rate.high),
        rate.passed,
        rate.total,
        x(rate.low),
        x(rate.high),
        x(rate.low),
        x(rate.low),
        mid - height / 4.0,
        mid + height / 4.0,
        x(rate.high),
        x(rate.high),
        mid - height / 4.0,
        mid + height / 4.0,
    );
}

pub(super) fn pass_rate_chart(
    out: &mut String,
    contract: &str,
    fixtures: &[&FixtureStats],
    comparison: Option<&Comparison>,
) {
    let row = if comparison.is_some() { 34.0 } else { 22.0 };
    let height = TOP + row * fixtures.len() as f64 + 6.0;
    let _ = writeln!(
        out,
        "<svg class=\"pass-chart\" data-contract=\"{}\" viewBox=\"0 0 {CHART_WIDTH} {height:.0}\" \
         width=\"{CHART_WIDTH}\" height=\"{height:.0}\" role=\"img\" \
         aria-label=\"Pass rate per fixture with 95% Wilson intervals\">",
        esc(contract)
    );
    for tick in 0..=4 {
        let r = f64::from(tick) / 4.0;
        let x = BAR_START + r * BAR_WIDTH;
        let _ = writeln!(
            out,
            "<line class=\"grid\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/>\
             <text class=\"axis\" x=\"{x:.1}\" y=\"12\" text-anchor=\"middle\">{}</text>",
            TOP - 4.0,
            height - 4.0,
            percent(r).replace(".0", ""),
        );
    }
    for (i, f) in fixtures.iter().enumerate() {
        let key = fixture_key(f);
        let y = TOP + row * i as f64;
        let _ = writeln!(
            out,
            "<text class=\"label\" x=\"{LABEL_END}\" y=\"{:.1}\" text-anchor=\"end\">{}<title>{}</title></text>",
            y + row / 2.0 + 4.0,
            esc(&truncate(&f.fixture, 32)),
            esc(&key),
        );
        let current = &f.summary.pass_rate;
        let value_x = BAR_START + BAR_WIDTH + 8.0;
        match comparison.and_then(|c| c.fixture(&f.contract, &f.fixture)) {
            Some(cmp) => {
                let r = &cmp.pass_rate;
                let class = if r.regression {
                    "current regression"
                } else if r.improvement {
                    "current improvement"
                } else {
                    "current"
                };
                bar(out, f, &r.baseline, "baseline", "baseline", y + 2.0, 13.0);
                bar(out, f, current, "current", class, y + 16.0, 13.0);
                let mark = if r.regression {
                    " <tspan class=\"regression\">▼ regression</tspan>"
                } else if r.improvement {
                    " <tspan class=\"improvement\">▲ improvement</tspan>"
                } else {
                    ""
                };
                let _ = writeln!(
                    out,
                    "<text class=\"value\" x=\"{value_x:.1}\" y=\"{:.1}\">{} → {}</text>\
                     <text class=\"value\" data-p-value=\"{}\" x=\"{value_x:.1}\" y=\"{:.1}\">p = {}{mark}</text>",
                    y + 12.0,
                    percent(r.baseline.rate),
                    percent(r.current.rate),
                    num(r.p_value),
                    y + 27.0,
                    p_text(r.p_value),
                );
            }
            None => {
                bar(out, f, current, "current", "current", y + 3.0, 16.0);
                let _ = writeln!(
                    out,
                    "<text class=\"value\" x=\"{value_x:.1}\" y=\"{:.1}\">{} ({}/{})</text>",
                    y + row / 2.0 + 4.0,
                    percent(current.rate),
                    current.passed,
                    current.total,
                );
            }
        }
    }
    out.push_str("</svg>\n");
}

pub(super) fn latency_chart(out: &mut String, contract: &str, latency: &LatencyStats) {
    let buckets = &latency.histogram;
    let (Some(first), Some(last)) = (buckets.first(), buckets.last()) else {
        out.push_str("<p>No latency recorded.</p>\n");
        return;
    };
    let (left, right, top, bottom) = (50.0, CHART_WIDTH - 30.0, 16.0, 150.0);
    // At least 10 slots on the logarithmic axis, the buckets centred.
    let ratio = first.high_ms / first.low_ms;
    let slots = buckets.len().max(10);
    let pad = (slots - buckets.len()) / 2;
    let lo = first.low_ms / ratio.powi(pad as i32);
    let hi = last.high_ms * ratio.powi((slots - buckets.len() - pad) as i32);
    let (log_lo, log_hi) = (lo.log10(), hi.log10());
    let x = |ms: f64| {
        let position = (ms.max(lo).log10() - log_lo) / (log_hi - log_lo);
        left + (right - left) * position.clamp(0.0, 1.0)
    };
    let max = buckets.iter().map(|b| b.count).max().unwrap_or(1).max(1);
    let _ = writeln!(
        out,
        "<svg class=\"latency-chart\" data-contract=\"{}\" viewBox=\"0 0 {CHART_WIDTH} 180\" \
         width=\"{CHART_WIDTH}\" height=\"180\" role=\"img\" \
         aria-label=\"Latency histogram in milliseconds, logarithmic buckets\">\n\
         <line class=\"grid\" x1=\"{left}\" x2=\"{right}\" y1=\"{bottom}\" y2=\"{bottom}\"/>\
         <text class=\"axis\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{max}</text>\
         <text class=\"axis\" x=\"{:.1}\" y=\"{bottom:.1}\" text-anchor=\"end\">0</text>\
         <text class=\"axis\" x=\"{right}\" y=\"176\" text-anchor=\"end\">ms</text>",
        esc(contract),
        left - 4.0,
        top + 4.0,
        left - 4.0,
    );
    for b in buckets {
        let (x0, x1) = (x(b.low_ms), x(b.high_ms));
        let h = (bottom - top) * b.count as f64 / max as f64;
        let _ = writeln!(
            out,
            "<rect class=\"latency\" data-contract=\"{}\" data-low-ms=\"{}\" data-high-ms=\"{}\" \
             data-count=\"{}\" x=\"{x0:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{h:.1}\">\
             <title>{}–{} ms: {}</title></rect>",
            esc(contract),
            num(b.low_ms),
            num(b.high_ms),
            b.count,
            bottom - h,
            (x1 - x0 - 1.0).max(0.5),
            ms_text(Some(b.low_ms)),
            ms_text(Some(b.high_ms)),
            b.count,
        );
    }
    let label_every = slots.div_ceil(8).max(1);
    for j in (0..=slots).filter(|j| j % label_every == 0 || *j == slots) {
        let bound = lo * ratio.powi(j as i32);
        let _ = writeln!(
            out,
            "<text class=\"axis\" x=\"{:.1}\" y=\"164\" text-anchor=\"middle\">{}</text>",
            x(bound),
            ms_text(Some(bound))
        );
    }
    for (name, value, y) in [
        ("p50", latency.p50_ms, top + 8.0),
        ("p95", latency.p95_ms, top + 20.0),
    ] {
        let Some(value) = value else { continue };
        let at = x(value);
        let (text_x, anchor) = if at > right - 100.0 {
            (at - 3.0, "end")
        } else {
            (at + 3.0, "start")
        };
        let _ = writeln!(
            out,
            "<line class=\"marker\" data-percentile=\"{name}\" data-ms=\"{}\" x1=\"{at:.1}\" \
             x2=\"{at:.1}\" y1=\"{top}\" y2=\"{bottom}\"/><text class=\"axis\" x=\"{text_x:.1}\" \
             y=\"{y:.1}\" text-anchor=\"{anchor}\">{name} {} ms</text>",
            num(value),
            ms_text(Some(value)),
        );
    }
    out.push_str("</svg>\n");
}
