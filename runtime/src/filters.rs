//! The fixed interpolation filters and the locale table (`docs/format.md`,
//! "Filters").
//!
//! Every filter writes into any [`fmt::Write`], so the renderer streams its
//! output straight into a budget-bounded writer: `json`, `lower` and `upper`
//! never materialise their result, and a writer that refuses a write stops
//! the filter at once ([`FilterError::Write`]).
//!
//! | family | `format_date` of `2026-07-12` | `format_number` of `1234567.5` |
//! |---|---|---|
//! | `nl*` | `12-07-2026` | `1.234.567,50` |
//! | `de*` | `12.07.2026` | `1.234.567,50` |
//! | `en-US*` | `07/12/2026` | `1,234,567.50` |
//! | anything else, or no locale | `2026-07-12` | `1234567.50` |

use std::fmt::{self, Write};
use templiqx_contracts::canonical::write_canonical;
use templiqx_contracts::format::parse_date;
use templiqx_contracts::{Filter, Number, ValueRef};

/// A locale family of the table in `docs/format.md` ("Filters"), resolved
/// from `context.locale`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Locale {
    /// No locale, or one outside the table: ISO dates (`2026-07-12`) and
    /// plain numbers (`1234567.50`).
    #[default]
    Iso,
    /// `nl*`: `12-07-2026`, `1.234.567,50`.
    Nl,
    /// `de*`: `12.07.2026`, `1.234.567,50`.
    De,
    /// `en-US*`: `07/12/2026`, `1,234,567.50`.
    EnUs,
}

impl Locale {
    /// Resolves a locale name by prefix, case-insensitively, accepting `_`
    /// for `-` (`nl_NL`, `EN-us`, `de-AT` all match a family), as
    /// `docs/format.md` ("Filters") states. The prefix must end at a
    /// boundary: the end of the name, `-` or `_` (a BCP 47 subtag), or `.`
    /// or `@` (the codeset and modifier of a POSIX name such as
    /// `en_US.UTF-8` or `de_DE@euro`, as copied from `LANG`). So `default`
    /// or `english` is not `de` or `en-US`; any other name is
    /// [`Locale::Iso`].
    pub fn from_tag(tag: &str) -> Locale {
        fn has_prefix(tag: &str, prefix: &[u8]) -> bool {
            let tag = tag.as_bytes();
            tag.len() >= prefix.len()
                && tag.iter().zip(prefix).all(|(&t, &p)| {
                    let t = if t == b'_' { b'-' } else { t };
                    t.to_ascii_lowercase() == p
                })
                && matches!(
                    tag.get(prefix.len()),
                    None | Some(b'-' | b'_' | b'.' | b'@')
                )
        }
        if has_prefix(tag, b"nl") {
            Locale::Nl
        } else if has_prefix(tag, b"de") {
            Locale::De
        } else if has_prefix(tag, b"en-us") {
            Locale::EnUs
        } else {
            Locale::Iso
        }
    }

    /// The locale of a request: `context.locale` when it is a string,
    /// otherwise [`Locale::Iso`]. The renderer consults it only when the
    /// interaction declares `context.locale` (`Interaction::context_locale`).
    pub fn from_value(value: Option<ValueRef<'_>>) -> Locale {
        match value {
            Some(ValueRef::String(tag)) => Locale::from_tag(tag),
            _ => Locale::Iso,
        }
    }

    /// `(thousands separator, decimal separator)` for `format_number`.
    fn number_separators(self) -> (Option<char>, char) {
        match self {
            Locale::Nl | Locale::De => (Some('.'), ','),
            Locale::EnUs => (Some(','), '.'),
            Locale::Iso => (None, '.'),
        }
    }
}

/// Why a filter produced no output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterError {
    /// The writer refused a write (in the renderer: the output budget,
    /// `TQX_RENDER_BUDGET`). Output written before the refusal is partial.
    Write,
    /// The filter does not accept this input (`TQX_FILTER_INPUT`): a value
    /// of the wrong type, a string that is not a real `YYYY-MM-DD` date, or
    /// a non-finite number.
    Input,
}

impl From<fmt::Error> for FilterError {
    fn from(_: fmt::Error) -> Self {
        FilterError::Write
    }
}

/// Whether `filter` accepts a value of this type: `trim`, `lower`, `upper`
/// and `format_date` take strings, `format_number` takes numbers, `json`
/// takes anything.
pub fn accepts(filter: Filter, value: &ValueRef<'_>) -> bool {
    match filter {
        Filter::Trim | Filter::Lower | Filter::Upper | Filter::FormatDate => {
            matches!(value, ValueRef::String(_))
        }
        Filter::FormatNumber => matches!(value, ValueRef::Number(_)),
        Filter::Json => true,
    }
}

/// Applies one filter to `input`, writing its result to `out`.
///
/// `trim` on a string writes the trimmed slice; every other filter is
/// documented on its `write_*` function.
///
/// # Errors
///
/// [`FilterError::Input`] when the filter does not accept `input`;
/// [`FilterError::Write`] when `out` refuses a write.
pub fn apply<W: Write + ?Sized>(
    filter: Filter,
    input: ValueRef<'_>,
    locale: Locale,
    out: &mut W,
) -> Result<(), FilterError> {
    match (filter, input) {
        (Filter::Trim, ValueRef::String(s)) => Ok(out.write_str(trim(s))?),
        (Filter::Lower, ValueRef::String(s)) => Ok(write_lower(s, out)?),
        (Filter::Upper, ValueRef::String(s)) => Ok(write_upper(s, out)?),
        (Filter::Json, value) => Ok(write_canonical(value, out)?),
        (Filter::FormatDate, ValueRef::String(s)) => write_date(s, locale, out),
        (Filter::FormatNumber, ValueRef::Number(n)) => write_number(n, locale, out),
        _ => Err(FilterError::Input),
    }
}

/// `trim`: `s` without leading and trailing white space (Unicode
/// `White_Space`, as [`str::trim`]).
///
/// Returns `s` itself at once when its first and last bytes are ASCII but
/// not white space, the common case: an ASCII byte is a whole character at
/// either end of UTF-8, and the only ASCII `White_Space` characters are
/// U+0009-U+000D and U+0020.
pub fn trim(s: &str) -> &str {
    let solid = |b: &u8| b.is_ascii() && !matches!(b, b'\t'..=b'\r' | b' ');
    let bytes = s.as_bytes();
    if bytes.first().is_some_and(solid) && bytes.last().is_some_and(solid) {
        s
    } else {
        s.trim()
    }
}

/// `format_date`: reformats a real calendar date written `YYYY-MM-DD` per
/// the locale table (`docs/format.md`, "Filters").
///
/// # Errors
///
/// [`FilterError::Input`] for anything that `format::parse_date` rejects
/// (`2026-02-30`, `2026-7-12`, a date-time, surrounding white space).
pub fn write_date<W: Write + ?Sized>(
    date: &str,
    locale: Locale,
    out: &mut W,
) -> Result<(), FilterError> {
    let (year, month, day) = parse_date(date).ok_or(FilterError::Input)?;
    match locale {
        Locale::Nl => write!(out, "{day:02}-{month:02}-{year:04}")?,
        Locale::De => write!(out, "{day:02}.{month:02}.{year:04}")?,
        Locale::EnUs => write!(out, "{month:02}/{day:02}/{year:04}")?,
        Locale::Iso => write!(out, "{year:04}-{month:02}-{day:02}")?,
    }
    Ok(())
}

/// `format_number`: two fraction digits, grouped per the locale table
/// (`docs/format.md`, "Filters").
///
/// Rounds half away from zero on the number's shortest decimal form, as a
/// person rounding by hand would (`2.675` → `2.68`, `0.125` → `0.13`,
/// `1.005` → `1.01`, although none of these is exactly representable as a
/// double); writes `-` for negatives but never `-0.00`; prints integers held
/// exactly (`i64`/`u64`, including beyond 2^53, and a [`BigInt`](templiqx_contracts::BigInt) of any
/// size) digit for digit, with no float round-trip.
///
/// # Errors
///
/// [`FilterError::Input`] for a non-finite double (which no JSON value can
/// hold, only a typed `f64`).
pub fn write_number<W: Write + ?Sized>(
    n: Number<'_>,
    locale: Locale,
    out: &mut W,
) -> Result<(), FilterError> {
    // Integer digits, then fraction digits, of |n| in plain decimal form.
    // f64's `Display` is the shortest round-trip form and never uses an
    // exponent; only the first three fraction digits matter for rounding.
    let mut digits = Digits::new();
    let negative = match n {
        Number::I64(i) => {
            write!(digits, "{}", i.unsigned_abs())?;
            i < 0
        }
        Number::U64(u) => {
            write!(digits, "{u}")?;
            false
        }
        Number::F64(f) if !f.is_finite() => return Err(FilterError::Input),
        Number::F64(f) => {
            write!(digits, "{}", f.abs())?;
            f.is_sign_negative()
        }
        // An integer of any length: no rounding, no fraction.
        Number::Big(b) => {
            let int = b.magnitude().as_bytes();
            return write_grouped(b.is_negative(), int, *b"00", locale, out);
        }
    };
    let (int, frac) = digits.split();
    // Round to two fraction digits, half away from zero on the magnitude.
    let mut cents = [
        frac.first().copied().unwrap_or(b'0'),
        frac.get(1).copied().unwrap_or(b'0'),
    ];
    let mut carry = frac.get(2).is_some_and(|&d| d >= b'5');
    for d in cents.iter_mut().rev().chain(int.iter_mut().rev()) {
        if !carry {
            break;
        }
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            carry = false;
        }
    }
    if carry {
        // A carry out of the top digit (`999.995` → `1000.00`) prepends a `1`.
        let mut int_digits = Vec::with_capacity(int.len() + 1);
        int_digits.push(b'1');
        int_digits.extend_from_slice(int);
        write_grouped(negative, &int_digits, cents, locale, out)
    } else {
        write_grouped(negative, int, cents, locale, out)
    }
}

/// Writes `int`, grouped per `locale`, the decimal separator and `cents`;
/// `-` first when `negative` and the amount is not zero (never `-0.00`).
fn write_grouped<W: Write + ?Sized>(
    negative: bool,
    int: &[u8],
    cents: [u8; 2],
    locale: Locale,
    out: &mut W,
) -> Result<(), FilterError> {
    let zero = int.iter().chain(&cents).all(|&d| d == b'0');
    if negative && !zero {
        out.write_char('-')?;
    }
    let (group, decimal) = locale.number_separators();
    let total = int.len();
    for (written, &d) in int.iter().enumerate() {
        if let Some(sep) = group
            && written > 0
            && (total - written).is_multiple_of(3)
        {
            out.write_char(sep)?;
        }
        out.write_char(char::from(d))?;
    }
    if total == 0 {
        out.write_char('0')?;
    }
    out.write_char(decimal)?;
    out.write_char(char::from(cents[0]))?;
    out.write_char(char::from(cents[1]))?;
    Ok(())
}

/// Plain decimal digits of a number's magnitude, on the stack.
struct Digits {
    buf: [u8; Digits::CAP],
    len: usize,
}

impl Digits {
    /// The shortest form has at most 17 significant digits, so the longest
    /// plain forms are `f64::MAX` (309 digits) and the smallest subnormal
    /// (`0.` then 323 zeros and `5`).
    const CAP: usize = 400;

    fn new() -> Digits {
        Digits {
            buf: [0; Digits::CAP],
            len: 0,
        }
    }

    /// `(integer digits, fraction digits)`; a leading `0` integer part is
    /// kept (`0.125` → `("0", "125")`).
    fn split(&mut self) -> (&mut [u8], &[u8]) {
        let digits = &mut self.buf[..self.len];
        match digits.iter().position(|&b| b == b'.') {
            Some(dot) => {
                let (int, rest) = digits.split_at_mut(dot);
                (int, rest.get(1..).unwrap_or(&[]))
            }
            None => (digits, &[]),
        }
    }
}

impl Write for Digits {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        let slot = self.buf.get_mut(self.len..end).ok_or(fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// A small stack buffer that batches per-character writes into few
/// `write_str` calls on the inner writer.
struct Batch<'w, W: Write + ?Sized> {
    out: &'w mut W,
    buf: [u8; 256],
    len: usize,
}

impl<'w, W: Write + ?Sized> Batch<'w, W> {
    fn new(out: &'w mut W) -> Self {
        Batch {
            out,
            buf: [0; 256],
            len: 0,
        }
    }

    fn push(&mut self, c: char) -> fmt::Result {
        if self.len + 4 > self.buf.len() {
            self.flush()?;
        }
        let n = c.encode_utf8(&mut self.buf[self.len..]).len();
        self.len += n;
        Ok(())
    }

    fn flush(&mut self) -> fmt::Result {
        // Only whole UTF-8 encodings are ever pushed.
        let s = std::str::from_utf8(&self.buf[..self.len]).map_err(|_| fmt::Error)?;
        self.out.write_str(s)?;
        self.len = 0;
        Ok(())
    }
}

/// `lower`: exactly [`str::to_lowercase`] (Unicode full lower-case mapping,
/// including the context-sensitive final sigma), streamed to `out` without
/// materialising the result.
///
/// # Errors
///
/// Only when `out` refuses a write.
pub fn write_lower<W: Write + ?Sized>(s: &str, out: &mut W) -> fmt::Result {
    let mut batch = Batch::new(out);
    for (i, c) in s.char_indices() {
        if c == 'Σ' {
            batch.push(if is_word_final_sigma(s, i) {
                'ς'
            } else {
                'σ'
            })?;
        } else {
            for l in c.to_lowercase() {
                batch.push(l)?;
            }
        }
    }
    batch.flush()
}

/// `upper`: exactly [`str::to_uppercase`] (Unicode full upper-case mapping,
/// which has no context-sensitive rule), streamed to `out`.
///
/// # Errors
///
/// Only when `out` refuses a write.
pub fn write_upper<W: Write + ?Sized>(s: &str, out: &mut W) -> fmt::Result {
    let mut batch = Batch::new(out);
    for c in s.chars() {
        for u in c.to_uppercase() {
            batch.push(u)?;
        }
    }
    batch.flush()
}

/// Unicode `Final_Sigma` (SpecialCasing.txt), as `str::to_lowercase`
/// applies it to the `Σ` at byte `i`: preceded by a cased letter (skipping
/// case-ignorable characters) and not followed by one.
fn is_word_final_sigma(s: &str, i: usize) -> bool {
    let before = s.get(..i).unwrap_or("");
    let after = s.get(i + 'Σ'.len_utf8()..).unwrap_or("");
    skip_ignorable_then_cased(before.chars().rev()) && !skip_ignorable_then_cased(after.chars())
}

/// Skips `Case_Ignorable` characters, then reports whether the next one is
/// `Cased`. `std` exposes neither property, so they are observed through
/// `std`'s own final-sigma behaviour on tiny probes (no table of ours can
/// disagree with `str::to_lowercase`); ASCII is answered directly.
fn skip_ignorable_then_cased(chars: impl Iterator<Item = char>) -> bool {
    for c in chars {
        match probe(c) {
            CaseClass::Cased => return true,
            CaseClass::Ignorable => continue,
            CaseClass::Neither => return false,
        }
    }
    false
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CaseClass {
    /// `Cased` and not `Case_Ignorable`.
    Cased,
    /// `Case_Ignorable` (possibly also `Cased`: such characters are skipped).
    Ignorable,
    /// Neither.
    Neither,
}

fn probe(c: char) -> CaseClass {
    if c.is_ascii() {
        return match c {
            'a'..='z' | 'A'..='Z' => CaseClass::Cased,
            '\'' | '.' | ':' | '^' | '`' => CaseClass::Ignorable,
            _ => CaseClass::Neither,
        };
    }
    // "cΣ" ends in ς iff c is Cased and not Case_Ignorable; "AcΣ" ends in ς
    // iff c is Cased or Case_Ignorable.
    let ends_final = |probe: &str| probe.to_lowercase().ends_with('ς');
    let mut buf = [0u8; 8];
    let mut with_a = [0u8; 9];
    with_a[0] = b'A';
    let alone = c.encode_utf8(&mut buf).len();
    buf[alone..alone + 2].copy_from_slice("Σ".as_bytes());
    with_a[1..alone + 3].copy_from_slice(&buf[..alone + 2]);
    let (Ok(alone_probe), Ok(a_probe)) = (
        std::str::from_utf8(&buf[..alone + 2]),
        std::str::from_utf8(&with_a[..alone + 3]),
    ) else {
        return CaseClass::Neither;
    };
    if ends_final(alone_probe) {
        CaseClass::Cased
    } else if ends_final(a_probe) {
        CaseClass::Ignorable
    } else {
        CaseClass::Neither
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_is_str_trim() {
        // Every ASCII byte and a few non-ASCII characters (white space or
        // not) at either end, alone and around text.
        let mut ends: Vec<String> = (0..0x80u8).map(|b| char::from(b).to_string()).collect();
        ends.extend(["\u{85}", "\u{a0}", "\u{3000}", "é", "😀"].map(str::to_owned));
        for first in &ends {
            for last in &ends {
                for s in [
                    format!("{first}{last}"),
                    format!("{first}ab{last}"),
                    format!("{first} x {last}"),
                ] {
                    assert_eq!(trim(&s), s.trim(), "{s:?}");
                }
            }
        }
        assert_eq!(trim(""), "");
    }

    fn date(s: &str, locale: Locale) -> Result<String, FilterError> {
        let mut out = String::new();
        write_date(s, locale, &mut out).map(|()| out)
    }

    fn number(n: Number, locale: Locale) -> String {
        let mut out = String::new();
        match write_number(n, locale, &mut out) {
            Ok(()) => out,
            Err(e) => format!("{e:?}"),
        }
    }

    fn json_number(text: &str) -> templiqx_contracts::JsonNumber {
        templiqx_contracts::JsonNumber::parse(text).expect("test literal")
    }

    /// The whole locale table of `docs/format.md`, for every spelling of each
    /// family: BCP 47 tags and POSIX names with a codeset or modifier.
    #[test]
    fn documented_locale_table() {
        let rows: &[(&[&str], &str, &str)] = &[
            (
                &[
                    "nl",
                    "nl-NL",
                    "nl_NL",
                    "NL",
                    "nl-BE",
                    "nl_NL.UTF-8",
                    "nl.utf8",
                    "nl_BE@euro",
                ],
                "12-07-2026",
                "1.234.567,50",
            ),
            (
                &[
                    "de",
                    "de-DE",
                    "de_AT",
                    "DE-ch",
                    "de_DE@euro",
                    "de_DE.ISO-8859-1",
                ],
                "12.07.2026",
                "1.234.567,50",
            ),
            (
                &[
                    "en-US",
                    "en_US",
                    "EN-us",
                    "en-us-posix",
                    "en-US-u-ca-gregory",
                    "en_US.UTF-8",
                    "en_US.utf8@posix",
                    "en_US@calendar=gregorian",
                ],
                "07/12/2026",
                "1,234,567.50",
            ),
            (
                &[
                    "",
                    "en",
                    "en-GB",
                    "fr-FR",
                    "n",
                    "d",
                    "en-U",
                    "enUS",
                    "xnl",
                    "nlx",
                    "default",
                    "dutch",
                    "en-USA",
                    "en.UTF-8",
                    "en_GB.UTF-8",
                    "C.UTF-8",
                    "POSIX",
                    "en_USA.UTF-8",
                    "dex.UTF-8",
                    "nl:NL",
                    "en_US:UTF-8",
                ],
                "2026-07-12",
                "1234567.50",
            ),
        ];
        for (tags, want_date, want_number) in rows {
            for tag in *tags {
                let locale = Locale::from_tag(tag);
                assert_eq!(
                    date("2026-07-12", locale).as_deref(),
                    Ok(*want_date),
                    "{tag}"
                );
                assert_eq!(
                    number(json_number("1234567.5").as_number(), locale),
                    *want_number,
                    "{tag}"
                );
            }
        }
        assert_eq!(Locale::from_value(None), Locale::Iso);
        assert_eq!(Locale::from_value(Some(ValueRef::Null)), Locale::Iso);
        assert_eq!(
            Locale::from_value(Some(ValueRef::String("nl_NL"))),
            Locale::Nl
        );
    }

    #[test]
    fn format_number_rounds_half_away_from_zero_on_the_shortest_form() {
        let cases = [
            ("2.675", "2.68"),
            ("0.125", "0.13"),
            ("1.005", "1.01"),
            ("-2.675", "-2.68"),
            ("2.674999", "2.67"),
            ("0.004", "0.00"),
            ("-0.004", "0.00"),
            ("-0.005", "-0.01"),
            ("-0.0", "0.00"),
            ("0", "0.00"),
            ("-0", "0.00"),
            ("7", "7.00"),
            ("-7", "-7.00"),
            ("999.995", "1000.00"),
            ("9.999", "10.00"),
            ("0.995", "1.00"),
            ("1e21", "1000000000000000000000.00"),
            ("1e-7", "0.00"),
            ("5e-324", "0.00"),
            ("123456.789", "123456.79"),
            ("9007199254740993", "9007199254740993.00"),
            ("-9007199254740993", "-9007199254740993.00"),
            ("18446744073709551615", "18446744073709551615.00"),
            ("-9223372036854775808", "-9223372036854775808.00"),
        ];
        for (input, want) in cases {
            assert_eq!(
                number(json_number(input).as_number(), Locale::Iso),
                want,
                "{input}"
            );
        }
        assert_eq!(
            number(json_number("-9007199254740993").as_number(), Locale::Nl),
            "-9.007.199.254.740.993,00"
        );
        assert_eq!(
            number(json_number("999999.995").as_number(), Locale::EnUs),
            "1,000,000.00"
        );
        assert_eq!(number(json_number("100").as_number(), Locale::De), "100,00");
        assert_eq!(
            number(json_number("1000").as_number(), Locale::De),
            "1.000,00"
        );
        assert_eq!(number(Number::F64(f64::MAX), Locale::Iso).len(), 309 + 3);
        assert_eq!(number(Number::F64(f64::NAN), Locale::Iso), "Input");
        assert_eq!(number(Number::F64(f64::INFINITY), Locale::Iso), "Input");
    }

    #[test]
    fn format_date_rejects_what_is_not_a_real_date() {
        for bad in [
            "2026-02-30",
            "2026-13-01",
            "2026-7-12",
            " 2026-07-12",
            "2026-07-12T00:00:00Z",
            "",
            "12-07-2026",
        ] {
            assert_eq!(date(bad, Locale::Nl), Err(FilterError::Input), "{bad:?}");
        }
        assert_eq!(date("2024-02-29", Locale::De).as_deref(), Ok("29.02.2024"));
        assert_eq!(
            date("0001-01-01", Locale::EnUs).as_deref(),
            Ok("01/01/0001")
        );
    }

    #[test]
    fn case_filters_match_std_exactly() {
        let samples = [
            "ΟΔΟΣ",
            "ΟΔΟΣ.",
            "Σ",
            "AΣ",
            "AΣb",
            "A'Σ",
            "A'Σ'b",
            "A\u{0345}Σ",
            "ʰΣ",
            "AΣ\u{0301}",
            "ΣΑΣ ΣΑΣ",
            "İstanbul straße ǅ ﬁ K Ω",
            "Hello, World! 123",
            "",
        ];
        for s in samples {
            let mut lower = String::new();
            let mut upper = String::new();
            write_lower(s, &mut lower).expect("string writer");
            write_upper(s, &mut upper).expect("string writer");
            assert_eq!(lower, s.to_lowercase(), "{s:?}");
            assert_eq!(upper, s.to_uppercase(), "{s:?}");
        }
        let long = "Ab".repeat(1000);
        let mut lower = String::new();
        write_lower(&long, &mut lower).expect("string writer");
        assert_eq!(lower, long.to_lowercase());
    }

    /// The renderer's budget arithmetic relies on this: a case mapping
    /// changes a string's UTF-8 length by at most a factor of 3 either way.
    #[test]
    fn case_mappings_change_length_by_at_most_a_factor_of_three() {
        for c in (0..=u32::from(char::MAX)).filter_map(char::from_u32) {
            let len = c.len_utf8();
            for mapped in [
                c.to_lowercase().map(char::len_utf8).sum::<usize>(),
                c.to_uppercase().map(char::len_utf8).sum::<usize>(),
            ] {
                assert!(mapped <= 3 * len && len <= 3 * mapped, "{c:?}");
            }
        }
    }

    #[test]
    fn ascii_case_classes_agree_with_std() {
        for b in 0u8..128 {
            let c = char::from(b);
            let probe_std = {
                let alone = format!("{c}Σ").to_lowercase().ends_with('ς');
                let after_a = format!("A{c}Σ").to_lowercase().ends_with('ς');
                if alone {
                    CaseClass::Cased
                } else if after_a {
                    CaseClass::Ignorable
                } else {
                    CaseClass::Neither
                }
            };
            assert_eq!(probe(c), probe_std, "{c:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn lower_and_upper_equal_std(s in "\\PC{0,40}", greek in "[ΣσςΑαA'.\u{0345}\u{0301} b]{0,12}") {
            for s in [s.as_str(), greek.as_str()] {
                let mut lower = String::new();
                let mut upper = String::new();
                write_lower(s, &mut lower).expect("string writer");
                write_upper(s, &mut upper).expect("string writer");
                proptest::prop_assert_eq!(&lower, &s.to_lowercase());
                proptest::prop_assert_eq!(&upper, &s.to_uppercase());
            }
        }
    }
}
