//! Reading JSON text: [`parse`], the one strict reader, and `Json`'s
//! `Deserialize`, whose visitor takes back the integers beyond 64 bits that
//! `serde_json` would round (`docs/decisions.md`, "Canonical JSON: exact
//! big integers").

use super::{Json, JsonMap, JsonNumber, Repr};
use crate::diagnostic::{Code, Diagnostic, Position, Span, position};
use crate::value::BigInt;
use serde::de;
use std::cell::Cell;
use std::fmt;

impl<'de> serde::Deserialize<'de> for Json {
    /// Reads any self-describing format; integers wider than 64 bits keep
    /// their value when the format hands them over (`i128`/`u128`, and any
    /// width from `&Json`). `serde_json` rounds an integer literal beyond
    /// 64 bits to a double before a visitor sees it: read JSON text with
    /// [`parse`] instead. An object that repeats a key is an error.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor { literals: None })
    }
}

/// Builds a [`Json`]; with `literals`, the integers beyond 64 bits that
/// [`parse`] blanked in the text, taken back as their numbers are visited.
#[derive(Clone, Copy)]
struct JsonVisitor<'t> {
    literals: Option<&'t BigLiterals<'t>>,
}

impl<'de> de::DeserializeSeed<'de> for JsonVisitor<'_> {
    type Value = Json;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(self)
    }
}

impl JsonVisitor<'_> {
    /// A number from the source text: `serde_json` has just visited it.
    fn number(self, read: JsonNumber) -> JsonNumber {
        // A literal beyond 64 bits was read as `0` ([`blank_big_integers`]).
        match self.literals.and_then(BigLiterals::visit_number) {
            Some(literal) => JsonNumber(Repr::Big(literal.into())),
            None => read,
        }
    }

    /// An integer a format hands over wider than 64 bits (`i128`, `u128`,
    /// or `&Json`'s newtype of digits).
    fn wide<E: de::Error>(self, digits: String) -> Result<Json, E> {
        let integer = JsonNumber::parse(&digits).filter(|n| !matches!(n.0, Repr::F64(_)));
        let n = integer.ok_or_else(|| E::custom(format_args!("invalid integer `{digits}`")))?;
        Ok(Json::Number(n))
    }
}

impl<'de> de::Visitor<'de> for JsonVisitor<'_> {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(self.number(v.into())))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(self.number(v.into())))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Json, E> {
        self.wide(v.to_string())
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Json, E> {
        self.wide(v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
        let n = JsonNumber::from_f64(v)
            .ok_or_else(|| E::custom(format_args!("non-finite number {v}")))?;
        Ok(Json::Number(self.number(n)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(self)
    }

    /// A [`BigInt`] from `&Json`'s `Deserializer`: its digits.
    fn visit_newtype_struct<D: de::Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        let digits = <String as serde::Deserialize>::deserialize(d)?;
        self.wide(digits)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(self)? {
            items.push(v);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut object = JsonMap::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "duplicate key `{key}` in an object"
                )));
            }
            let value = map.next_value_seed(self)?;
            object.insert(key, value);
        }
        Ok(Json::Object(object))
    }
}

/// The number tokens of a JSON text, in order, as (byte offset, text): a
/// run of number characters that starts with `-` or a digit outside a
/// string. On JSON text these are exactly the numbers `serde_json` visits,
/// in the order it visits them; on other text the parse fails anyway.
fn number_tokens(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        let mut in_string = false;
        while i < bytes.len() {
            let b = bytes[i];
            if in_string {
                match b {
                    b'\\' => i += 1,
                    b'"' => in_string = false,
                    _ => {}
                }
            } else if b == b'"' {
                in_string = true;
            } else if b == b'-' || b.is_ascii_digit() {
                let start = i;
                while i < bytes.len()
                    && matches!(bytes[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                return Some((start, &text[start..i]));
            }
            i += 1;
        }
        None
    })
}

/// The integer literals beyond 64 bits of a text, each with its index among
/// the text's numbers, handed back as `serde_json` visits the numbers.
struct BigLiterals<'t> {
    /// (index among the number tokens, literal), in text order.
    found: Vec<(usize, &'t str)>,
    /// Numbers visited so far.
    visited: Cell<usize>,
    /// Entries of `found` handed back so far.
    taken: Cell<usize>,
}

impl<'t> BigLiterals<'t> {
    /// Counts one visited number; its literal when it is one of `found`.
    fn visit_number(&self) -> Option<&'t str> {
        let index = self.visited.get();
        self.visited.set(index + 1);
        let &(at, literal) = self.found.get(self.taken.get())?;
        (at == index).then(|| {
            self.taken.set(self.taken.get() + 1);
            literal
        })
    }
}

/// `text` with every integer literal beyond 64 bits ([`BigInt::parse`])
/// replaced by `0` and spaces, byte for byte, so `serde_json` neither
/// rounds nor refuses it (borrowed when there is none), and those literals.
fn blank_big_integers(text: &str) -> (std::borrow::Cow<'_, str>, BigLiterals<'_>) {
    let mut out: Option<String> = None;
    let mut found = Vec::new();
    for (index, (start, literal)) in number_tokens(text).enumerate() {
        if BigInt::parse(literal).is_some() {
            let out = out.get_or_insert_with(|| text.to_owned());
            // ASCII for ASCII: the byte length, hence every offset, stays.
            let blank = format!("0{}", " ".repeat(literal.len() - 1));
            out.replace_range(start..start + literal.len(), &blank);
            found.push((index, literal));
        }
    }
    let literals = BigLiterals {
        found,
        visited: Cell::new(0),
        taken: Cell::new(0),
    };
    let read = out.map_or(std::borrow::Cow::Borrowed(text), std::borrow::Cow::Owned);
    (read, literals)
}

/// Parses JSON `text` as every JSON document Templiqx reads is parsed
/// (requests, model outputs, values to fingerprint, scenario documents and
/// inventories, gateway bodies): exactly one value (RFC 8259); no object
/// key twice (canonical JSON, RFC 8785, is over I-JSON, which has none, and
/// keeping one of two values would give two different documents one
/// fingerprint); every integer exact at any size ([`JsonNumber`]). A
/// leading byte order mark is the caller's to strip.
///
/// ```
/// use templiqx_contracts::json::parse;
///
/// let v = parse("{\"a\": [1, 2.5, -18446744073709551616]}").unwrap();
/// assert_eq!(v.pointer("/a/2").unwrap().to_string(), "-18446744073709551616");
/// let d = parse("{\"a\": 1,\n \"a\": 2}").unwrap_err();
/// assert_eq!(d.message, "invalid JSON: duplicate key `a` in an object");
/// let start = d.span.unwrap().start;
/// assert_eq!((start.line, start.column), (2, 4)); // the key's closing quote
/// ```
///
/// # Errors
/// `TQX_PARSE_JSON` with no file (the caller knows it), spanning the place
/// the parser stopped at — counted as Templiqx counts lines and columns:
/// characters, and every YAML line break
/// ([`position`]) — with a help for the kind
/// of problem.
pub fn parse(text: &str) -> Result<Json, Diagnostic> {
    // `serde_json` reads an integer beyond 64 bits as a double, and refuses
    // one beyond `f64::MAX` ("number out of range"): it reads `0` padded
    // with spaces instead, so places in the text stay where they are, and
    // the visitor takes the digits back. Without one, it only builds.
    let (read, literals) = blank_big_integers(text);
    let visitor = JsonVisitor {
        literals: (!literals.found.is_empty()).then_some(&literals),
    };
    let mut reader = serde_json::Deserializer::from_str(&read);
    let value = de::DeserializeSeed::deserialize(visitor, &mut reader)
        .and_then(|v| reader.end().map(|()| v));
    value.map_err(|e| json_error(text, &e))
}

/// The `TQX_PARSE_JSON` diagnostic for a `serde_json` error over `text`.
fn json_error(text: &str, e: &serde_json::Error) -> Diagnostic {
    let full = e.to_string();
    // serde_json's text is the message then, when it knows the place,
    // " at line L column C": the span carries the place instead.
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    let help = if e.classify() == serde_json::error::Category::Data {
        // The only data errors are the strict reader's own.
        "remove or rename one of the two members: canonical JSON (RFC 8785) has one value per key"
    } else {
        "write exactly one well-formed JSON value (RFC 8259)"
    };
    let mut d = Diagnostic::error(Code::ParseJson, format!("invalid JSON: {message}")).help(help);
    if e.line() > 0 {
        let offset = json_offset(text, e.line(), e.column());
        let start = position(text, offset);
        d.span = Some(Span {
            start,
            end: Position {
                line: start.line,
                column: start.column.saturating_add(1),
            },
            bytes: (offset, offset),
        });
    }
    d
}

/// The byte offset in `text` of a position as `serde_json` reports it: a
/// 1-based line counting `\n` only, and a column counting bytes (the last
/// byte read; 0 at the start of a line).
fn json_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        text.match_indices('\n')
            .nth(line - 2)
            .map_or(text.len(), |(i, _)| i + 1)
    };
    line_start
        .saturating_add(column.saturating_sub(1))
        .min(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::{fingerprint, to_canonical_string};
    use crate::value::AsValue;

    #[test]
    fn integer_literals_of_any_size_are_exact() {
        for literal in [
            "100000000000000000001",
            "-100000000000000000001",
            "18446744073709551616",
            "-9223372036854775809",
            "340282366920938463463374607431768211457",
            "123456789012345678901234567890123456789012345678901234567890",
        ] {
            let text = format!("[{literal}, 1]");
            let v = parse(&text).unwrap();
            assert_eq!(to_canonical_string(&v), format!("[{literal},1]"));
            assert_eq!(serde_json::to_string(&v).unwrap(), format!("[{literal},1]"));
            // Through `&Json`'s Deserializer and back.
            let again: Json = serde::Deserialize::deserialize(&v).unwrap();
            assert_eq!(again, v, "{literal}");
        }
    }

    #[test]
    fn no_document_can_forge_a_big_integer() {
        // Whatever a marker looked like, a document's object stays an
        // object, and the numbers after it stay in place.
        for key in ["$templiqx::json::BigInt", "$serde_json::private::Number"] {
            let text = format!(r#"[{{"{key}": "5"}}, 100000000000000000001, 7]"#);
            let v = parse(&text).unwrap();
            assert_eq!(
                to_canonical_string(&v),
                format!(r#"[{{"{key}":"5"}},100000000000000000001,7]"#)
            );
            let through_serde: Json = serde_json::from_str(&text).unwrap();
            assert!(through_serde[0].as_object().is_some(), "{key}");
        }
        // A newtype is how `&Json` hands over a `BigInt`; digits only.
        let bad = de::value::StrDeserializer::<de::value::Error>::new("1.5");
        let e = de::Visitor::visit_newtype_struct(JsonVisitor { literals: None }, bad);
        assert_eq!(e.unwrap_err().to_string(), "invalid integer `1.5`");
    }

    #[test]
    fn neighbours_beyond_64_bits_have_different_fingerprints() {
        let a = parse("[100000000000000000001]").unwrap();
        let b = parse("[100000000000000000000]").unwrap();
        let c = parse("[1e20]").unwrap();
        assert_ne!(fingerprint(&a), fingerprint(&b));
        // `1e20` is the double whose canonical spelling is b's digits.
        assert_eq!(fingerprint(&b), fingerprint(&c));
        assert!(a.as_value().json_eq(&a.as_value()));
        assert!(!a.as_value().json_eq(&b.as_value()));
        assert!(b.as_value().json_eq(&c.as_value()));
    }

    #[test]
    fn literals_inside_strings_and_keys_do_not_shift_the_numbers() {
        let text =
            r#"{"1": "-2 \" 3", "k": [99999999999999999999999, "4e5", 0.5, -0, 7], "z": 1e400}"#;
        assert_eq!(parse(text).unwrap_err().code, Code::ParseJson);
        let text = r#"{"1": "-2 \" 3", "k": [99999999999999999999999, "4e5", 0.5, -0, 7]}"#;
        assert_eq!(
            to_canonical_string(&parse(text).unwrap()),
            r#"{"1":"-2 \" 3","k":[99999999999999999999999,"4e5",0.5,0,7]}"#
        );
    }

    #[test]
    fn malformed_text_and_duplicate_keys_are_refused() {
        for text in ["", "[1,]", "{\"a\": 1} 2", "01", "[-]", "{\"a\":1,\"a\":1}"] {
            let d = parse(text).unwrap_err();
            assert_eq!(d.code, Code::ParseJson, "{text}");
            assert!(d.message.starts_with("invalid JSON: "), "{text}: {d}");
        }
    }

    #[test]
    fn json_offsets_map_byte_columns_to_characters() {
        let text = "{\n\"é\": 1,}";
        // serde_json reports the trailing comma at the `}`: line 2, byte
        // column 9; it is character 8.
        let offset = json_offset(text, 2, 9);
        assert_eq!(&text[offset..=offset], "}");
        assert_eq!(
            {
                let p = position(text, offset);
                (p.line, p.column)
            },
            (2, 8)
        );
        assert_eq!(json_offset(text, 2, 0), 2);
        assert_eq!(json_offset(text, 9, 9), text.len());
    }

    #[test]
    fn bad_json_is_located_and_the_place_leaves_the_message() {
        let d = parse("{\n  \"a\": 1,\n}").unwrap_err();
        assert_eq!(d.code, Code::ParseJson);
        assert_eq!(d.message, "invalid JSON: trailing comma");
        assert_eq!(d.span.unwrap().start.line, 3);
        assert_eq!(d.file, None);
        let d = parse("").unwrap_err();
        assert_eq!(d.message, "invalid JSON: EOF while parsing a value");
        assert_eq!(
            d.help.as_deref(),
            Some("write exactly one well-formed JSON value (RFC 8259)")
        );
    }

    #[test]
    fn json_columns_count_characters_and_lines_end_at_any_break() {
        // serde_json reports the trailing comma at the `}`, byte column 12;
        // it is character 10.
        let d = parse("{\"éé\": 1,}").unwrap_err();
        let start = d.span.unwrap().start;
        assert_eq!((start.line, start.column), (1, 10));
        // A lone `\r` ends a line, as in YAML and in the snippet.
        let d = parse("{\r\"a\": 1 x\r}").unwrap_err();
        let start = d.span.unwrap().start;
        assert_eq!((start.line, start.column), (2, 8));
        let d = parse("[\r\r1e400]").unwrap_err();
        let span = d.span.unwrap();
        assert_eq!(span.start.line, 3);
    }

    #[test]
    fn duplicate_keys_are_rejected_at_any_depth() {
        for text in [r#"{"a": 1, "a": 1}"#, r#"[{"b": {"c": 1, "c": 2}}]"#] {
            let d = parse(text).unwrap_err();
            assert_eq!(d.code, Code::ParseJson);
            assert!(d.message.contains("duplicate key"), "{}", d.message);
            assert_eq!(
                d.help.as_deref(),
                Some(
                    "remove or rename one of the two members: canonical JSON (RFC 8785) has one value per key"
                )
            );
        }
        let ok = parse(r#"{"a": {"a": [1.5, -2, 18446744073709551615]}}"#);
        assert_eq!(
            ok.unwrap(),
            serde_json::json!({"a": {"a": [1.5, -2, 18446744073709551615u64]}})
        );
    }
}
