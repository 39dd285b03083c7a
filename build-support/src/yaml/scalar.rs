//! Scalar resolution with the YAML 1.2 core schema (`docs/decisions.md`,
//! "YAML library"): plain `null`/`~`/empty is null, `true`/`false`
//! booleans, decimal/`0o`/`0x` integers and decimal floats, kept exactly;
//! quoted and block scalars are strings.

use super::NodeValue;
use saphyr_parser::ScalarStyle;
use std::borrow::Cow;
use templiqx_contracts::Number;

/// Resolves a scalar with the YAML 1.2 core schema. `Err((message, help))`
/// for plain scalars that name a number JSON cannot hold.
pub(super) fn resolve(
    text: Cow<'_, str>,
    style: ScalarStyle,
) -> Result<NodeValue, (String, String)> {
    if style != ScalarStyle::Plain {
        return Ok(NodeValue::String(text.into_owned()));
    }
    let text = &*text;
    let quote_help = |what: &str| format!("{what}; quote it (`\"{text}\"`) to keep it as a string");
    Ok(match text {
        "" | "~" | "null" | "Null" | "NULL" => NodeValue::Null,
        "true" | "True" | "TRUE" => NodeValue::Bool(true),
        "false" | "False" | "FALSE" => NodeValue::Bool(false),
        _ if is_inf_or_nan(text) => {
            return Err((
                format!("`{text}` is not a finite number"),
                quote_help("JSON cannot hold infinity or NaN"),
            ));
        }
        _ => match resolve_number(text) {
            Some(Some(n)) => NodeValue::Number(n),
            Some(None) => {
                // An integer beyond 64 bits has a nearest double, which is
                // what a schema bound means; a float beyond f64 has none.
                let double = text.parse::<f64>().ok();
                let help = match double {
                    Some(f) if f.is_finite() => format!(
                        "integers must lie in -2^63..=2^64-1; write `{f:e}` (the nearest double) \
                         where a number is meant, such as a schema bound, or quote it \
                         (`\"{text}\"`) to keep it as a string"
                    ),
                    Some(_) => quote_help("floats must lie within f64's range"),
                    // `0x`/`0o`: an integer written in hex or octal.
                    None => quote_help("integers must lie in -2^63..=2^64-1"),
                };
                return Err((format!("the number `{text}` is out of range"), help));
            }
            None => NodeValue::String(text.to_owned()),
        },
    })
}

pub(super) fn is_inf_or_nan(text: &str) -> bool {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(text, ".nan" | ".NaN" | ".NAN")
}

/// `None`: not a core-schema number (so a string). `Some(None)`: a number
/// that does not fit. `Some(Some(n))`: the number.
pub(super) fn resolve_number(text: &str) -> Option<Option<Number<'static>>> {
    let digits = |s: &str, radix: u32| !s.is_empty() && s.chars().all(|c| c.is_digit(radix));
    if let Some(oct) = text.strip_prefix("0o") {
        return digits(oct, 8).then(|| u64::from_str_radix(oct, 8).ok().map(unsigned));
    }
    if let Some(hex) = text.strip_prefix("0x") {
        return digits(hex, 16).then(|| u64::from_str_radix(hex, 16).ok().map(unsigned));
    }
    let (negative, magnitude) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits(magnitude, 10) {
        let n = magnitude.parse::<u64>().ok();
        return Some(match (negative, n) {
            (false, Some(n)) => Some(unsigned(n)),
            (true, Some(n)) if n <= i64::MIN.unsigned_abs() => {
                Some(Number::I64(0i64.wrapping_sub_unsigned(n)))
            }
            _ => None,
        });
    }
    if !is_core_float(magnitude) {
        return None;
    }
    Some(
        text.parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(Number::F64),
    )
}

pub(super) fn unsigned(n: u64) -> Number<'static> {
    i64::try_from(n).map_or(Number::U64(n), Number::I64)
}

/// `( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`, unsigned.
pub(super) fn is_core_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let int_digits = count_digits(&b[i..]);
    i += int_digits;
    let mut frac_digits = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        frac_digits = count_digits(&b[i..]);
        i += frac_digits;
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_digits = count_digits(&b[i..]);
        if exp_digits == 0 {
            return false;
        }
        i += exp_digits;
    }
    i == b.len()
}

pub(super) fn count_digits(b: &[u8]) -> usize {
    b.iter().take_while(|c| c.is_ascii_digit()).count()
}
