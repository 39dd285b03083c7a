//! Comparison of a run with a baseline run (`docs/eval.md`, "Comparing
//! with a baseline").
//!
//! Each rate of a fixture (its pass rate, its schema-valid rate and each
//! check's pass rate) is compared with the baseline's by the two-sided
//! Fisher's exact test ([`fisher_exact`]) on the 2×2 table
//!
//! ```text
//!              passed   not passed
//! baseline       a          b
//! current        c          d
//! ```
//!
//! A difference is significant at [`ALPHA`] = 0.05 (`p < 0.05`); a
//! significant drop is a regression, a significant rise an improvement.
//! The contracts' interaction fingerprints are compared too: a changed
//! interaction (prompt, schema, model settings) explains a change of rates.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::stats::{Rate, RunStats, Summary};

/// The significance level: a difference is significant when the p-value
/// is below it.
pub const ALPHA: f64 = 0.05;

/// The relative tolerance under which two table probabilities count as
/// equal when summing those "as or less likely" than the observed one (R's
/// `fisher.test` uses the same, `1 + 1e-7`).
const RELATIVE_TOLERANCE: f64 = 1e-7;

/// The two-sided p-value of Fisher's exact test on the 2×2 table
/// `[[a, b], [c, d]]` (R. A. Fisher, "On the interpretation of χ² from
/// contingency tables, and the calculation of P", J. R. Stat. Soc. 85
/// (1922) 87–94).
///
/// With the margins fixed, the top-left cell `x` follows the
/// hypergeometric distribution; the p-value is the sum of the
/// probabilities of every table no more probable than the observed one,
/// ties taken within a relative tolerance of 1e-7 as R's `fisher.test`
/// does. The log-probabilities are sums of logarithms (log-factorial
/// differences, accumulated term by term through the ratio of successive
/// probabilities `(r₁−x)(c₁−x) / ((x+1)(r₂−c₁+x+1))`, with compensated
/// summation; no `lgamma`), normalised by their maximum before
/// exponentiation: exact to about 1e-9 relative for tables of up to 10⁶
/// and beyond, in time linear in the range of `x` and constant memory.
/// A table with an empty margin gives 1.
#[must_use]
pub fn fisher_exact(a: u64, b: u64, c: u64, d: u64) -> f64 {
    let row1 = a + b;
    let row2 = c + d;
    let col1 = a + c;
    let lo = col1.saturating_sub(row2);
    let hi = row1.min(col1);
    if lo == hi {
        return 1.0;
    }
    let walk = || LogProbabilities::new(lo, hi, row1, row2, col1);
    let (mut max, mut observed) = (f64::NEG_INFINITY, 0.0);
    for (x, l) in walk() {
        max = max.max(l);
        if x == a {
            observed = l;
        }
    }
    let threshold = observed + RELATIVE_TOLERANCE.ln_1p();
    let summed = |&(_, l): &(u64, f64)| l <= threshold;
    // The largest log-probability among the tables summed.
    let tail_max = walk()
        .filter(summed)
        .map(|(_, l)| l)
        .fold(f64::NEG_INFINITY, f64::max);
    let (mut all, mut tail) = (0.0, 0.0);
    for item in walk() {
        all += (item.1 - max).exp();
        if summed(&item) {
            tail += (item.1 - tail_max).exp();
        }
    }
    // p = Σ_tail e^l / Σ_all e^l, each sum scaled by its own maximum so
    // that tiny p-values keep their precision.
    ((tail_max - max).exp() * tail / all).clamp(0.0, 1.0)
}

/// `(x, ln P(x) − ln P(lo))` for `x = lo..=hi`: the log-probabilities of
/// the hypergeometric distribution of the top-left cell, up to a constant,
/// summed term by term (Neumaier's compensated summation) from the ratio
/// of successive probabilities.
struct LogProbabilities {
    x: u64,
    hi: u64,
    r1: f64,
    r2: f64,
    c1: f64,
    sum: KahanSum,
    done: bool,
}

impl LogProbabilities {
    fn new(lo: u64, hi: u64, row1: u64, row2: u64, col1: u64) -> LogProbabilities {
        LogProbabilities {
            x: lo,
            hi,
            r1: row1 as f64,
            r2: row2 as f64,
            c1: col1 as f64,
            sum: KahanSum::default(),
            done: false,
        }
    }
}

impl Iterator for LogProbabilities {
    type Item = (u64, f64);

    fn next(&mut self) -> Option<(u64, f64)> {
        if self.done {
            return None;
        }
        let item = (self.x, self.sum.value());
        if self.x == self.hi {
            self.done = true;
        } else {
            let x = self.x as f64;
            // P(x+1) / P(x) = (r₁−x)(c₁−x) / ((x+1)(r₂−c₁+x+1)); every
            // factor is positive for lo ≤ x < hi.
            let ratio =
                ((self.r1 - x) * (self.c1 - x)) / ((x + 1.0) * (self.r2 - self.c1 + x + 1.0));
            self.sum.add(ratio.ln());
            self.x += 1;
        }
        Some(item)
    }
}

/// Neumaier's compensated summation.
#[derive(Default)]
struct KahanSum {
    sum: f64,
    compensation: f64,
}

impl KahanSum {
    fn add(&mut self, value: f64) {
        let t = self.sum + value;
        if self.sum.abs() >= value.abs() {
            self.compensation += (self.sum - t) + value;
        } else {
            self.compensation += (value - t) + self.sum;
        }
        self.sum = t;
    }

    fn value(&self) -> f64 {
        self.sum + self.compensation
    }
}

/// One rate before and after.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RateComparison {
    /// The baseline's rate.
    pub baseline: Rate,
    /// The current run's rate.
    pub current: Rate,
    /// `current.rate − baseline.rate`, in `[−1, 1]`.
    pub difference: f64,
    /// The two-sided p-value of Fisher's exact test ([`fisher_exact`]) on
    /// `[[baseline passed, baseline not passed], [current passed, current
    /// not passed]]`.
    pub p_value: f64,
    /// `p_value < ALPHA` ([`ALPHA`] = 0.05).
    pub significant: bool,
    /// Significant and lower than the baseline.
    pub regression: bool,
    /// Significant and higher than the baseline.
    pub improvement: bool,
}

impl RateComparison {
    /// Compares two rates.
    #[must_use]
    pub fn new(baseline: Rate, current: Rate) -> RateComparison {
        let p_value = fisher_exact(
            baseline.passed,
            baseline.failed(),
            current.passed,
            current.failed(),
        );
        let difference = current.rate - baseline.rate;
        let significant = p_value < ALPHA;
        RateComparison {
            baseline,
            current,
            difference,
            p_value,
            significant,
            regression: significant && difference < 0.0,
            improvement: significant && difference > 0.0,
        }
    }
}

/// One check's pass rate before and after.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckComparison {
    /// The check's id.
    pub id: String,
    /// Its pass rates.
    pub comparison: RateComparison,
}

/// A fixture present in both runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FixtureComparison {
    /// The contract id.
    pub contract: String,
    /// The fixture id.
    pub fixture: String,
    /// The pass rates.
    pub pass_rate: RateComparison,
    /// The schema-valid rates.
    pub schema_valid_rate: RateComparison,
    /// The checks present in both runs, in the current run's order.
    pub checks: Vec<CheckComparison>,
    /// Checks only in the current run.
    pub added_checks: Vec<String>,
    /// Checks only in the baseline.
    pub removed_checks: Vec<String>,
}

impl FixtureComparison {
    /// Whether any of its rates regressed.
    #[must_use]
    pub fn has_regression(&self) -> bool {
        self.pass_rate.regression
            || self.schema_valid_rate.regression
            || self.checks.iter().any(|c| c.comparison.regression)
    }
}

/// A contract present in both runs, its rates pooled over its fixtures
/// (the fixtures of each run, which may differ: see
/// [`Comparison::added_fixtures`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContractComparison {
    /// The contract id.
    pub contract: String,
    /// The baseline's interaction fingerprint, when it was recorded.
    pub baseline_interaction_fingerprint: Option<String>,
    /// The current run's interaction fingerprint, when it was recorded.
    pub current_interaction_fingerprint: Option<String>,
    /// Both fingerprints are known and differ: the interaction changed
    /// between the runs.
    pub interaction_changed: bool,
    /// The judges of its model-graded checks whose contract changed
    /// between the runs (`docs/eval.md`, "Judges"): another fingerprint,
    /// or a judge of one run only; by id. Empty when the baseline recorded
    /// no judges and the run has none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judges_changed: Vec<String>,
    /// The pooled pass rates.
    pub pass_rate: RateComparison,
    /// The pooled schema-valid rates.
    pub schema_valid_rate: RateComparison,
}

/// A fixture of one run only.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FixtureKey {
    /// The contract id.
    pub contract: String,
    /// The fixture id.
    pub fixture: String,
}

/// A run compared with a baseline run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The significance level used ([`ALPHA`]).
    pub alpha: f64,
    /// The pass rates over the whole runs.
    pub overall_pass_rate: RateComparison,
    /// Contracts in both runs, by id.
    pub contracts: Vec<ContractComparison>,
    /// Fixtures in both runs, in the order of [`RunStats::fixtures`].
    pub fixtures: Vec<FixtureComparison>,
    /// Contracts only in the current run.
    pub added_contracts: Vec<String>,
    /// Contracts only in the baseline.
    pub removed_contracts: Vec<String>,
    /// Fixtures only in the current run (those of added contracts
    /// included), sorted.
    pub added_fixtures: Vec<FixtureKey>,
    /// Fixtures only in the baseline (those of removed contracts
    /// included), sorted.
    pub removed_fixtures: Vec<FixtureKey>,
}

impl Comparison {
    /// The comparison of one fixture.
    #[must_use]
    pub fn fixture(&self, contract: &str, fixture: &str) -> Option<&FixtureComparison> {
        self.fixtures
            .iter()
            .find(|f| f.contract == contract && f.fixture == fixture)
    }

    /// The comparison of one contract.
    #[must_use]
    pub fn contract(&self, contract: &str) -> Option<&ContractComparison> {
        self.contracts.iter().find(|c| c.contract == contract)
    }

    /// Whether any fixture's rate regressed.
    #[must_use]
    pub fn has_regression(&self) -> bool {
        self.fixtures.iter().any(FixtureComparison::has_regression)
    }
}

fn compare_checks(
    baseline: &Summary,
    current: &Summary,
) -> (Vec<CheckComparison>, Vec<String>, Vec<String>) {
    let before: BTreeMap<&str, &Rate> = baseline
        .checks
        .iter()
        .map(|c| (c.id.as_str(), &c.rate))
        .collect();
    let mut checks = Vec::new();
    let mut added = Vec::new();
    for check in &current.checks {
        match before.get(check.id.as_str()) {
            Some(&&rate) => checks.push(CheckComparison {
                id: check.id.clone(),
                comparison: RateComparison::new(rate, check.rate),
            }),
            None => added.push(check.id.clone()),
        }
    }
    let removed = baseline
        .checks
        .iter()
        .filter(|b| !current.checks.iter().any(|c| c.id == b.id))
        .map(|b| b.id.clone())
        .collect();
    (checks, added, removed)
}

/// Compares the current run's statistics with the baseline's.
#[must_use]
pub fn compare(baseline: &RunStats, current: &RunStats) -> Comparison {
    let mut contracts = Vec::new();
    let mut added_contracts = Vec::new();
    for c in &current.contracts {
        match baseline.contract(&c.contract) {
            Some(b) => contracts.push(ContractComparison {
                contract: c.contract.clone(),
                baseline_interaction_fingerprint: b.interaction_fingerprint.clone(),
                current_interaction_fingerprint: c.interaction_fingerprint.clone(),
                interaction_changed: matches!(
                    (&b.interaction_fingerprint, &c.interaction_fingerprint),
                    (Some(x), Some(y)) if x != y
                ),
                judges_changed: b
                    .judges
                    .keys()
                    .chain(c.judges.keys())
                    .filter(|j| b.judges.get(*j) != c.judges.get(*j))
                    .fold(Vec::new(), |mut out: Vec<String>, j| {
                        if !out.contains(j) {
                            out.push(j.clone());
                        }
                        out
                    }),
                pass_rate: RateComparison::new(b.summary.pass_rate, c.summary.pass_rate),
                schema_valid_rate: RateComparison::new(
                    b.summary.schema_valid_rate,
                    c.summary.schema_valid_rate,
                ),
            }),
            None => added_contracts.push(c.contract.clone()),
        }
    }
    let removed_contracts = baseline
        .contracts
        .iter()
        .filter(|b| current.contract(&b.contract).is_none())
        .map(|b| b.contract.clone())
        .collect();

    let mut fixtures = Vec::new();
    let mut added_fixtures = Vec::new();
    for f in &current.fixtures {
        let Some(b) = baseline.fixture(&f.contract, &f.fixture) else {
            added_fixtures.push(FixtureKey {
                contract: f.contract.clone(),
                fixture: f.fixture.clone(),
            });
            continue;
        };
        let (checks, added_checks, removed_checks) = compare_checks(&b.summary, &f.summary);
        fixtures.push(FixtureComparison {
            contract: f.contract.clone(),
            fixture: f.fixture.clone(),
            pass_rate: RateComparison::new(b.summary.pass_rate, f.summary.pass_rate),
            schema_valid_rate: RateComparison::new(
                b.summary.schema_valid_rate,
                f.summary.schema_valid_rate,
            ),
            checks,
            added_checks,
            removed_checks,
        });
    }
    let removed_fixtures = baseline
        .fixtures
        .iter()
        .filter(|b| current.fixture(&b.contract, &b.fixture).is_none())
        .map(|b| FixtureKey {
            contract: b.contract.clone(),
            fixture: b.fixture.clone(),
        })
        .collect();

    Comparison {
        alpha: ALPHA,
        overall_pass_rate: RateComparison::new(
            baseline.overall.summary.pass_rate,
            current.overall.summary.pass_rate,
        ),
        contracts,
        fixtures,
        added_contracts,
        removed_contracts,
        added_fixtures,
        removed_fixtures,
    }
}

/// A p-value as the terminal prints it: `p = 0.455` (three decimals), or,
/// below 0.001, two significant digits (`p = 2.3e-5`); one that
/// underflowed to 0 (a difference over many executions) as `p < 1e-300`,
/// never `p = 0.0e0`.
#[must_use]
pub fn p_value_text(p: f64) -> String {
    if p <= 0.0 {
        "p < 1e-300".to_owned()
    } else if p < 0.001 {
        format!("p = {p:.1e}")
    } else {
        format!("p = {p:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Verdict;
    use crate::stats::Accumulator;
    use crate::stats::tests::record;

    fn relative(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    #[test]
    fn fisher_matches_known_values() {
        // ([[a, b], [c, d]], two-sided p) at full precision as SciPy
        // 1.18's `fisher_exact` gives them, tables of up to 2·10⁶. The
        // first three are the textbook values: [[1, 9], [11, 3]]
        // p ≈ 0.002759; Fisher's tea-tasting experiment [[3, 1], [1, 3]]
        // p = 34/70 ≈ 0.4857; [[10, 0], [0, 10]] p = 2 / C(20, 10) =
        // 1/92378 ≈ 1.083e-5 (checked below against those).
        let cases: [([u64; 4], f64); 8] = [
            ([1, 9, 11, 3], 0.002_759_456_185_220_083_6),
            ([3, 1, 1, 3], 0.485_714_285_714_285_65),
            ([10, 0, 0, 10], 1.082_508_822_446_903e-5),
            ([100, 0, 95, 5], 0.059_383_210_468_586_585),
            ([7, 3, 2, 8], 0.069_778_518_694_927_36),
            ([0, 0, 0, 5], 1.0),
            ([480_000, 20_000, 479_000, 21_000], 4.696_839_511_844_761e-7),
            ([999_000, 1000, 998_900, 1100], 0.030_633_077_749_263_5),
        ];
        for ([a, b, c, d], expected) in cases {
            let p = fisher_exact(a, b, c, d);
            assert!(
                relative(p, expected) < 1e-8,
                "[[{a}, {b}], [{c}, {d}]]: {p}, expected {expected}"
            );
        }
        assert!(relative(fisher_exact(1, 9, 11, 3), 0.002759) < 1e-3);
        assert!(relative(fisher_exact(3, 1, 1, 3), 34.0 / 70.0) < 1e-12);
        assert!(relative(fisher_exact(10, 0, 0, 10), 1.0 / 92_378.0) < 1e-12);
    }

    #[test]
    fn fisher_edge_cases() {
        assert_eq!(fisher_exact(0, 0, 0, 0), 1.0);
        assert_eq!(fisher_exact(5, 0, 7, 0), 1.0);
        assert_eq!(fisher_exact(0, 5, 0, 7), 1.0);
        assert_eq!(fisher_exact(4, 4, 0, 0), 1.0);
        // The most probable table of a symmetric design: every table is as
        // or less probable.
        let p = fisher_exact(500_000, 500_000, 500_000, 500_000);
        assert!((p - 1.0).abs() < 1e-9, "{p}");
        // Extremely improbable tables stay in [0, 1] and ordered.
        let far = fisher_exact(1_000_000, 0, 0, 1_000_000);
        assert!((0.0..1e-300).contains(&far), "{far}");
        // Symmetric under swapping rows, swapping columns and transposing.
        for [a, b, c, d] in [[1u64, 9, 11, 3], [7, 3, 2, 8], [30, 70, 45, 55]] {
            let p = fisher_exact(a, b, c, d);
            for q in [
                fisher_exact(c, d, a, b),
                fisher_exact(b, a, d, c),
                fisher_exact(a, c, b, d),
            ] {
                assert!(relative(q, p) < 1e-12, "{p} vs {q}");
            }
        }
    }

    /// Exact rational arithmetic for small tables: the p-value as a sum of
    /// binomial products, ties decided exactly.
    fn exact_fisher(a: u64, b: u64, c: u64, d: u64) -> f64 {
        fn choose(n: u64, k: u64) -> u128 {
            (0..k).fold(1u128, |acc, i| acc * u128::from(n - i) / u128::from(i + 1))
        }
        let (r1, r2, c1) = (a + b, c + d, a + c);
        let weight = |x: u64| choose(r1, x) * choose(r2, c1 - x);
        let observed = weight(a);
        let (lo, hi) = (c1.saturating_sub(r2), r1.min(c1));
        let total: u128 = (lo..=hi).map(weight).sum();
        let tail: u128 = (lo..=hi).map(weight).filter(|&w| w <= observed).sum();
        tail as f64 / total as f64
    }

    #[test]
    fn fisher_agrees_with_exact_arithmetic_on_every_small_table() {
        for n in 0..=24u64 {
            for a in 0..=n {
                for b in 0..=n - a {
                    for c in 0..=n - a - b {
                        let d = n - a - b - c;
                        let (p, exact) = (fisher_exact(a, b, c, d), exact_fisher(a, b, c, d));
                        assert!(
                            (p - exact).abs() <= 1e-12 * exact.max(1e-300),
                            "[[{a}, {b}], [{c}, {d}]]: {p} vs exact {exact}"
                        );
                    }
                }
            }
        }
    }

    fn run(fixtures: &[(&str, &str, u32, u32)], interaction: Option<&str>) -> RunStats {
        let mut acc = Accumulator::new();
        for &(contract, fixture, passed, total) in fixtures {
            if let Some(fp) = interaction {
                acc.set_interaction_fingerprint(contract, fp);
            }
            for repeat in 0..total {
                let verdict = if repeat < passed {
                    Verdict::Pass
                } else {
                    Verdict::Fail
                };
                acc.push(&record(
                    contract,
                    fixture,
                    repeat,
                    true,
                    &[("ok", verdict)],
                    1.0,
                ));
            }
        }
        acc.stats()
    }

    #[test]
    fn compares_fixtures_checks_and_contracts() {
        let baseline = run(
            &[
                ("c", "f", 20, 20),
                ("c", "g", 5, 20),
                ("c", "old", 1, 1),
                ("gone", "x", 1, 1),
            ],
            Some("sha256:aa"),
        );
        let current = run(
            &[
                ("c", "f", 10, 20),
                ("c", "g", 15, 20),
                ("c", "new", 1, 1),
                ("fresh", "y", 1, 1),
            ],
            Some("sha256:bb"),
        );
        let cmp = compare(&baseline, &current);
        assert_eq!(cmp.alpha, 0.05);

        let f = cmp.fixture("c", "f").unwrap();
        assert_eq!(f.pass_rate.baseline, Rate::new(20, 20));
        assert_eq!(f.pass_rate.current, Rate::new(10, 20));
        assert_eq!(f.pass_rate.difference, -0.5);
        assert!(relative(f.pass_rate.p_value, fisher_exact(20, 0, 10, 10)) < 1e-15);
        assert!(f.pass_rate.significant && f.pass_rate.regression && !f.pass_rate.improvement);
        assert_eq!(f.checks.len(), 1);
        assert!(f.checks[0].comparison.regression);
        assert!(!f.schema_valid_rate.significant);
        assert_eq!(f.schema_valid_rate.p_value, 1.0);
        assert!(f.has_regression());

        let g = cmp.fixture("c", "g").unwrap();
        assert!(g.pass_rate.improvement && !g.pass_rate.regression);
        assert!(!g.has_regression());
        assert!(cmp.has_regression());

        let key = |c: &str, f: &str| FixtureKey {
            contract: c.into(),
            fixture: f.into(),
        };
        assert_eq!(cmp.added_fixtures, [key("c", "new"), key("fresh", "y")]);
        assert_eq!(cmp.removed_fixtures, [key("c", "old"), key("gone", "x")]);
        assert_eq!(cmp.added_contracts, ["fresh"]);
        assert_eq!(cmp.removed_contracts, ["gone"]);

        let c = cmp.contract("c").unwrap();
        assert!(c.interaction_changed);
        assert_eq!(
            c.baseline_interaction_fingerprint.as_deref(),
            Some("sha256:aa")
        );
        assert_eq!(
            c.current_interaction_fingerprint.as_deref(),
            Some("sha256:bb")
        );
        assert_eq!(c.pass_rate.baseline, Rate::new(26, 41));
        assert_eq!(c.pass_rate.current, Rate::new(26, 41));
        assert!(!c.pass_rate.significant);

        // Same interaction, or unknown on one side: not changed.
        let same = compare(&baseline, &baseline);
        assert!(!same.contract("c").unwrap().interaction_changed);
        assert!(!same.has_regression());
        assert_eq!(same.fixture("c", "f").unwrap().pass_rate.p_value, 1.0);
        let unknown = run(&[("c", "f", 20, 20)], None);
        assert!(
            !compare(&baseline, &unknown)
                .contract("c")
                .unwrap()
                .interaction_changed
        );
    }

    #[test]
    fn added_and_removed_checks() {
        let mut before = Accumulator::new();
        before.push(&record(
            "c",
            "f",
            0,
            true,
            &[("a", Verdict::Pass), ("b", Verdict::Pass)],
            1.0,
        ));
        let mut after = Accumulator::new();
        after.push(&record(
            "c",
            "f",
            0,
            true,
            &[("b", Verdict::Pass), ("n", Verdict::Fail)],
            1.0,
        ));
        let cmp = compare(&before.stats(), &after.stats());
        let f = cmp.fixture("c", "f").unwrap();
        assert_eq!(
            f.checks.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
            ["b"]
        );
        assert_eq!(f.added_checks, ["n"]);
        assert_eq!(f.removed_checks, ["a"]);
    }

    #[test]
    fn serializes() {
        let baseline = run(&[("c", "f", 20, 20)], Some("sha256:aa"));
        let current = run(&[("c", "f", 10, 20)], Some("sha256:aa"));
        let cmp = compare(&baseline, &current);
        let json = serde_json::to_string(&cmp).unwrap();
        let back: Comparison = serde_json::from_str(&json).unwrap();
        assert_eq!(back, cmp);
    }

    #[test]
    fn p_values_print_without_zero() {
        assert_eq!(p_value_text(0.4551), "p = 0.455");
        assert_eq!(p_value_text(0.000_023), "p = 2.3e-5");
        assert_eq!(p_value_text(0.0), "p < 1e-300");
    }
}
