//! `Number::cmp_exact` with a `BigInt` agrees with exact integer arithmetic
//! against every kind of number (docs/decisions.md, "Canonical JSON: exact
//! big integers").

use proptest::prelude::*;
use std::cmp::Ordering;
use templiqx_contracts::{BigInt, Number};

/// Integers outside both `i64` and `u64`, as `i128`, where most doubles
/// that compare interestingly live (±2^63…2^70, and up to ±2^126).
fn wide() -> impl Strategy<Value = i128> {
    prop_oneof![
        (i128::from(i64::MIN) - (1 << 70))..i128::from(i64::MIN),
        (i128::from(u64::MAX) + 1)..(1i128 << 70),
        any::<i128>().prop_filter("beyond 64 bits", |i| {
            i64::try_from(*i).is_err() && u64::try_from(*i).is_err()
        }),
    ]
}

/// Doubles near the integer `i`, and anywhere.
fn near(i: i128) -> impl Strategy<Value = f64> {
    let f = i as f64;
    prop_oneof![
        Just(f),
        (-4i64..=4).prop_map(move |steps| f64::from_bits((f.to_bits() as i64 + steps) as u64)),
        any::<f64>().prop_filter("finite", |f| f.is_finite()),
        (-1e20f64..1e20),
    ]
}

/// The exact ordering of the integer `i` against the double `f`.
fn exact(i: i128, f: f64) -> Ordering {
    if f.abs() >= 2f64.powi(127) {
        return if f > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    let whole = f.trunc();
    // |whole| < 2^127: the cast is exact.
    i.cmp(&(whole as i128))
        .then_with(|| 0.0f64.partial_cmp(&(f - whole)).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn big_integers_order_exactly_against_doubles((i, f) in wide().prop_flat_map(|i| (Just(i), near(i)))) {
        let digits = i.to_string();
        let big = Number::Big(BigInt::parse(&digits).unwrap());
        prop_assert_eq!(big.cmp_exact(Number::F64(f)), Some(exact(i, f)), "{} vs {:e}", digits, f);
        prop_assert_eq!(Number::F64(f).cmp_exact(big), Some(exact(i, f).reverse()));
    }

    #[test]
    fn big_integers_order_exactly_against_each_other(a in wide(), b in wide()) {
        let (x, y) = (a.to_string(), b.to_string());
        let (x, y) = (Number::Big(BigInt::parse(&x).unwrap()), Number::Big(BigInt::parse(&y).unwrap()));
        prop_assert_eq!(x.cmp_exact(y), Some(a.cmp(&b)));
        prop_assert_eq!(x.cmp_exact(Number::I64(i64::MIN)), Some(a.cmp(&i128::from(i64::MIN))));
        prop_assert_eq!(x.cmp_exact(Number::U64(u64::MAX)), Some(a.cmp(&i128::from(u64::MAX))));
    }
}
