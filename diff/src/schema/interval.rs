//! Numeric bounds as intervals with exact endpoints, and the integers
//! inside them (bounds beyond ±2^100 are compared only when equal).

use std::cmp::Ordering;
use templiqx_contracts::{Number, Schema};

/// The numeric bounds of a schema as an interval with exact endpoints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Interval {
    /// `(bound, inclusive)`.
    pub(super) lo: Option<(Number<'static>, bool)>,
    pub(super) hi: Option<(Number<'static>, bool)>,
}

/// Integer bounds beyond ±2^100 are not normalised.
const HUGE: f64 = 1_267_650_600_228_229_401_496_703_205_376.0;

/// An end of an integer range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum IntEnd {
    NegInf,
    Int(i128),
    PosInf,
}

pub(super) fn cmp(a: Number<'_>, b: Number<'_>) -> Ordering {
    a.cmp_exact(b).unwrap_or(Ordering::Equal)
}

impl Interval {
    pub(super) fn of(s: &Schema) -> Interval {
        let tighter = |incl: Option<Number<'static>>,
                       excl: Option<Number<'static>>,
                       higher_is_tighter: bool| {
            match (incl, excl) {
                (None, None) => None,
                (Some(m), None) => Some((m, true)),
                (None, Some(e)) => Some((e, false)),
                (Some(m), Some(e)) => {
                    let o = cmp(e, m);
                    let excl_wins = if higher_is_tighter {
                        o != Ordering::Less
                    } else {
                        o != Ordering::Greater
                    };
                    Some(if excl_wins { (e, false) } else { (m, true) })
                }
            }
        };
        Interval {
            lo: tighter(s.minimum, s.exclusive_minimum, true),
            hi: tighter(s.maximum, s.exclusive_maximum, false),
        }
    }

    /// The smallest and largest integers inside; `Err` for a bound beyond
    /// ±2^100.
    pub(super) fn integers(&self) -> Result<(IntEnd, IntEnd), ()> {
        let lo = match self.lo {
            None => IntEnd::NegInf,
            Some((n, incl)) => IntEnd::Int(int_above(n, incl)?),
        };
        let hi = match self.hi {
            None => IntEnd::PosInf,
            Some((n, incl)) => IntEnd::Int(int_below(n, incl)?),
        };
        Ok((lo, hi))
    }

    /// Whether it holds more than one point, or one that is not an integer:
    /// whether it holds non-integer numbers.
    pub(super) fn has_fractions(&self) -> bool {
        match (self.lo, self.hi) {
            (Some((lo, _)), Some((hi, _))) => match cmp(lo, hi) {
                Ordering::Less => true,
                Ordering::Equal => !lo.is_integer(),
                Ordering::Greater => false,
            },
            _ => true,
        }
    }

    /// Whether every non-integer number inside `self` is inside `b`.
    pub(super) fn fractions_within(&self, b: &Interval) -> bool {
        if !self.has_fractions() {
            return true;
        }
        if let (Some((lo, _)), Some((hi, _))) = (self.lo, self.hi)
            && cmp(lo, hi) == Ordering::Equal
        {
            return b.contains(lo);
        }
        // A proper interval: its infimum (supremum) is approached by
        // fractions, and is one itself when included and not an integer.
        let lower_ok = match (b.lo, self.lo) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some((bv, bincl)), Some((av, aincl))) => match cmp(av, bv) {
                Ordering::Greater => true,
                Ordering::Less => false,
                Ordering::Equal => bincl || !aincl || av.is_integer(),
            },
        };
        let upper_ok = match (b.hi, self.hi) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some((bv, bincl)), Some((av, aincl))) => match cmp(av, bv) {
                Ordering::Less => true,
                Ordering::Greater => false,
                Ordering::Equal => bincl || !aincl || av.is_integer(),
            },
        };
        lower_ok && upper_ok
    }

    fn contains(&self, n: Number<'_>) -> bool {
        let lo = self.lo.is_none_or(|(b, incl)| match cmp(n, b) {
            Ordering::Greater => true,
            Ordering::Equal => incl,
            Ordering::Less => false,
        });
        let hi = self.hi.is_none_or(|(b, incl)| match cmp(n, b) {
            Ordering::Less => true,
            Ordering::Equal => incl,
            Ordering::Greater => false,
        });
        lo && hi
    }
}

/// The smallest integer ≥ `n` (`> n` when not `incl`).
fn int_above(n: Number<'_>, incl: bool) -> Result<i128, ()> {
    let step = i128::from(!incl);
    match n {
        Number::I64(i) => Ok(i128::from(i) + step),
        Number::U64(u) => Ok(i128::from(u) + step),
        Number::F64(f) if f.is_finite() && f.abs() < HUGE => {
            let c = f.ceil();
            // Exact: |c| < 2^100 fits an i128.
            let c = c as i128;
            Ok(if f.fract() == 0.0 { c + step } else { c })
        }
        _ => Err(()),
    }
}

/// The largest integer ≤ `n` (`< n` when not `incl`).
fn int_below(n: Number<'_>, incl: bool) -> Result<i128, ()> {
    let step = i128::from(!incl);
    match n {
        Number::I64(i) => Ok(i128::from(i) - step),
        Number::U64(u) => Ok(i128::from(u) - step),
        Number::F64(f) if f.is_finite() && f.abs() < HUGE => {
            let c = f.floor() as i128;
            Ok(if f.fract() == 0.0 { c - step } else { c })
        }
        _ => Err(()),
    }
}
