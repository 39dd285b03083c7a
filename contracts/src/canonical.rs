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
use std::ops::ControlFlow;

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
                // No boxed iterator: the render path writes every typed
                // object this way.
                let mut result = Ok(());
                let mut first = true;
                let _ = o.for_each_entry(&mut |k, v| {
                    result = write_member(first, k, v, out);
                    first = false;
                    if result.is_ok() {
                        ControlFlow::Continue(())
                    } else {
                        ControlFlow::Break(())
                    }
                });
                result?;
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
        write_member(i == 0, k, v, out)?;
    }
    Ok(())
}

/// One member of an object: `,` unless it is the first, then `"key":value`.
fn write_member<W: fmt::Write + ?Sized>(
    first: bool,
    k: &str,
    v: ValueRef<'_>,
    out: &mut W,
) -> fmt::Result {
    if !first {
        out.write_char(',')?;
    }
    write_string(k, out)?;
    out.write_char(':')?;
    write_canonical(v, out)
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
///
/// Scans bytes, not characters: every byte that needs escaping is ASCII
/// (`"`, `\\`, U+0000-U+001F), and no byte of a multi-byte UTF-8 sequence
/// is below 0x80, so each escape falls on a character boundary and the runs
/// between escapes are copied whole.
pub fn write_string<W: fmt::Write + ?Sized>(s: &str, out: &mut W) -> fmt::Result {
    out.write_char('"')?;
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = next_escape(bytes, 0);
    while let Some(&byte) = bytes.get(i) {
        out.write_str(&s[start..i])?;
        match byte {
            b'"' => out.write_str("\\\"")?,
            b'\\' => out.write_str("\\\\")?,
            0x08 => out.write_str("\\b")?,
            b'\t' => out.write_str("\\t")?,
            b'\n' => out.write_str("\\n")?,
            0x0c => out.write_str("\\f")?,
            b'\r' => out.write_str("\\r")?,
            control => write!(out, "\\u{control:04x}")?,
        }
        start = i + 1;
        i = next_escape(bytes, start);
    }
    out.write_str(&s[start..])?;
    out.write_char('"')
}

/// The index of the first byte at or after `from` that [`write_string`]
/// escapes (`"`, `\\`, or below 0x20), or `bytes.len()`.
///
/// Eight bytes at a time: with `ONES` = 0x01 in every byte, `x - n * ONES &
/// !x & 0x80 * ONES` flags the bytes of `x` below `n` (for `n <= 0x80`), and
/// of those it flags the lowest exactly (a borrow only ever runs from a
/// lower flagged byte into higher ones); a byte equal to `c` is a byte of
/// `x ^ c * ONES` below 1. So the lowest flag of the three masks is the
/// first escaped byte of the word.
fn next_escape(bytes: &[u8], from: usize) -> usize {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH: u64 = ONES * 0x80;
    let below = |x: u64, n: u64| x.wrapping_sub(n * ONES) & !x & HIGH;
    let mut i = from;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        let flags = below(x, 0x20)
            | below(x ^ (ONES * u64::from(b'"')), 1)
            | below(x ^ (ONES * u64::from(b'\\')), 1);
        if flags != 0 {
            return i + (flags.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    bytes
        .get(i..)
        .and_then(|rest| {
            rest.iter()
                .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
        })
        .map_or(bytes.len(), |at| i + at)
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
    hex(&Sha256::digest(bytes))
}

/// Lowercase hex SHA-256 of what `reader` reads, read as a stream (a
/// dataset's bytes, `docs/format.md`, "Datasets": never all in memory).
///
/// # Errors
/// The reader's.
pub fn sha256_hex_of(mut reader: impl std::io::Read) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    std::io::copy(&mut reader, &mut hasher)?;
    Ok(hex(&hasher.finalize()))
}

fn hex(digest: &[u8]) -> String {
    let mut s = String::with_capacity(2 * digest.len());
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

    #[test]
    fn a_streamed_digest_is_the_digest_of_the_bytes() {
        let bytes = vec![b'x'; 100_000];
        assert_eq!(sha256_hex_of(&bytes[..]).unwrap(), sha256_hex(&bytes));
        // The empty input's, as published.
        assert_eq!(
            sha256_hex_of(std::io::empty()).unwrap(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
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
    fn every_byte_escapes_the_same_at_every_place_in_a_word() {
        // Each ASCII byte, alone and among others, at each offset of the
        // eight-byte scan, against the character-by-character definition.
        fn reference(s: &str) -> String {
            let mut out = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\u{8}' => out.push_str("\\b"),
                    '\t' => out.push_str("\\t"),
                    '\n' => out.push_str("\\n"),
                    '\u{c}' => out.push_str("\\f"),
                    '\r' => out.push_str("\\r"),
                    c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        }
        for byte in 0..0x80u8 {
            for at in 0..17 {
                for filler in ["a", "é", "\u{1}", "!"] {
                    let mut s = filler.repeat(at);
                    s.push(char::from(byte));
                    s.push_str(&"z".repeat(9));
                    s.push_str(filler);
                    let mut out = String::new();
                    write_string(&s, &mut out).unwrap();
                    assert_eq!(out, reference(&s), "{s:?}");
                }
            }
        }
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
