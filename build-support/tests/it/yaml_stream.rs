//! Stream-level YAML rules: only printable characters (YAML 1.2 section
//! 5.1), no merge keys, no `%YAML` directive for another version
//! (docs/decisions.md, "YAML library").

use templiqx_build::compile_str;
use templiqx_build::yaml::{self, NodeValue};
use templiqx_contracts::{CapabilityProfile, Code, Diagnostic};

fn fails(text: &str) -> Diagnostic {
    match yaml::parse(text) {
        Ok(node) => panic!("{text:?} should fail, parsed {:?}", node.to_json()),
        Err(d) => {
            assert_eq!(d.code, Code::ParseYaml, "{d}");
            assert!(d.help.as_deref().is_some_and(|h| !h.is_empty()), "{d}");
            d
        }
    }
}

fn at(d: &Diagnostic) -> (u32, u32) {
    let s = d.span.expect("a span");
    (s.start.line, s.start.column)
}

/// Every character outside YAML's printable set.
fn non_printable() -> impl Iterator<Item = char> {
    (0u32..0x20)
        .filter(|c| ![0x09, 0x0A, 0x0D].contains(c))
        .chain([0x7F])
        .chain((0x80..0xA0).filter(|c| *c != 0x85))
        .chain([0xFFFE, 0xFFFF])
        .filter_map(char::from_u32)
}

#[test]
fn every_non_printable_character_is_refused_where_it_stands() {
    let mut count = 0;
    for c in non_printable() {
        for (text, line, column) in [
            (format!("a: x{c}y\n"), 1, 5),
            (format!("a: 1\nb: \"q{c}\"\n"), 2, 6),
            (format!("a: 'q{c}'\n"), 1, 6),
            (format!("a: |\n  q{c}\n"), 2, 4),
            (format!("# {c}\na: 1\n"), 1, 3),
            (format!("k{c}: 1\n"), 1, 2),
        ] {
            let d = fails(&text);
            assert_eq!(at(&d), (line, column), "{text:?}: {d}");
            let code = format!("U+{:04X}", c as u32);
            assert!(d.message.contains(&code), "{d}");
            assert!(
                d.help
                    .as_deref()
                    .unwrap()
                    .contains(&format!("\\u{:04X}", c as u32)),
                "{d}"
            );
            count += 1;
        }
    }
    assert_eq!(count, 6 * (29 + 1 + 31 + 2));
}

#[test]
fn the_messages_name_the_control_character() {
    assert!(fails("a: x\u{1b}y").message.contains("U+001B (ESC)"));
    assert!(fails("a: \"\u{7}\"").message.contains("U+0007 (BEL)"));
    assert!(fails("a: \u{7f}").message.contains("U+007F (DEL)"));
    assert!(fails("a: \u{0}").message.contains("U+0000 (NUL)"));
}

#[test]
fn escaped_and_printable_characters_stay_allowed() {
    let node = yaml::parse(
        "a: \"\\e[1m\\a\\x07\\u001B\"\nb: \"x\u{85}\u{a0}\u{fffd}\u{10000}\"\nc: \"\\uFFFE\"\n",
    )
    .unwrap();
    assert_eq!(
        node.pointer("/a").unwrap().value,
        NodeValue::String("\u{1b}[1m\u{7}\u{7}\u{1b}".into())
    );
    assert_eq!(
        node.pointer("/b").unwrap().value,
        NodeValue::String("x\u{85}\u{a0}\u{fffd}\u{10000}".into())
    );
    assert_eq!(
        node.pointer("/c").unwrap().value,
        NodeValue::String("\u{fffe}".into())
    );
    // A byte order mark (U+FEFF) is printable.
    assert!(yaml::parse("\u{feff}a: 1\n").is_ok());
}

const CONTRACT_HEAD: &str = "api_version: templiqx/v1alpha1\nid: c\nversion: 0.1.0\ncapabilities: [structured_output]\noutput_schema: { type: object }\n";

#[test]
fn a_contract_with_a_raw_control_character_does_not_compile() {
    for (value, line, column) in [
        ("plain \u{1b}[1m bold", 10, 22),
        ("\"quoted \u{7} bell\"", 10, 24),
    ] {
        let text = format!(
            "{CONTRACT_HEAD}messages:\n  - role: user\n    content:\n      - kind: text\n        value: {value}\n"
        );
        let c = compile_str(
            &text,
            "c.yaml",
            &CapabilityProfile::parse_list("structured_output"),
        );
        assert!(c.interaction.is_none());
        assert_eq!(c.diagnostics.len(), 1, "{}", c.render_diagnostics());
        let d = &c.diagnostics[0];
        assert_eq!(d.code, Code::ParseYaml);
        assert_eq!(d.file.as_deref(), Some("c.yaml"));
        assert_eq!(at(d), (line, column), "{}", c.render_diagnostics());
    }
    // The escaped forms compile and render the character.
    let text = format!(
        "{CONTRACT_HEAD}messages:\n  - role: user\n    content:\n      - {{ kind: text, value: \"\\e[1m\\a\" }}\n"
    );
    let c = compile_str(
        &text,
        "c.yaml",
        &CapabilityProfile::parse_list("structured_output"),
    );
    assert!(c.interaction.is_some(), "{}", c.render_diagnostics());
}

#[test]
fn merge_keys_are_refused_at_the_key() {
    let text = "defaults: &defaults { tone: formal }\nletter: { <<: *defaults, length: long }\n";
    let d = fails(text);
    assert_eq!(at(&d), (2, 11));
    assert!(d.message.contains("merge keys (`<<`)"), "{d}");
    assert!(d.help.as_deref().unwrap().contains("\"<<\""), "{d}");
    let d = fails("letter:\n  <<: [a]\n");
    assert_eq!(at(&d), (2, 3));
    // A quoted `<<` is an ordinary key in YAML 1.1 and 1.2 alike.
    let node = yaml::parse("letter: { \"<<\": 1, '<<x': 2, a<<: 3 }\n").unwrap();
    assert_eq!(
        node.to_json(),
        serde_json::json!({ "letter": { "<<": 1, "<<x": 2, "a<<": 3 } })
    );
    // As a value, `<<` is a string.
    assert_eq!(
        yaml::parse("a: <<\n").unwrap().to_json(),
        serde_json::json!({ "a": "<<" })
    );
}

#[test]
fn a_version_directive_other_than_1_2_is_refused() {
    for (text, version, line, column) in [
        ("%YAML 2.0\n---\na: 1\n", "2.0", 1, 7),
        ("%YAML 1.1\n---\na: yes\n", "1.1", 1, 7),
        (
            "# comment\n\n%YAML   1.3 # trailing\n---\na: 1\n",
            "1.3",
            3,
            9,
        ),
        (
            "%TAG !e! tag:example.com,2000:\n%YAML 1.0\n---\na: 1\n",
            "1.0",
            2,
            7,
        ),
        ("%YAML 1.2.0\n---\na: 1\n", "1.2.0", 1, 7),
    ] {
        let d = fails(text);
        assert!(d.message.contains(&format!("`{version}`")), "{text:?}: {d}");
        assert_eq!(at(&d), (line, column), "{text:?}: {d}");
    }
    assert_eq!(
        yaml::parse("%YAML 1.2\n---\na: 1\n").unwrap().to_json(),
        serde_json::json!({ "a": 1 })
    );
    // A `%` later in the document is content, not a directive.
    assert_eq!(
        yaml::parse("a: |\n  %YAML 2.0\n").unwrap().to_json(),
        serde_json::json!({ "a": "%YAML 2.0\n" })
    );
    let text =
        format!("%YAML 2.0\n---\n{CONTRACT_HEAD}messages: [{{ role: user, content: [] }}]\n");
    let c = compile_str(
        &text,
        "c.yaml",
        &CapabilityProfile::parse_list("structured_output"),
    );
    assert_eq!(c.diagnostics.len(), 1);
    assert_eq!(c.diagnostics[0].code, Code::ParseYaml);
}
