//! The two `format`s of the bounded subset, checked exactly as RFC 3339
//! section 5.6 writes them (`docs/format.md`, "The bounded JSON Schema
//! subset": `format` is `date` or `date-time`, enforced as RFC 3339).
//!
//! ```text
//! date-fullyear   = 4DIGIT
//! date-month      = 2DIGIT  ; 01-12
//! date-mday       = 2DIGIT  ; 01-28, 01-29, 01-30, 01-31 based on month/year
//! time-hour       = 2DIGIT  ; 00-23
//! time-minute     = 2DIGIT  ; 00-59
//! time-second     = 2DIGIT  ; 00-58, 00-59, 00-60 based on leap second rules
//! time-secfrac    = "." 1*DIGIT
//! time-numoffset  = ("+" / "-") time-hour ":" time-minute
//! time-offset     = "Z" / time-numoffset
//! partial-time    = time-hour ":" time-minute ":" time-second [time-secfrac]
//! full-date       = date-fullyear "-" date-month "-" date-mday
//! full-time       = partial-time time-offset
//! date-time       = full-date "T" full-time
//! ```
//!
//! `DIGIT` is ASCII `0`-`9` only (RFC 5234); `T` and `Z` may also be written
//! `t` and `z` (RFC 3339 section 5.6, note on case). The space separator
//! that the section's prose allows "for readability" is not part of the
//! grammar and is rejected, as the JSON Schema Test Suite expects. A leap
//! second (`:60`) is accepted only when the time, converted to UTC with its
//! offset, is `23:59:60` (section 5.7; the table of leap seconds actually
//! inserted is not consulted, as no validator can know future ones).
//!
//! Why hand-written and not `time`/`jiff`: `jiff` parses the Temporal /
//! RFC 9557 grammar, which also accepts ISO 8601 forms that RFC 3339 does
//! not (`20230328`, a space separator, omitted seconds); `time`'s
//! `Rfc3339` deliberately accepts *any* byte as the date/time separator and
//! needs a separate format description for `full-date`. Either would need a
//! pre-pass that re-implements half the grammar, and the vocabulary crate
//! would gain several dependencies for forty lines of byte matching. The
//! code below is checked against the official JSON Schema Test Suite
//! (`optional/format/date.json`, `date-time.json`) by
//! `build-support/tests/it/json_schema_suite.rs`.

/// Parses an RFC 3339 `full-date` (`YYYY-MM-DD`, a real proleptic Gregorian
/// calendar date) into `(year, month, day)`.
///
/// Returns `None` for anything else: other lengths, signs, non-ASCII digits,
/// month `00`/`13`, day `00`, or a day past the end of its month
/// (`2026-02-30`, `2100-02-29`). Years `0000`-`9999` are accepted.
///
/// ```
/// use templiqx_contracts::format::parse_date;
/// assert_eq!(parse_date("2024-02-29"), Some((2024, 2, 29)));
/// assert_eq!(parse_date("2026-02-30"), None);
/// assert_eq!(parse_date("2026-7-12"), None);
/// ```
pub fn parse_date(s: &str) -> Option<(i32, u8, u8)> {
    let b = s.as_bytes();
    if b.len() != 10 {
        return None;
    }
    full_date(b)
}

/// Whether `s` is an RFC 3339 `full-date` naming a real calendar date
/// (see [`parse_date`]).
pub fn is_date(s: &str) -> bool {
    parse_date(s).is_some()
}

/// Whether `s` is an RFC 3339 section 5.6 `date-time`:
/// `full-date "T" partial-time time-offset`, e.g. `2026-07-12T09:30:00Z`,
/// `1990-12-31T15:59:59.123-08:00`, `1963-06-19t08:30:06z`.
///
/// The date must be real, hours `00`-`23`, minutes `00`-`59`, seconds
/// `00`-`59` or a leap second `60` at `23:59:60` UTC; the fraction has at
/// least one digit and no upper limit; offsets are `Z`/`z` or `±hh:mm` with
/// `hh` `00`-`23` and `mm` `00`-`59`. Nothing may follow (not even a newline).
///
/// ```
/// use templiqx_contracts::format::is_date_time;
/// assert!(is_date_time("1998-12-31T15:59:60.123-08:00")); // 23:59:60 UTC
/// assert!(!is_date_time("1998-12-31T23:58:60Z"));
/// assert!(!is_date_time("2026-07-12 09:30:00Z"));
/// ```
pub fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    // Shortest form: `YYYY-MM-DDThh:mm:ssZ` (20 bytes).
    if b.len() < 20 || !matches!(b[10], b'T' | b't') {
        return false;
    }
    if full_date(&b[..10]).is_none() {
        return false;
    }
    let t = &b[11..];
    let (Some(hour), Some(minute), Some(second)) = (two(&t[0..2]), two(&t[3..5]), two(&t[6..8]))
    else {
        return false;
    };
    if t[2] != b':' || t[5] != b':' || hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut rest = &t[8..];
    if let [b'.', frac @ ..] = rest {
        let digits = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return false;
        }
        rest = &frac[digits..];
    }
    // Offset in minutes east of UTC.
    let offset: i32 = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let (Some(oh), Some(om)) = (two(&[*h1, *h2]), two(&[*m1, *m2])) else {
                return false;
            };
            if oh > 23 || om > 59 {
                return false;
            }
            let minutes = i32::from(oh) * 60 + i32::from(om);
            if *sign == b'-' { -minutes } else { minutes }
        }
        _ => return false,
    };
    if second == 60 {
        // Local time = UTC + offset, so UTC = local - offset (mod one day).
        let utc = (i32::from(hour) * 60 + i32::from(minute) - offset).rem_euclid(24 * 60);
        if utc != 23 * 60 + 59 {
            return false;
        }
    }
    true
}

/// Whether `year` is a leap year of the proleptic Gregorian calendar.
pub fn is_leap_year(year: i32) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// The number of days in `month` (1-12) of `year`; `0` for other months.
pub fn days_in_month(year: i32, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(year) => 29,
        2 => 28,
        _ => 0,
    }
}

/// `full-date` over exactly 10 bytes.
fn full_date(b: &[u8]) -> Option<(i32, u8, u8)> {
    let [y1, y2, y3, y4, b'-', m1, m2, b'-', d1, d2] = *b else {
        return None;
    };
    let year = i32::from(two(&[y1, y2])?) * 100 + i32::from(two(&[y3, y4])?);
    let month = two(&[m1, m2])?;
    let day = two(&[d1, d2])?;
    (day >= 1 && day <= days_in_month(year, month)).then_some((year, month, day))
}

/// Two ASCII digits as a number.
fn two(b: &[u8]) -> Option<u8> {
    match *b {
        [a @ b'0'..=b'9', c @ b'0'..=b'9'] => Some((a - b'0') * 10 + (c - b'0')),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(parse_date("2026-07-12"), Some((2026, 7, 12)));
        assert_eq!(parse_date("0000-02-29"), Some((0, 2, 29)));
        assert_eq!(parse_date("9999-12-31"), Some((9999, 12, 31)));
        for bad in [
            "2026-02-30",
            "2021-02-29",
            "2100-02-29",
            "2026-00-01",
            "2026-13-01",
            "2026-01-00",
            "2026-04-31",
            "+2026-01-01",
            "2026-01-01 ",
            "2026/01/01",
            "20260101",
            "2026-1-01",
            "",
            "2026-01-0\u{9ea}",
        ] {
            assert_eq!(parse_date(bad), None, "{bad:?}");
        }
        assert!(is_date("2000-02-29"));
        assert!(is_leap_year(2000) && is_leap_year(2024) && !is_leap_year(1900));
        assert_eq!(days_in_month(2026, 13), 0);
    }

    #[test]
    fn date_times() {
        for good in [
            "2026-07-12T09:30:00Z",
            "2026-07-12t09:30:00z",
            "2026-07-12T09:30:00.5+02:00",
            "2026-07-12T09:30:00.123456789012-00:00",
            "1998-12-31T23:59:60Z",
            "1999-01-01T00:59:60+01:00",
            "1998-12-31T15:59:60.123-08:00",
            "2026-07-12T23:59:59+23:59",
        ] {
            assert!(is_date_time(good), "{good:?}");
        }
        for bad in [
            "2026-07-12T09:30:00",
            "2026-07-12 09:30:00Z",
            "2026-07-12T09:30Z",
            "2026-07-12T09:30:00.Z",
            "2026-07-12T24:00:00Z",
            "2026-07-12T09:60:00Z",
            "2026-07-12T09:30:61Z",
            "2026-07-12T23:58:60Z",
            "1998-12-31T23:59:60+01:00",
            "2026-07-12T09:30:00+24:00",
            "2026-07-12T09:30:00+01:60",
            "2026-07-12T09:30:00+01",
            "2026-07-12T09:30:00+0100",
            "2026-07-12T09:30:00Z\n",
            "2026-02-30T09:30:00Z",
            "2026-07-12T09:30:00+01:00Z",
            "2026-07-12T0\u{9ea}:30:00Z",
            "2026-07-12T09:30:00\u{ff3a}",
        ] {
            assert!(!is_date_time(bad), "{bad:?}");
        }
    }
}
