//! The incremental partial JSON reader (`templiqx::partial`,
//! `docs/runtime.md`, "Partial JSON while streaming"): every prefix of
//! every valid text shows exactly what it should, whatever the deltas;
//! `finish` agrees with the strict reader and `serde_json`; invalid texts
//! fail at the first character no JSON text continues with.

use proptest::prelude::*;
use templiqx::contracts::json::{self, Json, JsonNumber};
use templiqx::partial::{
    Completion, Expected, MAX_DEPTH, PartialError, PartialErrorKind, PartialJson, PartialNode,
    PartialValue, PendingKind,
};

// ---------------------------------------------------------------------
// Generated values, written with known places.

/// A JSON value with its members in the order written.
#[derive(Clone, Debug)]
enum G {
    Null,
    Bool(bool),
    /// A number literal (always finite as a double).
    Num(String),
    Str(String),
    Arr(Vec<G>),
    Obj(Vec<(String, G)>),
}

#[derive(Clone, Copy, Debug)]
enum Layout {
    Compact,
    Pretty,
    /// White space (space, tab, CR, LF) around every token.
    Spaced,
}

#[derive(Clone, Copy, Debug)]
enum Escapes {
    /// Only what must be escaped, short forms where they exist.
    Minimal,
    /// Also every non-ASCII character as `\u` (surrogate pairs beyond the
    /// BMP), upper-case hex.
    Ascii,
    /// Every character escaped: short forms, `\/`, else lower-case `\u`.
    All,
}

/// What a value of the text is expected to look like at each prefix.
#[derive(Debug)]
struct Exp {
    /// Byte offset of its first character.
    start: usize,
    /// Byte offset one past its last character.
    end: usize,
    kind: ExpKind,
    key: Option<String>,
}

#[derive(Debug)]
enum ExpKind {
    Null,
    Bool(bool),
    Num(JsonNumber),
    /// The decoded text, and after each written character (escape or raw)
    /// the byte offset in the text where it ends and the decoded length.
    Str(String, Vec<(usize, usize)>),
    Arr(usize),
    Obj(usize),
}

struct Written {
    text: String,
    /// Pre-order, as the reader's node ids.
    nodes: Vec<Exp>,
}

fn space(out: &mut String, layout: Layout, indent: usize, newline: bool) {
    match layout {
        Layout::Compact => {}
        Layout::Pretty => {
            if newline {
                out.push('\n');
                out.push_str(&"  ".repeat(indent));
            }
        }
        Layout::Spaced => out.push_str(if indent.is_multiple_of(2) {
            " \t"
        } else {
            "\r\n "
        }),
    }
}

fn write_string(s: &str, escapes: Escapes, out: &mut String) -> Vec<(usize, usize)> {
    let mut marks = Vec::new();
    let mut decoded = 0;
    out.push('"');
    for c in s.chars() {
        let short = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            '/' if matches!(escapes, Escapes::All) => Some("\\/"),
            _ => None,
        };
        let must = (c as u32) < 0x20;
        let unicode = |out: &mut String, upper: bool| {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                if upper {
                    out.push_str(&format!("\\u{unit:04X}"));
                } else {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        };
        match (short, escapes) {
            (Some(e), _) => out.push_str(e),
            (None, Escapes::All) => unicode(out, false),
            (None, Escapes::Ascii) if must || !c.is_ascii() => unicode(out, true),
            (None, _) if must => unicode(out, false),
            (None, _) => out.push(c),
        }
        decoded += c.len_utf8();
        marks.push((out.len(), decoded));
    }
    out.push('"');
    marks
}

fn write(
    g: &G,
    layout: Layout,
    escapes: Escapes,
    indent: usize,
    key: Option<String>,
    w: &mut Written,
) {
    let at = w.nodes.len();
    let start = w.text.len();
    let kind = match g {
        G::Null => {
            w.text.push_str("null");
            ExpKind::Null
        }
        G::Bool(b) => {
            w.text.push_str(if *b { "true" } else { "false" });
            ExpKind::Bool(*b)
        }
        G::Num(literal) => {
            w.text.push_str(literal);
            ExpKind::Num(JsonNumber::parse(literal).expect("a finite literal"))
        }
        G::Str(s) => {
            let marks = write_string(s, escapes, &mut w.text);
            ExpKind::Str(s.clone(), marks)
        }
        G::Arr(items) => ExpKind::Arr(items.len()),
        G::Obj(members) => ExpKind::Obj(members.len()),
    };
    w.nodes.push(Exp {
        start,
        end: 0,
        kind,
        key,
    });
    match g {
        G::Arr(items) => {
            w.text.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    w.text.push(',');
                }
                space(&mut w.text, layout, indent + 1, true);
                write(item, layout, escapes, indent + 1, None, w);
            }
            if !items.is_empty() {
                space(&mut w.text, layout, indent, true);
            }
            w.text.push(']');
        }
        G::Obj(members) => {
            w.text.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    w.text.push(',');
                }
                space(&mut w.text, layout, indent + 1, true);
                write_string(k, escapes, &mut w.text);
                space(&mut w.text, layout, indent + 1, false);
                w.text.push(':');
                if matches!(layout, Layout::Pretty) {
                    w.text.push(' ');
                }
                space(&mut w.text, layout, indent + 1, false);
                write(v, layout, escapes, indent + 1, Some(k.clone()), w);
            }
            if !members.is_empty() {
                space(&mut w.text, layout, indent, true);
            }
            w.text.push('}');
        }
        _ => {}
    }
    w.nodes[at].end = w.text.len();
}

fn written(g: &G, layout: Layout, escapes: Escapes) -> Written {
    let mut w = Written {
        text: String::new(),
        nodes: Vec::new(),
    };
    if matches!(layout, Layout::Spaced) {
        w.text.push_str("\n ");
    }
    write(g, layout, escapes, 0, None, &mut w);
    w
}

fn number_literal() -> impl Strategy<Value = String> {
    (
        any::<bool>(),
        prop_oneof![Just("0".to_owned()), "[1-9][0-9]{0,24}"],
        prop::option::of("[0-9]{1,6}"),
        prop::option::of((
            prop_oneof![Just("e"), Just("E")],
            prop_oneof![Just(""), Just("+"), Just("-")],
            0u32..280,
        )),
    )
        .prop_map(|(negative, int, frac, exp)| {
            let mut s = String::new();
            if negative {
                s.push('-');
            }
            s.push_str(&int);
            if let Some(frac) = frac {
                s.push('.');
                s.push_str(&frac);
            }
            if let Some((e, sign, digits)) = exp {
                s.push_str(e);
                s.push_str(sign);
                s.push_str(&digits.to_string());
            }
            s
        })
}

fn text_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => prop::char::range('a', 'z'),
        2 => any::<char>(),
        1 => prop::sample::select(vec![
            '"', '\\', '/', '\n', '\r', '\t', '\u{8}', '\u{c}', '\u{0}', '\u{1f}', '\u{7f}',
            'é', '€', '\u{2028}', '\u{FEFF}', '😀', '\u{10FFFF}', '\u{10000}', '\u{FFFF}',
        ]),
    ]
}

fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(text_char(), 0..max).prop_map(|cs| cs.into_iter().collect())
}

fn value() -> impl Strategy<Value = G> {
    let leaf = prop_oneof![
        Just(G::Null),
        any::<bool>().prop_map(G::Bool),
        number_literal().prop_map(G::Num),
        text(10).prop_map(G::Str),
    ];
    let any = leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(G::Arr),
            object(inner),
        ]
    });
    // Mostly an object, as a contract's output is.
    prop_oneof![1 => any.clone(), 3 => object(any)]
}

fn object(values: impl Strategy<Value = G>) -> impl Strategy<Value = G> {
    prop::collection::vec((text(4), values), 0..8).prop_map(|members| {
        // One value per key, as the strict reader requires.
        let mut seen = std::collections::HashSet::new();
        G::Obj(
            members
                .into_iter()
                .filter(|(k, _)| seen.insert(k.clone()))
                .collect(),
        )
    })
}

fn layout() -> impl Strategy<Value = Layout> {
    prop_oneof![
        Just(Layout::Compact),
        Just(Layout::Pretty),
        Just(Layout::Spaced)
    ]
}

fn escapes() -> impl Strategy<Value = Escapes> {
    prop_oneof![
        Just(Escapes::Minimal),
        Just(Escapes::Ascii),
        Just(Escapes::All)
    ]
}

// ---------------------------------------------------------------------
// Snapshots of the partial value.

/// An owned copy of a partial value, to compare across deltas.
#[derive(Clone, Debug, PartialEq)]
struct Snap {
    id: usize,
    changed: u64,
    done: bool,
    key: Option<String>,
    value: SnapValue,
}

#[derive(Clone, Debug, PartialEq)]
enum SnapValue {
    Pending(PendingKind),
    Null,
    Bool(bool),
    Num(JsonNumber),
    Str(String),
    Arr(Vec<Snap>),
    Obj(Vec<Snap>),
}

fn snap(node: PartialNode<'_>) -> Snap {
    let value = match node.value() {
        PartialValue::Pending(kind) => SnapValue::Pending(kind),
        PartialValue::Null => SnapValue::Null,
        PartialValue::Bool(b) => SnapValue::Bool(b),
        PartialValue::Number(n) => SnapValue::Num(n.clone()),
        PartialValue::String(s) => SnapValue::Str(s.to_owned()),
        PartialValue::Array(items) => SnapValue::Arr(items.iter().map(snap).collect()),
        PartialValue::Object(members) => SnapValue::Obj(
            members
                .iter()
                .map(|(k, v)| {
                    assert_eq!(v.key(), Some(k));
                    snap(v)
                })
                .collect(),
        ),
    };
    Snap {
        id: node.id(),
        changed: node.changed(),
        done: node.completion() == Completion::Done,
        key: node.key().map(str::to_owned),
        value,
    }
}

/// Equal but for the `changed` stamps.
fn same(a: &Snap, b: &Snap) -> bool {
    let children =
        |x: &[Snap], y: &[Snap]| x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y));
    a.id == b.id
        && a.done == b.done
        && a.key == b.key
        && match (&a.value, &b.value) {
            (SnapValue::Arr(x), SnapValue::Arr(y)) | (SnapValue::Obj(x), SnapValue::Obj(y)) => {
                children(x, y)
            }
            (x, y) => x == y,
        }
}

/// The snapshot as it must be after reading `text[..len]` (`ended`: and
/// the input ended), node by node in pre-order.
fn check_prefix(w: &Written, root: Option<&Snap>, len: usize, ended: bool) {
    let mut flat = Vec::new();
    fn flatten<'s>(s: &'s Snap, out: &mut Vec<&'s Snap>) {
        out.push(s);
        if let SnapValue::Arr(c) | SnapValue::Obj(c) = &s.value {
            for c in c {
                flatten(c, out);
            }
        }
    }
    if let Some(root) = root {
        flatten(root, &mut flat);
    }
    let started = w.nodes.iter().filter(|e| e.start < len).count();
    assert_eq!(
        flat.len(),
        started,
        "values started in {:?}",
        &w.text[..len]
    );
    for (i, (s, e)) in flat.iter().zip(&w.nodes).enumerate() {
        let at = || format!("node {i} after {:?}", &w.text[..len]);
        assert_eq!(s.id, i, "{}", at());
        assert_eq!(s.key, e.key, "{}", at());
        let done = match e.kind {
            // A number is done once something follows it, or at the end.
            ExpKind::Num(_) => e.end < len || (ended && e.end == len),
            _ => e.end <= len,
        };
        assert_eq!(s.done, done, "{}", at());
        match (&e.kind, &s.value) {
            (ExpKind::Null, SnapValue::Pending(PendingKind::Null)) if !done => {}
            (ExpKind::Bool(_), SnapValue::Pending(PendingKind::Bool)) if !done => {}
            (ExpKind::Num(_), SnapValue::Pending(PendingKind::Number)) if !done => {}
            (ExpKind::Null, SnapValue::Null) if done => {}
            (ExpKind::Bool(b), SnapValue::Bool(c)) if done => assert_eq!(b, c, "{}", at()),
            (ExpKind::Num(n), SnapValue::Num(m)) if done => assert_eq!(n, m, "{}", at()),
            (ExpKind::Str(full, marks), SnapValue::Str(s)) => {
                let decoded = marks
                    .iter()
                    .take_while(|(end, _)| *end <= len)
                    .last()
                    .map_or(0, |&(_, d)| d);
                assert_eq!(s, &full[..decoded], "{}", at());
            }
            (ExpKind::Arr(n) | ExpKind::Obj(n), SnapValue::Arr(c) | SnapValue::Obj(c)) => {
                assert_eq!(
                    matches!(e.kind, ExpKind::Arr(_)),
                    matches!(s.value, SnapValue::Arr(_)),
                    "{}",
                    at()
                );
                assert!(c.len() <= *n, "{}", at());
                if done {
                    assert_eq!(c.len(), *n, "{}", at());
                }
                // Every item but the last is done.
                if c.len() > 1 {
                    assert!(c[..c.len() - 1].iter().all(|c| c.done), "{}", at());
                }
            }
            (e, s) => panic!("{}: expected {e:?}, read {s:?}", at()),
        }
    }
}

/// `cur` follows `prev`: values only grow, done values never change, and
/// the stamps of this delta (`version`) mark exactly what changed.
fn check_growth(prev: Option<&Snap>, cur: &Snap, version: u64) {
    let Some(prev) = prev else {
        assert_eq!(cur.changed, version, "a new value is stamped");
        if let SnapValue::Arr(c) | SnapValue::Obj(c) = &cur.value {
            c.iter().for_each(|c| check_growth(None, c, version));
        }
        return;
    };
    assert_eq!(prev.id, cur.id);
    assert_eq!(
        cur.changed == version,
        !same(prev, cur),
        "stamp of node {} ({:?} -> {:?})",
        cur.id,
        prev.value,
        cur.value
    );
    if cur.changed != version {
        assert_eq!(prev, cur, "an unstamped value is unchanged");
        return;
    }
    assert!(!prev.done, "a done value changed: {prev:?} -> {cur:?}");
    match (&prev.value, &cur.value) {
        (SnapValue::Pending(k), SnapValue::Pending(l)) => assert_eq!(k, l),
        (SnapValue::Pending(PendingKind::Number), SnapValue::Num(_))
        | (SnapValue::Pending(PendingKind::Bool), SnapValue::Bool(_))
        | (SnapValue::Pending(PendingKind::Null), SnapValue::Null) => {}
        (SnapValue::Str(a), SnapValue::Str(b)) => {
            assert!(b.starts_with(a.as_str()), "{a:?} -> {b:?}")
        }
        (SnapValue::Arr(a), SnapValue::Arr(b)) | (SnapValue::Obj(a), SnapValue::Obj(b)) => {
            assert!(a.len() <= b.len(), "a container shrank");
            for (i, c) in b.iter().enumerate() {
                check_growth(a.get(i), c, version);
            }
        }
        (a, b) => panic!("{a:?} became {b:?}"),
    }
}

/// Feeds `w.text` in the deltas `cuts` (byte offsets, increasing, on char
/// boundaries) and checks every step; returns `finish`'s value.
fn feed_checked(w: &Written, cuts: &[usize]) -> Json {
    let mut reader = PartialJson::new();
    let mut prev: Option<Snap> = None;
    let mut from = 0;
    for &to in cuts.iter().chain(std::iter::once(&w.text.len())) {
        if to < from {
            continue;
        }
        reader.feed(&w.text[from..to]).unwrap();
        let cur = reader.root().map(snap);
        check_prefix(w, cur.as_ref(), to, false);
        match &cur {
            Some(cur) => check_growth(prev.as_ref(), cur, reader.version()),
            None => assert!(prev.is_none()),
        }
        prev = cur;
        from = to;
    }
    reader.finish().unwrap()
}

fn char_cuts(text: &str) -> Vec<usize> {
    text.char_indices().map(|(i, _)| i).skip(1).collect()
}

/// Byte cuts on char boundaries from chunk lengths in characters.
fn chunk_cuts(text: &str, chunks: &[usize]) -> Vec<usize> {
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let mut cuts = Vec::new();
    let mut at = 0;
    for &n in chunks.iter().cycle().take(bounds.len()) {
        at += n;
        if at >= bounds.len() - 1 {
            break;
        }
        cuts.push(bounds[at]);
    }
    cuts
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    /// Every prefix (one character a delta) and the deltas of a random
    /// split show exactly the values started, strings decoded up to the
    /// last complete character, scalars only once complete; values only
    /// grow; the stamps mark what changed; `finish` is the strict reader's
    /// value.
    #[test]
    fn every_prefix_is_consistent_with_the_final_value(
        g in value(),
        layout in layout(),
        escapes in escapes(),
        chunks in prop::collection::vec(1usize..12, 1..6),
    ) {
        let w = written(&g, layout, escapes);
        let expected = json::parse(&w.text).unwrap();
        prop_assert_eq!(&feed_checked(&w, &char_cuts(&w.text)), &expected);
        prop_assert_eq!(&feed_checked(&w, &chunk_cuts(&w.text, &chunks)), &expected);
        prop_assert_eq!(&feed_checked(&w, &[]), &expected);
        check_ended(&w);
    }
}

/// A top-level number is done only at the end; `finish` of every text
/// gives the same value as the view's `to_json`.
fn check_ended(w: &Written) {
    let mut reader = PartialJson::new();
    reader.feed(&w.text).unwrap();
    let whole = reader.root().unwrap().to_json();
    let done = reader.root().unwrap().is_done();
    assert_eq!(whole.is_some(), done);
    assert_eq!(reader.is_complete(), done);
    let root = &w.nodes[0];
    assert_eq!(
        done,
        !matches!(root.kind, ExpKind::Num(_)) || root.end < w.text.len()
    );
    let value = reader.finish().unwrap();
    if let Some(whole) = whole {
        assert_eq!(whole, value);
    }
}

// ---------------------------------------------------------------------
// Against the strict reader and serde_json.

/// What reading `text` in the deltas `cuts` gives.
fn read(text: &str, cuts: &[usize]) -> Result<Json, PartialError> {
    let mut reader = PartialJson::new();
    let mut from = 0;
    for &to in cuts.iter().chain(std::iter::once(&text.len())) {
        if to < from || !text.is_char_boundary(to) {
            continue;
        }
        if let Err(e) = reader.feed(&text[from..to]) {
            // The reader keeps its error.
            assert_eq!(reader.feed("1").unwrap_err(), e);
            assert_eq!(reader.error(), Some(&e));
            return Err(e);
        }
        from = to;
    }
    reader.finish()
}

/// `text` read whole, a character a delta, and at each single cut agrees
/// with itself and with the strict reader and `serde_json`; a failure is
/// at the first character no JSON text continues with.
fn differential(text: &str) {
    let whole = read(text, &[]);
    let per_char = read(text, &char_cuts(text));
    assert_eq!(whole, per_char, "{text:?} one character a delta");
    if text.len() <= 200 {
        for cut in 1..text.len() {
            assert_eq!(read(text, &[cut]), whole, "{text:?} cut at {cut}");
        }
    }
    let strict = json::parse(text);
    match (&whole, &strict) {
        (Ok(ours), Ok(theirs)) => assert_eq!(ours, theirs, "{text:?}"),
        (Err(_), Err(_)) => {}
        _ => panic!("{text:?}: partial {whole:?}, strict reader {strict:?}"),
    }
    // serde_json's own Value keeps the last of a repeated key and rounds
    // an integer beyond 64 bits: the strict reader's two rules.
    let plain = serde_json::from_str::<serde_json::Value>(text);
    match &whole {
        Err(e) if matches!(e.kind(), PartialErrorKind::DuplicateKey(_)) => {}
        Ok(ours) => {
            let theirs = plain.unwrap_or_else(|e| panic!("{text:?}: serde_json: {e}"));
            if !has_big_integer(ours) {
                assert_eq!(serde_json::to_value(ours).unwrap(), theirs, "{text:?}");
            }
        }
        Err(e) => {
            assert!(plain.is_err(), "{text:?}: partial {e}, serde_json accepts");
            early(text, e);
        }
    }
}

fn has_big_integer(v: &Json) -> bool {
    match v {
        Json::Number(n) => matches!(n.as_number(), templiqx::contracts::Number::Big(_)),
        Json::Array(a) => a.iter().any(has_big_integer),
        Json::Object(o) => o.values().any(has_big_integer),
        _ => false,
    }
}

/// The text before an error is the start of some JSON text: `serde_json`
/// reads it whole or runs out of input (only an overflowing number is
/// known at its end, where `serde_json` reads it too).
fn early(text: &str, e: &PartialError) {
    let before = &text[..e.offset()];
    if e.kind() == &PartialErrorKind::NumberOutOfRange {
        return;
    }
    if let Err(err) = serde_json::from_str::<serde_json::Value>(before) {
        assert!(
            err.is_eof(),
            "{text:?}: partial stopped at {e}, but serde_json fails earlier on {before:?}: {err}"
        );
    }
    match e.found() {
        Some(c) => assert!(text[e.offset()..].starts_with(c), "{text:?}: {e}"),
        None => {
            assert!(e.offset() == text.len() || e.kind() == &PartialErrorKind::NumberOutOfRange)
        }
    }
}

/// Valid and invalid texts chosen for their edges.
const CORPUS: &[&str] = &[
    // Valid.
    "0",
    "-0",
    "-0.0e-0",
    "1E+2",
    "1e-400",
    "123456789012345678901234567890",
    "-123456789012345678901234567890",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "-9223372036854775809",
    "0.1e1",
    "1.7976931348623157e308",
    "4.9e-324",
    " \t\r\n[ ] ",
    "{}",
    "[[[]]]",
    "[true,false,null]",
    r#""""#,
    r#""\u0000\u001f\u007F""#,
    r#""\ud83d\ude00\uD83D\uDE00\udbff\udfff""#,
    r#""\"\\\/\b\f\n\r\t""#,
    "\"é€😀\u{2028}\u{7f}\"",
    r#"{"":0,"a":{"":[]}}"#,
    r#"{"a":1,"b":{"a":1}}"#,
    r#"[{"a":"x"},{"a":"y"}]"#,
    // Invalid.
    "",
    " ",
    "[",
    "]",
    "{",
    "}",
    "[1,]",
    "[,1]",
    "[1 2]",
    "[1,,2]",
    "{,}",
    r#"{"a"}"#,
    r#"{"a":}"#,
    r#"{"a" 1}"#,
    r#"{"a":1,}"#,
    r#"{"a":1 "b":2}"#,
    r#"{a:1}"#,
    r#"{'a':1}"#,
    "{1:1}",
    r#"{"a":1,"a":2}"#,
    r#"{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"e":11}"#,
    r#"{"a":{"b":1,"b":2}}"#,
    "01",
    "-01",
    "00",
    "-",
    "--1",
    "-a",
    "+1",
    ".5",
    "1.",
    "1.e5",
    "1e",
    "1e+",
    "1e+-1",
    "1.5.5",
    "0x10",
    "1e400",
    "-1e400",
    "[1e400]",
    "1 2",
    "[]]",
    "{}}",
    "[] x",
    "tru",
    "truex",
    "True",
    "nul",
    "nulll",
    "fals",
    "NaN",
    "Infinity",
    "-Infinity",
    "\"abc",
    "\"\\",
    r#""\x""#,
    r#""\U0041""#,
    r#""\u12""#,
    r#""\u12G4""#,
    r#""\ud800""#,
    r#""\ud800x""#,
    r#""\ud800\n""#,
    r#""\ud800\u0041""#,
    r#""\ud800\ud800""#,
    r#""\udc00""#,
    r#""\uDFFF""#,
    "\"a\u{0}b\"",
    "\"a\nb\"",
    "\"a\u{1f}\"",
    "\u{feff}{}",
    "\u{a0}1",
    "\u{b}1",
    "\u{c}1",
    "[1]\u{0}",
    "é",
    "[é]",
    "{\"a\":1}x",
];

#[test]
fn the_corpus_reads_as_the_strict_reader_and_serde_json_read_it() {
    for text in CORPUS {
        differential(text);
    }
}

#[test]
fn nesting_stops_where_serde_json_stops() {
    for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
        let fits = format!("{}1{}", open.repeat(MAX_DEPTH), close.repeat(MAX_DEPTH));
        differential(&fits);
        assert!(read(&fits, &[]).is_ok());
        let deeper = format!(
            "{}1{}",
            open.repeat(MAX_DEPTH + 1),
            close.repeat(MAX_DEPTH + 1)
        );
        differential(&deeper);
        let e = read(&deeper, &[]).unwrap_err();
        assert_eq!(e.kind(), &PartialErrorKind::TooDeep);
        assert_eq!(e.offset(), open.len() * MAX_DEPTH);
        assert!(serde_json::from_str::<serde_json::Value>(&deeper).is_err());
    }
}

/// One edit of a valid text.
#[derive(Clone, Debug)]
enum Edit {
    Insert(usize, char),
    Delete(usize),
    Replace(usize, char),
    Truncate(usize),
}

fn edit_char() -> impl Strategy<Value = char> {
    prop::sample::select(vec![
        '{', '}', '[', ']', ',', ':', '"', '\\', ' ', '\n', '0', '1', '9', '-', '+', '.', 'e', 'E',
        't', 'f', 'n', 'u', 'x', 'd', 'D', 'c', '\u{0}', '\u{a0}', 'é', '😀',
    ])
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for edit in edits {
        let n = chars.len();
        match *edit {
            Edit::Insert(at, c) => chars.insert(at % (n + 1), c),
            Edit::Delete(at) if n > 0 => {
                chars.remove(at % n);
            }
            Edit::Replace(at, c) if n > 0 => chars[at % n] = c,
            Edit::Truncate(at) => chars.truncate(at % (n + 1)),
            _ => {}
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Generated texts with one to three edits: read whole, a character a
    /// delta and at every cut, the reader agrees with itself, the strict
    /// reader and `serde_json`, and fails no later than needed.
    #[test]
    fn mutated_texts_read_as_serde_json_reads_them(
        g in value(),
        layout in layout(),
        escapes in escapes(),
        edits in prop::collection::vec(prop_oneof![
            (any::<usize>(), edit_char()).prop_map(|(a, c)| Edit::Insert(a, c)),
            any::<usize>().prop_map(Edit::Delete),
            (any::<usize>(), edit_char()).prop_map(|(a, c)| Edit::Replace(a, c)),
            any::<usize>().prop_map(Edit::Truncate),
        ], 1..4),
    ) {
        let w = written(&g, layout, escapes);
        differential(&apply(&w.text, &edits));
    }
}

// ---------------------------------------------------------------------
// Each kind of split, by hand.

fn fed(parts: &[&str]) -> PartialJson {
    let mut reader = PartialJson::new();
    for part in parts {
        reader.feed(part).unwrap();
    }
    reader
}

fn show(reader: &PartialJson) -> String {
    format!("{:?}", reader.root())
}

/// Every split of `text` into two and three deltas reads the strict
/// reader's value; `views` lists (prefix, expected view) pairs, each
/// checked fed whole and one character a delta.
fn every_split(text: &str, views: &[(&str, &str)]) {
    let expected = json::parse(text).unwrap();
    let n = text.len();
    for i in 0..=n {
        for j in i..=n {
            if !text.is_char_boundary(i) || !text.is_char_boundary(j) {
                continue;
            }
            let reader = fed(&[&text[..i], &text[i..j], &text[j..]]);
            assert_eq!(reader.finish().unwrap(), expected, "{text:?} at {i}, {j}");
        }
    }
    for &(prefix, view) in views {
        assert!(text.starts_with(prefix), "{prefix:?}");
        assert_eq!(show(&fed(&[prefix])), view, "{prefix:?}");
        let chars: Vec<String> = prefix.chars().map(String::from).collect();
        let chars: Vec<&str> = chars.iter().map(String::as_str).collect();
        assert_eq!(show(&fed(&chars)), view, "{prefix:?} a character a delta");
    }
}

#[test]
fn split_inside_a_short_escape() {
    every_split(
        r#"{"s":"a\nb\"c"}"#,
        &[
            (r#"{"s":"a"#, r#"Some({"s": "a"…}…)"#),
            (r#"{"s":"a\"#, r#"Some({"s": "a"…}…)"#),
            (r#"{"s":"a\n"#, r#"Some({"s": "a\n"…}…)"#),
            (r#"{"s":"a\nb\"#, r#"Some({"s": "a\nb"…}…)"#),
            (r#"{"s":"a\nb\""#, r#"Some({"s": "a\nb\""…}…)"#),
            (r#"{"s":"a\nb\"c""#, r#"Some({"s": "a\nb\"c"}…)"#),
            (r#"{"s":"a\nb\"c"}"#, r#"Some({"s": "a\nb\"c"})"#),
        ],
    );
}

#[test]
fn split_inside_a_unicode_escape() {
    let text = r#"["x\u00e9y"]"#;
    let views: Vec<(&str, &str)> = (4..=8)
        .map(|len| (&text[..len], r#"Some(["x"…]…)"#))
        .collect();
    every_split(text, &views);
    every_split(
        text,
        &[
            (r#"["x\u00e9"#, r#"Some(["xé"…]…)"#),
            (r#"["x\u00e9y"#, r#"Some(["xéy"…]…)"#),
        ],
    );
}

#[test]
fn split_inside_a_surrogate_pair() {
    let text = r#""\ud83d\ude00!""#;
    // Nothing of the pair shows before its last digit.
    let views: Vec<(&str, &str)> = (1..13).map(|len| (&text[..len], r#"Some(""…)"#)).collect();
    every_split(text, &views);
    every_split(
        text,
        &[
            (r#""\ud83d\ude00"#, r#"Some("😀"…)"#),
            (text, r#"Some("😀!")"#),
        ],
    );
    // Raw characters beyond the BMP arrive whole in a `&str` delta.
    every_split(
        "[\"😀é\"]",
        &[
            ("[\"😀", r#"Some(["😀"…]…)"#),
            ("[\"😀é", r#"Some(["😀é"…]…)"#),
        ],
    );
}

#[test]
fn split_inside_a_number() {
    let text = "[-12.5e+3, 0, 7]";
    // Pending until what follows it arrives.
    let views: Vec<(&str, &str)> = (2..10)
        .map(|len| (&text[..len], "Some([Number…]…)"))
        .collect();
    every_split(text, &views);
    every_split(
        text,
        &[
            ("[-12.5e+3,", "Some([-12500]…)"),
            ("[-12.5e+3, 0", "Some([-12500, Number…]…)"),
            ("[-12.5e+3, 0,", "Some([-12500, 0]…)"),
        ],
    );
    // A top-level number is complete only at the end of the input.
    let mut reader = fed(&["4", "2"]);
    assert!(matches!(
        reader.root().unwrap().value(),
        PartialValue::Pending(PendingKind::Number)
    ));
    assert!(!reader.is_complete());
    reader.feed(" ").unwrap();
    assert_eq!(show(&reader), "Some(42)");
    assert!(reader.is_complete());
    assert_eq!(
        fed(&["4", "2"]).finish().unwrap(),
        json::parse("42").unwrap()
    );
    every_split("123456789012345678901234567890", &[]);
}

#[test]
fn split_inside_a_literal() {
    every_split(
        "[true,false,null]",
        &[
            ("[tr", "Some([Bool…]…)"),
            ("[true", "Some([true]…)"),
            ("[true,fal", "Some([true, Bool…]…)"),
            ("[true,false", "Some([true, false]…)"),
            ("[true,false,nu", "Some([true, false, Null…]…)"),
            ("[true,false,null", "Some([true, false, null]…)"),
            ("[true,false,null]", "Some([true, false, null])"),
        ],
    );
}

#[test]
fn split_between_tokens_and_in_white_space() {
    every_split(
        "\r\n {\t\"a\" :\n [ 1 ,\t{ } ] , \"b\"\t: \"\" }\n ",
        &[
            ("", "None"),
            ("\r\n ", "None"),
            ("\r\n {", "Some({}…)"),
            ("\r\n {\t\"a\" :\n ", "Some({}…)"),
            ("\r\n {\t\"a\" :\n [", r#"Some({"a": []…}…)"#),
            ("\r\n {\t\"a\" :\n [ 1", r#"Some({"a": [Number…]…}…)"#),
            ("\r\n {\t\"a\" :\n [ 1 ", r#"Some({"a": [1]…}…)"#),
            ("\r\n {\t\"a\" :\n [ 1 ,\t{", r#"Some({"a": [1, {}…]…}…)"#),
            (
                "\r\n {\t\"a\" :\n [ 1 ,\t{ } ] ",
                r#"Some({"a": [1, {}]}…)"#,
            ),
            (
                "\r\n {\t\"a\" :\n [ 1 ,\t{ } ] , \"b\"\t: \"",
                r#"Some({"a": [1, {}], "b": ""…}…)"#,
            ),
            (
                "\r\n {\t\"a\" :\n [ 1 ,\t{ } ] , \"b\"\t: \"\"",
                r#"Some({"a": [1, {}], "b": ""}…)"#,
            ),
            (
                "\r\n {\t\"a\" :\n [ 1 ,\t{ } ] , \"b\"\t: \"\" }",
                r#"Some({"a": [1, {}], "b": ""})"#,
            ),
        ],
    );
}

#[test]
fn a_member_shows_once_its_value_starts() {
    every_split(
        r#"{"key":"v","k2":[]}"#,
        &[
            (r#"{"ke"#, "Some({}…)"),
            (r#"{"key""#, "Some({}…)"),
            (r#"{"key":"#, "Some({}…)"),
            (r#"{"key":""#, r#"Some({"key": ""…}…)"#),
            (r#"{"key":"v","k2""#, r#"Some({"key": "v"}…)"#),
            (r#"{"key":"v","k2":["#, r#"Some({"key": "v", "k2": []…}…)"#),
        ],
    );
}

// ---------------------------------------------------------------------
// Errors.

fn error_of(parts: &[&str]) -> (usize, PartialError) {
    let mut reader = PartialJson::new();
    for (i, part) in parts.iter().enumerate() {
        if let Err(e) = reader.feed(part) {
            return (i, e);
        }
    }
    (parts.len(), reader.finish().unwrap_err())
}

#[test]
fn errors_are_found_in_the_delta_that_has_them() {
    let unexpected = |expected| PartialErrorKind::Unexpected(expected);
    /// Deltas; the delta that fails (their count: `finish`), offset,
    /// found, kind.
    type Case<'a> = (&'a [&'a str], usize, usize, Option<char>, PartialErrorKind);
    let cases: &[Case<'_>] = &[
        (
            &["[1,", " ]", "2]"],
            1,
            4,
            Some(']'),
            unexpected(Expected::Value),
        ),
        (
            &["{\"a\"", " 1}"],
            1,
            5,
            Some('1'),
            unexpected(Expected::Colon),
        ),
        (
            &["{", "1"],
            1,
            1,
            Some('1'),
            unexpected(Expected::KeyOrObjectEnd),
        ),
        (
            &["{\"a\":1,", "}"],
            1,
            7,
            Some('}'),
            unexpected(Expected::Key),
        ),
        (
            &["[1", " 2"],
            1,
            3,
            Some('2'),
            unexpected(Expected::CommaOrArrayEnd),
        ),
        (
            &["{\"a\":1", "]"],
            1,
            6,
            Some(']'),
            unexpected(Expected::CommaOrObjectEnd),
        ),
        (&["[]", " ,"], 1, 3, Some(','), unexpected(Expected::End)),
        (
            &["[", "0", "1"],
            2,
            2,
            Some('1'),
            unexpected(Expected::AfterLeadingZero),
        ),
        (&["-", "x"], 1, 1, Some('x'), unexpected(Expected::Digit)),
        (
            &["1e", "]"],
            1,
            2,
            Some(']'),
            unexpected(Expected::ExponentDigitOrSign),
        ),
        (
            &["tr", "ux"],
            1,
            3,
            Some('x'),
            unexpected(Expected::Literal("true")),
        ),
        (
            &["\"a\\", "q"],
            1,
            3,
            Some('q'),
            unexpected(Expected::Escape),
        ),
        (
            &["\"\\u0", "g"],
            1,
            4,
            Some('g'),
            unexpected(Expected::HexDigit),
        ),
        (
            &["\"a", "\n"],
            1,
            2,
            Some('\n'),
            unexpected(Expected::StringCharacter),
        ),
        (
            &["\"\\uD", "C"],
            1,
            4,
            Some('C'),
            PartialErrorKind::LoneSurrogate,
        ),
        (
            &["\"\\ud800", "\""],
            1,
            7,
            Some('"'),
            PartialErrorKind::LoneSurrogate,
        ),
        (
            &["\"\\ud800\\u", "0"],
            1,
            9,
            Some('0'),
            PartialErrorKind::LoneSurrogate,
        ),
        (
            &["{\"a\":1,\"a", "\""],
            1,
            9,
            Some('"'),
            PartialErrorKind::DuplicateKey("a".into()),
        ),
        (
            &["[1e400", "]"],
            1,
            6,
            Some(']'),
            PartialErrorKind::NumberOutOfRange,
        ),
        (
            &["{\"a\":[1,", "2"],
            2,
            9,
            None,
            unexpected(Expected::CommaOrArrayEnd),
        ),
        (&["\"ab"], 1, 3, None, unexpected(Expected::StringCharacter)),
        (&["  "], 1, 2, None, unexpected(Expected::Value)),
        (&["tru"], 1, 3, None, unexpected(Expected::Literal("true"))),
        (&["-"], 1, 1, None, unexpected(Expected::Digit)),
    ];
    for (parts, delta, offset, found, kind) in cases {
        let (at, e) = error_of(parts);
        assert_eq!(
            (at, e.offset(), e.found(), e.kind()),
            (*delta, *offset, *found, kind),
            "{parts:?}"
        );
    }
}

#[test]
fn after_an_error_the_partial_value_stays() {
    let mut reader = fed(&[r#"{"a": "xy"#]);
    let e = reader.feed("\u{1}z").unwrap_err();
    assert_eq!(
        e.to_string(),
        "expected a string character, an escape or `\"`, found '\\u{1}' at byte 9"
    );
    assert_eq!(show(&reader), r#"Some({"a": "xy"…}…)"#);
    assert_eq!(reader.feed("\"}").unwrap_err(), e);
    assert_eq!(reader.bytes_read(), 9);
    assert_eq!(reader.finish().unwrap_err(), e);
}

#[test]
fn error_messages_say_what_was_expected() {
    let message = |text: &str| read(text, &[]).unwrap_err().to_string();
    assert_eq!(message("[1 2]"), "expected `,` or `]`, found '2' at byte 3");
    assert_eq!(
        message("{\"a\":1"),
        "expected `,` or `}`, found the end of the input at byte 6"
    );
    assert_eq!(
        message("{\"a\":1,\"a\":2}"),
        "duplicate key \"a\" in an object at byte 9"
    );
    assert_eq!(message("[1e999]"), "number out of range at byte 6");
    assert_eq!(
        message("\"\\udc00\""),
        "lone surrogate in a `\\u` escape at byte 4"
    );
    assert_eq!(
        message(&"[".repeat(200)),
        "arrays and objects nested deeper than 127 levels at byte 127"
    );
    assert!(read("", &[]).unwrap_err().is_unexpected_end());
}

#[test]
fn large_objects_find_repeated_keys_through_their_index() {
    let members: Vec<String> = (0..300).map(|i| format!("\"k{i}\":{i}")).collect();
    let text = format!("{{{}}}", members.join(","));
    differential(&text);
    for repeat in [0, 7, 8, 9, 15, 16, 17, 150, 299] {
        let text = format!("{{{},\"k{repeat}\":0}}", members.join(","));
        let e = read(&text, &[]).unwrap_err();
        assert_eq!(
            e.kind(),
            &PartialErrorKind::DuplicateKey(format!("k{repeat}"))
        );
        assert_eq!(e.offset(), text.len() - 4);
    }
}

#[test]
fn views_walk_members_and_items_in_order() {
    let reader = fed(&[r#"{"b": [10, "x", {"c": null}], "a": true, "z": 1"#]);
    let root = reader.root().unwrap();
    assert_eq!(root.id(), 0);
    assert_eq!(root.key(), None);
    let PartialValue::Object(members) = root.value() else {
        panic!()
    };
    let keys: Vec<&str> = members.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["b", "a", "z"]);
    assert_eq!(members.len(), 3);
    assert!(members.get("nope").is_none());
    let b = members.get("b").unwrap();
    assert_eq!(b.key(), Some("b"));
    assert_eq!(
        b.to_json(),
        Some(json::parse(r#"[10, "x", {"c": null}]"#).unwrap())
    );
    let PartialValue::Array(items) = b.value() else {
        panic!()
    };
    assert_eq!(
        items.iter().map(PartialNode::id).collect::<Vec<_>>(),
        [2, 3, 4]
    );
    assert!(matches!(items.get(2).unwrap().value(), PartialValue::Object(o) if o.len() == 1));
    assert!(items.get(3).is_none());
    assert!(matches!(
        members.get("z").unwrap().value(),
        PartialValue::Pending(PendingKind::Number)
    ));
    assert_eq!(root.to_json(), None);
    assert_eq!(members.get("z").unwrap().to_json(), None);
}

// ---------------------------------------------------------------------
// The end of the stream (`docs/runtime.md`, "Typed streaming").

/// A model whose answer is a bare number, streamed one digit at a time.
struct Digits(templiqx::AdapterDescriptor);

impl templiqx::RuntimeAdapter for Digits {
    fn descriptor(&self) -> &templiqx::AdapterDescriptor {
        &self.0
    }

    fn invoke(
        &self,
        _: &templiqx::RenderedInteraction<'_>,
    ) -> Result<templiqx::AdapterOutput, templiqx::RuntimeFailure> {
        Ok(templiqx::AdapterOutput {
            output: json::parse("42").unwrap(),
            usage: None,
        })
    }

    fn invoke_streaming(
        &self,
        request: &templiqx::RenderedInteraction<'_>,
        sink: &mut dyn FnMut(templiqx::StreamEvent),
    ) -> Result<templiqx::AdapterOutput, templiqx::RuntimeFailure> {
        for digit in ["4", "2"] {
            sink(templiqx::StreamEvent::Delta {
                text: digit.to_owned(),
            });
        }
        self.invoke(request)
    }
}

#[test]
fn a_bare_number_shows_when_the_stream_ends() {
    use crate::common::*;
    use templiqx::{PartialStream, StreamEvent, Streamed};

    // Untyped: a number completes only when the input ends.
    let mut stream = PartialStream::<Json>::new();
    assert!(stream.feed("4").is_none());
    assert!(stream.feed("2").is_none(), "more digits may come");
    assert!(stream.output().is_none());
    let end = stream.finish().expect("the end completes the number");
    assert_eq!(*end.output, json::parse("42").unwrap());
    assert_eq!(end.writing, None);
    assert!(stream.finish().is_none(), "nothing changes after the end");
    // An output cut short shows nothing at its end.
    let mut cut = PartialStream::<Json>::new();
    assert!(cut.feed("[1, 2").is_some());
    assert!(cut.finish().is_none());
    assert!(cut.error().is_some());

    // Typed: `execute_partial` ends the stream when it completes, so the
    // number shows before the `Complete` event.
    let mut i = interaction(vec![], vec![], vec![vec![text("How many?")]], vec![]);
    i.output_schema = typed(templiqx::contracts::JsonType::Integer);
    let i: &'static templiqx::Interaction = Box::leak(Box::new(i));
    let adapter = Digits(templiqx::AdapterDescriptor::new(
        "digits",
        ["structured_output"],
    ));
    let mut seen = Vec::new();
    let executed = templiqx::execute_partial::<i64, Json, _>(
        &adapter,
        i,
        &obj(serde_json::json!({})),
        &obj(serde_json::json!({})),
        &mut |streamed| {
            seen.push(match streamed {
                Streamed::Event(StreamEvent::Delta { text }) => format!("delta {text}"),
                Streamed::Event(StreamEvent::Complete { .. }) => "complete".to_owned(),
                Streamed::Event(other) => format!("{other:?}"),
                Streamed::Partial(s) => format!("partial {} {:?}", s.output, s.writing),
            })
        },
    )
    .unwrap();
    assert_eq!(executed.output, 42);
    assert_eq!(seen, ["delta 4", "delta 2", "partial 42 None", "complete"]);
}
