//! Templiqx canonical JSON and fingerprints (`docs/format.md`, "Canonical
//! JSON and fingerprints"; `docs/decisions.md`, "Canonical JSON: exact big
//! integers").
//!
//! Canonical JSON is RFC 8785 (JSON Canonicalization Scheme):
//!
//! - object members sorted by the UTF-16 code units of their keys
//!   (RFC 8785 section 3.2.3);
//! - no insignificant whitespace;
//! - numbers in ECMAScript `Number.prototype.toString` form (section 3.2.2.3),
//!   written here by `ryu-js`;
//! - strings with the minimal escaping of section 3.2.2.2 (`"`, `\`, and
//!   control characters; `\b \t \n \f \r` short forms, otherwise `\u00xx`).
//!
//! One documented deviation: an integer held exactly (`i64`/`u64`, or a
//! [`BigInt`](crate::value::BigInt) of any size) whose magnitude exceeds
//! 2^53 is written with its exact digits. RFC 8785 would round it through a
//! double, so two different values could share a fingerprint. Inside ±2^53
//! the output is exactly RFC 8785.
//!
//! A fingerprint is the lowercase hex SHA-256 of the canonical bytes.

use crate::value::{AsValue, Number, ValueRef};
use sha2::{Digest, Sha256};
use std::fmt;

/// Writes the canonical JSON of `value` to `out`.
///
/// Errors only when `out` does (a bounded writer refusing more bytes);
/// a non-finite double, which JSON cannot hold, is written as `null`.
pub fn write_canonical<W: fmt::Write + ?Sized>(value: ValueRef<'_>, out: &mut W) -> fmt::Result {
    match value {
        ValueRef::Null => out.write_str("null"),
        ValueRef::Bool(true) => out.write_str("true"),
        ValueRef::Bool(false) => out.write_str("false"),
        ValueRef::Number(n) => write_number(n, out),
        ValueRef::String(s) => write_string(s, out),
        ValueRef::Array(a) => {
            out.write_char('[')?;
            for i in 0..a.len() {
                if i > 0 {
                    out.write_char(',')?;
                }
                write_canonical(a.get(i).unwrap_or(ValueRef::Null), out)?;
            }
            out.write_char(']')
        }
        ValueRef::Object(o) => {
            out.write_char('{')?;
            if o.entries_sorted() {
                write_members(o.entries(), out)?;
            } else {
                let mut entries: Vec<(&str, ValueRef<'_>)> = o.entries().collect();
                entries.sort_by(|(a, _), (b, _)| utf16_cmp(a, b));
                write_members(entries.into_iter(), out)?;
            }
            out.write_char('}')
        }
    }
}

fn write_members<'v, W: fmt::Write + ?Sized>(
    members: impl Iterator<Item = (&'v str, ValueRef<'v>)>,
    out: &mut W,
) -> fmt::Result {
    for (i, (k, v)) in members.enumerate() {
        if i > 0 {
            out.write_char(',')?;
        }
        write_string(k, out)?;
        out.write_char(':')?;
        write_canonical(v, out)?;
    }
    Ok(())
}

/// Compares keys by their UTF-16 code units (RFC 8785 section 3.2.3).
///
/// UTF-8 byte order agrees with UTF-16 order except between characters at
/// or above U+E000 (lead byte `0xEE`+) and supplementary characters, so byte
/// comparison is exact whenever either string has no such lead byte.
pub fn utf16_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let high = |s: &str| s.bytes().any(|b| b >= 0xEE);
    if high(a) && high(b) {
        a.encode_utf16().cmp(b.encode_utf16())
    } else {
        a.cmp(b)
    }
}

/// Writes one number in canonical form (see the module docs for the
/// exact-integer deviation).
pub fn write_number<W: fmt::Write + ?Sized>(n: Number, out: &mut W) -> fmt::Result {
    match n {
        Number::I64(i) => write!(out, "{i}"),
        Number::U64(u) => write!(out, "{u}"),
        Number::F64(f) if !f.is_finite() => out.write_str("null"),
        Number::F64(f) => {
            // -0 is written as 0 (ECMAScript `String(-0)` is "0").
            let f = if f == 0.0 { 0.0 } else { f };
            let mut buf = ryu_js::Buffer::new();
            out.write_str(buf.format_finite(f))
        }
        Number::Big(b) => out.write_str(b.as_str()),
    }
}

/// Writes `s` as a JSON string literal with RFC 8785 escaping.
pub fn write_string<W: fmt::Write + ?Sized>(s: &str, out: &mut W) -> fmt::Result {
    out.write_char('"')?;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let escape: Option<&str> = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\u{8}' => Some("\\b"),
            '\t' => Some("\\t"),
            '\n' => Some("\\n"),
            '\u{c}' => Some("\\f"),
            '\r' => Some("\\r"),
            c if (c as u32) < 0x20 => None,
            _ => continue,
        };
        out.write_str(&s[start..i])?;
        match escape {
            Some(e) => out.write_str(e)?,
            None => write!(out, "\\u{:04x}", c as u32)?,
        }
        start = i + c.len_utf8();
    }
    out.write_str(&s[start..])?;
    out.write_char('"')
}

/// The canonical JSON text of `value`.
pub fn to_canonical_string<V: AsValue + ?Sized>(value: &V) -> String {
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = write_canonical(value.as_value(), &mut s);
    s
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest {
        // Writing to a String cannot fail.
        let _ = write!(s, "{b:02x}");
    }
    s
}

use std::fmt::Write as _;

/// The fingerprint of `value`: lowercase hex SHA-256 of its canonical JSON.
pub fn fingerprint<V: AsValue + ?Sized>(value: &V) -> String {
    sha256_hex(to_canonical_string(value).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_follow_ecmascript() {
        let cases = [
            (json!(1.0), "1"),
            (json!(-0.0), "0"),
            (json!(1e21), "1e+21"),
            (json!(1e-7), "1e-7"),
            (json!(0.000001), "0.000001"),
            (json!(123456789012345680000.0), "123456789012345680000"),
            (json!(9007199254740993u64), "9007199254740993"),
            (json!(-9007199254740993i64), "-9007199254740993"),
            (json!(u64::MAX), "18446744073709551615"),
        ];
        for (v, want) in cases {
            assert_eq!(to_canonical_string(&v), want, "{v}");
        }
    }

    #[test]
    fn strings_use_minimal_escaping() {
        let v = json!("a\"b\\c\u{8}\t\n\u{c}\r\u{1}\u{1f}\u{7f}\u{2028}é😂");
        assert_eq!(
            to_canonical_string(&v),
            "\"a\\\"b\\\\c\\b\\t\\n\\f\\r\\u0001\\u001f\u{7f}\u{2028}é😂\""
        );
    }

    #[test]
    fn keys_sort_by_utf16_code_units() {
        // U+FB33 sorts before U+1F602 in UTF-8 order but after it in UTF-16
        // order (the emoji is a surrogate pair starting 0xD83D).
        let v = json!({"\u{fb33}": 1, "\u{1f602}": 2, "a": 3});
        assert_eq!(to_canonical_string(&v), "{\"a\":3,\"😂\":2,\"דּ\":1}");
    }

    #[test]
    fn integers_beyond_64_bits_keep_their_digits() {
        for (text, canonical) in [
            (
                "[18446744073709551615, -9223372036854775808]",
                "[18446744073709551615,-9223372036854775808]",
            ),
            (
                "[18446744073709551616, -9223372036854775809]",
                "[18446744073709551616,-9223372036854775809]",
            ),
            // Not the double 123456789012345683968 rounds to.
            ("[123456789012345683969]", "[123456789012345683969]"),
            // Doubles stay doubles: RFC 8785's spelling.
            (
                "[1e20, 1e21, 1.5e300]",
                "[100000000000000000000,1e+21,1.5e+300]",
            ),
        ] {
            let value = crate::json::parse(text).unwrap();
            assert_eq!(to_canonical_string(&value), canonical, "{text}");
            // Canonical output reads back into the same bytes.
            let again = crate::json::parse(canonical).unwrap();
            assert_eq!(to_canonical_string(&again), canonical, "{text}");
        }
    }

    #[test]
    fn fingerprint_is_sha256_of_canonical_bytes() {
        assert_eq!(fingerprint(&json!({})), sha256_hex(b"{}"));
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
