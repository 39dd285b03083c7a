//! The latency distribution of a set of executions (`docs/eval.md`,
//! "Statistics"): a sparse histogram of logarithmic buckets whose memory
//! does not grow with the number of executions, the nearest-rank
//! percentiles read from it, and the coarser buckets a report draws.
//! Latencies are in milliseconds.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One bucket of a latency histogram: executions whose latency `l`
/// satisfies `low_ms <= l < high_ms` (a latency under 1 µs counts in the
/// bucket of 1 µs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatencyBucket {
    /// The bucket's lower bound, in milliseconds.
    pub low_ms: f64,
    /// The bucket's upper bound (exclusive), in milliseconds.
    pub high_ms: f64,
    /// Executions in the bucket.
    pub count: u64,
}

/// The latency distribution of a set of executions (wall-clock time of
/// every attempt, [`ExecutionRecord::latency_ms`](crate::ExecutionRecord::latency_ms)), in milliseconds.
///
/// Percentiles are nearest-rank (the smallest latency at or below which
/// at least that share of executions lies) read from a histogram of 100
/// logarithmic buckets per decade: each is the geometric centre of its
/// bucket, within 1.2% of the exact value, and clamped to
/// `[min_ms, max_ms]`, which are exact. A latency that is not a finite
/// non-negative number counts as 0 ms. Everything is `None` without executions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatencyStats {
    /// The median, in milliseconds.
    pub p50_ms: Option<f64>,
    /// The 95th percentile, in milliseconds.
    pub p95_ms: Option<f64>,
    /// The smallest latency, in milliseconds.
    pub min_ms: Option<f64>,
    /// The largest latency, in milliseconds.
    pub max_ms: Option<f64>,
    /// The mean latency, in milliseconds.
    pub mean_ms: Option<f64>,
    /// The sum of the latencies, in milliseconds.
    pub total_ms: f64,
    /// The histogram for display: 10 logarithmic buckets per decade
    /// (bounds `10^(k/10)` ms), contiguous from the bucket of the smallest
    /// latency to that of the largest, empty buckets included. Empty
    /// without executions.
    pub histogram: Vec<LatencyBucket>,
}

/// Fine histogram buckets per decade (bucket `i` holds `[10^(i/100),
/// 10^((i+1)/100))` ms).
const FINE_PER_DECADE: i32 = 100;
/// Display buckets per decade; divides [`FINE_PER_DECADE`].
const DISPLAY_PER_DECADE: i32 = 10;
/// Latencies below this (1 µs) share its bucket.
const MIN_BUCKETED_MS: f64 = 1e-3;
/// Latencies above this (about 11.6 days) share its bucket.
const MAX_BUCKETED_MS: f64 = 1e9;

/// A sparse log-bucketed latency histogram: memory grows with the number
/// of distinct buckets hit (at most 1,200), not with executions.
#[derive(Clone, Debug, Default)]
pub(crate) struct Histogram {
    buckets: BTreeMap<i32, u64>,
    count: u64,
    sum_ms: f64,
    min_ms: f64,
    max_ms: f64,
}

/// A latency that is not a finite non-negative number counts as 0 ms.
pub(crate) fn sanitize_latency(ms: f64) -> f64 {
    if ms.is_finite() && ms >= 0.0 { ms } else { 0.0 }
}

fn fine_bucket(ms: f64) -> i32 {
    let clamped = ms.clamp(MIN_BUCKETED_MS, MAX_BUCKETED_MS);
    // In range: |log10| <= 9, so the product fits an i32 exactly.
    (clamped.log10() * f64::from(FINE_PER_DECADE)).floor() as i32
}

impl Histogram {
    pub(crate) fn record(&mut self, ms: f64) {
        let ms = sanitize_latency(ms);
        *self.buckets.entry(fine_bucket(ms)).or_insert(0) += 1;
        if self.count == 0 {
            self.min_ms = ms;
            self.max_ms = ms;
        } else {
            self.min_ms = self.min_ms.min(ms);
            self.max_ms = self.max_ms.max(ms);
        }
        self.count += 1;
        self.sum_ms += ms;
    }

    pub(crate) fn merge(&mut self, other: &Histogram) {
        if other.count == 0 {
            return;
        }
        for (&bucket, &count) in &other.buckets {
            *self.buckets.entry(bucket).or_insert(0) += count;
        }
        if self.count == 0 {
            self.min_ms = other.min_ms;
            self.max_ms = other.max_ms;
        } else {
            self.min_ms = self.min_ms.min(other.min_ms);
            self.max_ms = self.max_ms.max(other.max_ms);
        }
        self.count += other.count;
        self.sum_ms += other.sum_ms;
    }

    /// The nearest-rank percentile `q` in `(0, 1]`.
    fn percentile(&self, q: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        // The extremes are kept exactly.
        if rank == 1 {
            return Some(self.min_ms);
        }
        if rank == self.count {
            return Some(self.max_ms);
        }
        let mut seen = 0;
        for (&bucket, &count) in &self.buckets {
            seen += count;
            if seen >= rank {
                let centre = 10f64.powf((f64::from(bucket) + 0.5) / f64::from(FINE_PER_DECADE));
                return Some(centre.clamp(self.min_ms, self.max_ms));
            }
        }
        Some(self.max_ms)
    }

    fn display(&self) -> Vec<LatencyBucket> {
        let step = FINE_PER_DECADE / DISPLAY_PER_DECADE;
        let (Some((&first, _)), Some((&last, _))) = (
            self.buckets.first_key_value(),
            self.buckets.last_key_value(),
        ) else {
            return Vec::new();
        };
        let (first, last) = (first.div_euclid(step), last.div_euclid(step));
        let mut counts = vec![0u64; (last - first + 1) as usize];
        for (&bucket, &count) in &self.buckets {
            counts[(bucket.div_euclid(step) - first) as usize] += count;
        }
        let bound = |k: i32| 10f64.powf(f64::from(k) / f64::from(DISPLAY_PER_DECADE));
        counts
            .into_iter()
            .zip(first..)
            .map(|(count, k)| LatencyBucket {
                low_ms: bound(k),
                high_ms: bound(k + 1),
                count,
            })
            .collect()
    }

    pub(crate) fn stats(&self) -> LatencyStats {
        let some = |v: f64| (self.count > 0).then_some(v);
        LatencyStats {
            p50_ms: self.percentile(0.50),
            p95_ms: self.percentile(0.95),
            min_ms: some(self.min_ms),
            max_ms: some(self.max_ms),
            mean_ms: some(self.sum_ms / self.count.max(1) as f64),
            total_ms: self.sum_ms,
            histogram: self.display(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn latency_percentiles_stay_within_the_bucket_error() {
        let mut h = Histogram::default();
        for i in 1..=10_000u32 {
            h.record(f64::from(i) * 0.37);
        }
        for (q, exact) in [(0.5, 5_000.0 * 0.37), (0.95, 9_500.0 * 0.37)] {
            let estimate = h.percentile(q).unwrap();
            assert!(
                ((estimate - exact) / exact).abs() < 0.012,
                "{q}: {estimate} vs {exact}"
            );
        }
        // Flat memory: 10,000 values in at most 100 buckets per decade.
        assert!(h.buckets.len() <= 401, "{}", h.buckets.len());
        let display = h.display();
        assert_eq!(display.iter().map(|b| b.count).sum::<u64>(), 10_000);
        assert!(display.first().unwrap().low_ms <= 0.37);
        assert!(display.last().unwrap().high_ms > 3700.0);
        for pair in display.windows(2) {
            assert!(close(
                pair[0].high_ms,
                pair[1].low_ms,
                1e-9 * pair[1].low_ms
            ));
        }
        // Degenerate latencies still count.
        let mut h = Histogram::default();
        for ms in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e12] {
            h.record(ms);
        }
        assert_eq!(h.count, 5);
        assert!(h.percentile(0.5).unwrap() < 0.0011);
        assert_eq!(h.percentile(0.01), Some(0.0));
        assert_eq!(h.percentile(1.0), Some(1e12));
    }
}
