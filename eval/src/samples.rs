//! Which executions a run keeps as samples, with their evidence, for the
//! failures it shows and the reports (`docs/eval.md`, "Output and
//! reports"): a bounded number per fixture, whatever the number of
//! executions or of dataset rows.

use std::collections::HashMap;

use crate::record::ExecutionRecord;
use crate::select::dataset_row;
use crate::stats::FAILING_ROWS_LISTED;

/// Decides, execution by execution, which to keep: per variant and inline
/// fixture, the first `keep` failing and the first `keep` passing; per
/// variant and dataset entry (`docs/eval.md`, "Datasets"), the first
/// `keep` passing executions of any row, and the first `keep` failing
/// executions of each of its first [`FAILING_ROWS_LISTED`] rows to fail.
#[derive(Debug)]
pub(crate) struct Sampler {
    keep: usize,
    /// (variant, contract, fixture or dataset entry) → what was kept.
    kept: HashMap<(usize, String, String), Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    passing: usize,
    failing: usize,
    /// A dataset entry's failing rows sampled, with the executions kept of
    /// each.
    rows: Vec<(String, usize)>,
}

impl Sampler {
    /// Keeps `keep` of each kind (0: none).
    pub(crate) fn new(keep: usize) -> Sampler {
        Sampler {
            keep,
            kept: HashMap::new(),
        }
    }

    /// Whether to keep `record`, an execution of variant `variant` (0 for a
    /// run of one).
    pub(crate) fn take(&mut self, variant: usize, record: &ExecutionRecord) -> bool {
        if self.keep == 0 {
            return false;
        }
        let (fixture, row) = match dataset_row(&record.fixture) {
            Some((entry, row)) => (entry, Some(row)),
            None => (record.fixture.as_str(), None),
        };
        let key = (variant, record.contract.clone(), fixture.to_owned());
        let kept = self.kept.entry(key).or_default();
        let count = match (record.passed(), row) {
            (true, _) => &mut kept.passing,
            (false, None) => &mut kept.failing,
            (false, Some(row)) => {
                let i = match kept.rows.iter().position(|(id, _)| id == row) {
                    Some(i) => i,
                    None if kept.rows.len() < FAILING_ROWS_LISTED => {
                        kept.rows.push((row.to_owned(), 0));
                        kept.rows.len() - 1
                    }
                    None => return false,
                };
                &mut kept.rows[i].1
            }
        };
        if *count < self.keep {
            *count += 1;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Verdict;
    use crate::stats::tests::record;

    fn execution(fixture: &str, repeat: u32, pass: bool) -> ExecutionRecord {
        let verdict = if pass { Verdict::Pass } else { Verdict::Fail };
        record("c", fixture, repeat, true, &[("x", verdict)], 1.0)
    }

    #[test]
    fn an_inline_fixture_keeps_the_first_failing_and_passing() {
        let mut sampler = Sampler::new(2);
        let kept: Vec<bool> = [false, true, false, false, true, true]
            .iter()
            .enumerate()
            .map(|(r, pass)| sampler.take(0, &execution("a", r as u32, *pass)))
            .collect();
        assert_eq!(kept, [true, true, true, false, true, false]);
        // Another variant keeps its own.
        assert!(sampler.take(1, &execution("a", 0, false)));
    }

    #[test]
    fn a_dataset_entry_keeps_a_bounded_number_of_rows() {
        let mut sampler = Sampler::new(2);
        let mut kept = 0;
        for i in 0..1000 {
            for r in 0..3 {
                kept +=
                    usize::from(sampler.take(0, &execution(&format!("rows#{i}"), r, i % 2 == 0)));
            }
        }
        // 2 passing executions; 2 of each of the first 20 failing rows.
        assert_eq!(kept, 2 + 2 * FAILING_ROWS_LISTED);
        assert!(!sampler.take(0, &execution("rows#999", 3, false)));
        assert!(!sampler.take(0, &execution("rows#1", 3, false)));
        assert_eq!(sampler.kept.len(), 1);
    }

    #[test]
    fn nothing_is_kept_at_zero() {
        let mut sampler = Sampler::new(0);
        assert!(!sampler.take(0, &execution("a", 0, false)));
        assert!(sampler.kept.is_empty());
    }
}
