//! Integer literals beyond the 64-bit range: the canonical spelling of a
//! double reads (so canonical JSON output always reads back; found by the
//! `canonical` fuzz target), any other is refused rather than rounded
//! (docs/decisions.md, "Canonical JSON: exact big integers").

use templiqx_build::text::exact_integers;
use templiqx_contracts::canonical::{fingerprint, sha256_hex, to_canonical_string};

fn read(text: &str) -> serde_json::Value {
    exact_integers(text).unwrap_or_else(|d| panic!("{text}: {d}"));
    serde_json::from_str(text).unwrap()
}

#[test]
fn the_canonical_spelling_of_a_double_fingerprints() {
    let v = read(r#"{"values":[100000000000000000000]}"#);
    let canonical = to_canonical_string(&v);
    assert_eq!(canonical, r#"{"values":[100000000000000000000]}"#);
    assert_eq!(fingerprint(&v), sha256_hex(canonical.as_bytes()));
    // The double written another way is the same value and fingerprint.
    assert_eq!(fingerprint(&read(r#"{"values":[1e20]}"#)), fingerprint(&v));
    assert_eq!(
        to_canonical_string(&read("[-100000000000000000000, 18446744073709552000]")),
        "[-100000000000000000000,18446744073709552000]"
    );
}

#[test]
fn canonical_json_of_any_double_reads_back_to_the_same_bytes() {
    let v = read("[1.2345678901234568e20, 1234567890123456789.0, 2e300, 9.5e20, -4.4e19]");
    let once = to_canonical_string(&v);
    assert_eq!(
        once,
        "[123456789012345680000,1234567890123456800,2e+300,950000000000000000000,-44000000000000000000]"
    );
    assert_eq!(to_canonical_string(&read(&once)), once);
}

#[test]
fn other_integers_beyond_64_bits_are_refused_with_the_double_they_would_be() {
    for (text, literal, double) in [
        (
            "[100000000000000000001]",
            "100000000000000000001",
            "100000000000000000000",
        ),
        (
            "[18446744073709551616]",
            "18446744073709551616",
            "18446744073709552000",
        ),
        (
            "[-9223372036854775809]",
            "-9223372036854775809",
            "-9223372036854776000",
        ),
    ] {
        let d = exact_integers(text).unwrap_err();
        assert_eq!(d.code.as_str(), "TQX_PARSE_JSON");
        assert!(d.message.contains(&format!("`{literal}`")), "{d}");
        let help = d.help.unwrap();
        assert!(help.contains(&format!("`{double}`")), "{help}");
        // The help is true: the suggested spelling reads, as that double.
        let suggested = text.replace(literal, double);
        assert_eq!(to_canonical_string(&read(&suggested)), suggested);
    }
}
