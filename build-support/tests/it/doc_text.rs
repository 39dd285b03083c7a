//! Generated doc comments show contract descriptions as text
//! (`docs/format.md`, "Doc comments"): whatever a description holds,
//! rustdoc's Markdown (pulldown-cmark with the extensions rustdoc turns on,
//! smart punctuation included) reads the escaped text as one paragraph of
//! plain text whose characters are the description's, and URLs as
//! autolinks.

use proptest::prelude::*;
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use templiqx_build::codegen::doc_text;

/// What rustdoc reads: the text of `markdown`, or the first structure it
/// finds (a heading, list, code block, HTML, emphasis, link other than an
/// autolink, …).
fn read_as_text(markdown: &str) -> Result<String, String> {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_SMART_PUNCTUATION
        | Options::ENABLE_HEADING_ATTRIBUTES;
    let mut text = String::new();
    let mut in_autolink = false;
    for event in Parser::new_ext(markdown, options) {
        match event {
            Event::Start(Tag::Paragraph) => {}
            Event::End(TagEnd::Paragraph) => text.push('\n'),
            Event::Start(Tag::Link {
                link_type: pulldown_cmark::LinkType::Autolink,
                ..
            }) => in_autolink = true,
            Event::End(TagEnd::Link) if in_autolink => in_autolink = false,
            Event::Text(t) => text.push_str(&t),
            Event::SoftBreak | Event::HardBreak => text.push('\n'),
            other => return Err(format!("{other:?} in {markdown:?}")),
        }
    }
    Ok(text)
}

/// The description as rustdoc should show it: each line without its
/// leading white space (lines that are blank after that are dropped by
/// Markdown's paragraph rules, so the generator keeps none).
fn expected(description: &str) -> String {
    description
        .lines()
        .map(str::trim_start)
        .filter(|l| !l.is_empty())
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

fn normalise(text: &str) -> String {
    text.lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn markdown_structure_and_typography_stay_text() {
    for description in [
        "Heading\n=======\nSub\n---",
        "---\n***\n___",
        "- item\n+ plus\n* star\n1. one\n2) two\n10. ten",
        "\"quoted\" and it's -- a dash... and --- more",
        "```\nfn main() { <answer> }\n```",
        "    indented(code);",
        "See [REDACTED] and [`Inputs`] <b>bold</b> &amp; ~~gone~~ | a | b |",
        "# not a heading\n> not a quote\n[^1]: not a footnote\n- [ ] not a task",
        "a_b *c* __d__ `e` \\ backslash",
        "1\\. already escaped",
    ] {
        let got = read_as_text(&doc_text(description)).unwrap();
        assert_eq!(normalise(&got), expected(description), "{description:?}");
    }
}

#[test]
fn urls_become_autolinks() {
    let md = doc_text("See https://example.com/a_b. Then http://x.y/z?q=1, done.");
    assert!(md.contains("<https://example.com/a_b>"), "{md}");
    assert!(md.contains("<http://x.y/z?q=1>"), "{md}");
    read_as_text(&md).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    /// Any description of printable ASCII and a few non-ASCII letters,
    /// without URLs, reads back as itself.
    #[test]
    fn any_description_reads_as_its_own_text(description in "[ -~\n é日]{0,80}") {
        prop_assume!(!description.contains("http://") && !description.contains("https://"));
        let got = read_as_text(&doc_text(&description)).map_err(TestCaseError::fail)?;
        prop_assert_eq!(normalise(&got), expected(&description));
    }
}
