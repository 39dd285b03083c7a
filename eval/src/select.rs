//! Which eval fixtures a run executes (`docs/eval.md`, "Which fixtures, how
//! often"): every fixture of every compiled contract — an inline one, or
//! each row of a dataset entry (`contract::entry#row`, `docs/eval.md`,
//! "Datasets") — or those a [`FixtureFilter`] selects: an inline fixture
//! rendered once for all its repeats, a dataset's rows read and rendered
//! one at a time as the run reaches them.

use globset::{Glob, GlobMatcher};
use std::borrow::Cow;
use std::sync::Arc;
use templiqx::Check;
use templiqx_build::CompiledContract;
use templiqx_build::dataset::{EntryRows, Row};
use templiqx_build::dto::EvalDecl;
use templiqx_contracts::{
    Code, Diagnostic, Diagnostics, Interaction, Json, RenderedInteraction, words,
};

use crate::error::EvalError;

/// `--filter` globs over fixture names (`contract::fixture`): a fixture is
/// selected when any glob matches its name, and every glob must match a
/// fixture (a typo is an error, not a silently smaller run). An empty
/// filter selects every fixture.
#[derive(Clone, Debug, Default)]
pub struct FixtureFilter {
    globs: Vec<(String, GlobMatcher)>,
}

impl FixtureFilter {
    /// A filter of `globs` (`lease-*::*`, `*::dutch-client`), in the
    /// syntax of the `globset` crate.
    ///
    /// # Errors
    ///
    /// One `TQX_IO` diagnostic for the first text that is not a glob.
    pub fn new<I, S>(globs: I) -> Result<FixtureFilter, Diagnostics>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let globs = globs
            .into_iter()
            .map(|f| {
                let f = f.into();
                match Glob::new(&f) {
                    Ok(g) => Ok((f, g.compile_matcher())),
                    Err(e) => Err(Diagnostic::error(
                        Code::Io,
                        format!("--filter `{f}` is not a glob: {e}"),
                    )
                    .help(
                        "a glob over `contract::fixture`, e.g. `lease-*::*` or `*::dutch-client`",
                    )),
                }
            })
            .collect::<Result<_, Diagnostic>>()?;
        Ok(FixtureFilter { globs })
    }

    /// Whether the filter selects every fixture (no glob).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.globs.is_empty()
    }

    /// Whether the filter selects the fixture `name` (`contract::fixture`):
    /// it has no glob, or one matches.
    #[must_use]
    pub fn selects(&self, name: &str) -> bool {
        self.is_empty() || self.globs.iter().any(|(_, g)| g.is_match(name))
    }

    /// How many globs the filter has (0: it selects everything).
    #[must_use]
    pub fn len(&self) -> usize {
        self.globs.len()
    }

    /// Whether the filter selects `name`, marking in `matched` (one flag
    /// per glob, [`FixtureFilter::len`] long) each glob that matches it.
    pub(crate) fn mark(&self, name: &str, matched: &mut [bool]) -> bool {
        let mut any = self.globs.is_empty();
        for ((_, glob), hit) in self.globs.iter().zip(matched.iter_mut()) {
            if glob.is_match(name) {
                *hit = true;
                any = true;
            }
        }
        any
    }

    /// The globs not marked in `matched` ([`FixtureFilter::mark`]), as
    /// written.
    pub(crate) fn unmatched_of(&self, matched: &[bool]) -> Vec<&str> {
        self.globs
            .iter()
            .zip(matched)
            .filter(|(_, hit)| !**hit)
            .map(|((text, _), _)| text.as_str())
            .collect()
    }

    /// The globs that match none of `names`, as written.
    pub fn unmatched<'n>(&self, names: impl IntoIterator<Item = &'n str> + Clone) -> Vec<&str> {
        self.globs
            .iter()
            .filter(|(_, g)| !names.clone().into_iter().any(|n| g.is_match(n)))
            .map(|(text, _)| text.as_str())
            .collect()
    }
}

/// One selected fixture, rendered once for all its repeats (a row of a
/// dataset entry: when the run reaches it, for all its repeats too).
#[derive(Debug)]
pub struct Fixture<'a> {
    /// `contract::fixture`.
    pub(crate) name: String,
    /// The contract id.
    pub(crate) contract: &'a str,
    /// The fixture id: an inline fixture's, or `entry#row` for a row of a
    /// dataset entry (`docs/eval.md`, "Datasets").
    pub(crate) id: Cow<'a, str>,
    /// Its inputs, for the checks.
    pub(crate) inputs: Cow<'a, serde_json::Map<String, serde_json::Value>>,
    /// Its context, for the checks.
    pub(crate) context: Cow<'a, serde_json::Map<String, serde_json::Value>>,
    /// A dataset row's expected data (`case`), for the checks.
    pub(crate) case: Option<serde_json::Value>,
    /// Its `fake_output`, handed to the `fake` provider with the fixture
    /// (never a table of every row's).
    pub(crate) fake_output: Option<Json>,
    /// Its compiled `expect` checks (shared by the rows of an entry).
    pub(crate) checks: Arc<[Check]>,
    /// The rendered request.
    pub(crate) rendered: RenderedInteraction<'a>,
    /// The request's fingerprint (part of the history key).
    pub(crate) request_fingerprint: String,
}

impl Fixture<'_> {
    /// Its name, `contract::fixture`.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The rendered request its repeats send.
    #[must_use]
    pub fn request(&self) -> &RenderedInteraction<'_> {
        &self.rendered
    }
}

/// Where a run's fixtures come from, in execution order: an inline fixture
/// (rendered once, kept), or a dataset entry whose rows are read, rendered
/// and dropped one at a time as the run reaches them.
#[derive(Debug)]
enum Source<'a> {
    Inline(Arc<Fixture<'a>>),
    Dataset {
        contract: &'a str,
        interaction: &'a Interaction,
        eval: &'a EvalDecl,
        checks: Arc<[Check]>,
    },
}

/// What a run executes: the selected fixtures, in the order of the
/// contracts given and of their fixtures, and the contracts they belong to.
///
/// Inline fixtures are rendered once and kept; the rows of a dataset entry
/// are not kept (`docs/eval.md`, "Datasets"): selecting reads each row once
/// to check, name, filter and render it, and a run reads the file once
/// more, one row at a time ([`Selection::rows`]), so memory does not grow
/// with the rows.
#[derive(Debug)]
pub struct Selection<'a> {
    /// Each contract with a selected fixture: its id and interaction.
    pub(crate) contracts: Vec<(&'a str, &'a Interaction)>,
    sources: Vec<Source<'a>>,
    filter: FixtureFilter,
    fake_outputs_only: bool,
    /// Fixtures selected.
    pub(crate) count: usize,
    pub(crate) skipped: Vec<String>,
}

impl<'a> Selection<'a> {
    /// How many fixtures are selected.
    #[must_use]
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether no fixture is selected (never, for a selection a run
    /// accepted).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The selected fixtures, each rendered as it is reached: the inline
    /// fixtures ([`Selection::inline`]), then the rows of the dataset
    /// entries ([`Selection::rows`]). A row that no longer reads or renders
    /// (its file changed since the selection) is given as its diagnostics;
    /// at most [`Selection::len`] fixtures are given.
    pub fn fixtures(&self) -> impl Iterator<Item = Result<Arc<Fixture<'a>>, Vec<Diagnostic>>> + '_ {
        self.inline().map(Ok).chain(self.rows()).take(self.count)
    }

    /// The selected inline fixtures, in the order of the contracts given
    /// and of their fixtures (each rendered once, when selected).
    pub fn inline(&self) -> impl Iterator<Item = Arc<Fixture<'a>>> + '_ {
        self.sources.iter().filter_map(|source| match source {
            Source::Inline(f) => Some(Arc::clone(f)),
            Source::Dataset { .. } => None,
        })
    }

    /// The selected rows of the dataset entries, in the order of the
    /// contracts given, of their entries and of each file's rows, each read
    /// from its file again and rendered as it is reached, one at a time
    /// (`docs/eval.md`, "Datasets"). A row that no longer reads or renders
    /// (its file changed since the selection) is given as its diagnostics.
    pub fn rows(&self) -> impl Iterator<Item = Result<Arc<Fixture<'a>>, Vec<Diagnostic>>> + '_ {
        self.sources
            .iter()
            .flat_map(move |source| -> Box<dyn Iterator<Item = _> + '_> {
                match source {
                    Source::Inline(_) => Box::new(std::iter::empty()),
                    Source::Dataset {
                        contract,
                        interaction,
                        eval,
                        checks,
                    } => {
                        // The entry's name selects all its rows.
                        let entry = !self.filter.is_empty()
                            && self.filter.selects(&format!("{contract}::{}", eval.id));
                        match EntryRows::open(interaction, eval) {
                            Err(d) => Box::new(std::iter::once(Err(vec![d]))),
                            Ok(rows) => Box::new(rows.filter_map(move |row| {
                                let row = match row {
                                    Ok(row) => row,
                                    Err(ds) => return Some(Err(ds)),
                                };
                                let name = format!("{contract}::{}#{}", eval.id, row.id);
                                if !(entry || self.filter.selects(&name))
                                    || (self.fake_outputs_only && row.fake_output.is_none())
                                {
                                    return None;
                                }
                                Some(
                                    row_fixture(contract, interaction, eval, checks, name, row)
                                        .map(Arc::new),
                                )
                            })),
                        }
                    }
                }
            })
            .take(self.count.saturating_sub(self.inline().count()))
    }
}

impl Selection<'_> {
    /// Whether a selected fixture has a model-graded check (`kind: judge`,
    /// `docs/format.md`, "Model-graded checks").
    pub(crate) fn has_judged_checks(&self) -> bool {
        self.sources.iter().any(|source| {
            let checks = match source {
                Source::Inline(f) => &f.checks,
                Source::Dataset { checks, .. } => checks,
            };
            checks.iter().any(|c| c.judge.is_some())
        })
    }

    /// The data files of the selected dataset entries whose bytes are no
    /// longer the ones the contract was compiled with (their SHA-256 is not
    /// the entry's `dataset.sha256`, or they no longer read), as
    /// diagnostics show them: a run that read such a file did not run the
    /// compiled rows (`docs/eval.md`, "Datasets"). Each file is read once,
    /// streamed.
    pub(crate) fn changed_datasets(&self) -> Vec<String> {
        let mut changed: Vec<String> = Vec::new();
        for source in &self.sources {
            let Source::Dataset { eval, .. } = source else {
                continue;
            };
            let Some(dataset) = &eval.dataset else {
                continue;
            };
            let (Some(file), false) = (&dataset.file, dataset.sha256.is_empty()) else {
                continue;
            };
            // Only a regular file can be read again without taking what a
            // writer sends (a FIFO).
            if !std::fs::metadata(file).is_ok_and(|m| m.is_file()) {
                continue;
            }
            let same = std::fs::File::open(file)
                .and_then(templiqx_contracts::canonical::sha256_hex_of)
                .is_ok_and(|digest| digest == dataset.sha256);
            if !same && !changed.contains(&dataset.display) {
                changed.push(dataset.display.clone());
            }
        }
        changed
    }
}

/// For the fixture id of a dataset row, `entry#ID` (`docs/eval.md`,
/// "Datasets"): the entry's id and the row's. An eval id holds no `#`
/// (`docs/format.md`, "Eval fixtures"), so the first `#` separates them;
/// `None` for an inline fixture's id.
#[must_use]
pub fn dataset_row(fixture: &str) -> Option<(&str, &str)> {
    fixture.split_once('#')
}

/// The fixture of a dataset row named `name`, rendered.
fn row_fixture<'a>(
    contract: &'a str,
    interaction: &'a Interaction,
    eval: &EvalDecl,
    checks: &Arc<[Check]>,
    name: String,
    row: Row,
) -> Result<Fixture<'a>, Vec<Diagnostic>> {
    let rendered =
        templiqx::render(interaction, &row.inputs, &row.context).map_err(|e| e.diagnostics)?;
    Ok(Fixture {
        name,
        contract,
        id: Cow::Owned(format!("{}#{}", eval.id, row.id)),
        inputs: Cow::Owned(row.inputs),
        context: Cow::Owned(row.context),
        case: row.case,
        fake_output: row.fake_output.map(Json::from),
        checks: Arc::clone(checks),
        request_fingerprint: rendered.request_fingerprint(),
        rendered,
    })
}

/// Selects the fixtures of `contracts` that `filter` matches (only those
/// with a `fake_output` when `fake_outputs_only`), rendering each inline
/// fixture once; each dataset row is read, checked, named and rendered,
/// then dropped (the run renders it again as it reaches it).
/// Contracts that did not compile (no contract or no interaction) are left
/// out: their diagnostics are the caller's.
pub(crate) fn select<'a>(
    contracts: &[&'a CompiledContract],
    filter: &FixtureFilter,
    fake_outputs_only: bool,
) -> Result<Selection<'a>, EvalError> {
    let mut selection = Selection {
        contracts: Vec::new(),
        sources: Vec::new(),
        filter: filter.clone(),
        fake_outputs_only,
        count: 0,
        skipped: Vec::new(),
    };
    let mut diagnostics = Diagnostics::new();
    // Which globs matched a fixture: each must match one.
    let mut matched = vec![false; filter.globs.len()];
    let mut hits = |name: &str| filter.mark(name, &mut matched);
    // Contract ids seen, and where: an id twice is refused (its statistics
    // and history rows would merge).
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for c in contracts {
        let (Some(contract), Some(interaction)) = (&c.contract, &c.interaction) else {
            continue;
        };
        // Only verdicts are kept, never a check's place in the file: the
        // checks compile without the sources.
        let checks =
            templiqx_build::compile_checks(contract, interaction, &templiqx_build::Sources::new());
        if let Some((_, first)) = seen.iter().find(|(id, _)| *id == contract.id) {
            diagnostics.push(
                Diagnostic::error(
                    Code::Package,
                    format!(
                        "contract `{}` is given twice ({first} and {})",
                        contract.id, c.file
                    ),
                )
                .help("eval each contract id once: statistics and the history are keyed by it (a path given twice, or two packages with the same contract id)"),
            );
            continue;
        }
        seen.push((&contract.id, &c.file));
        let mut selected = false;
        for (i, eval) in contract.evals.iter().enumerate() {
            let checks: Arc<[Check]> = checks.get(i).cloned().unwrap_or_default().into();
            if eval.dataset.is_some() {
                let rows = match EntryRows::open(interaction, eval) {
                    Ok(rows) => rows,
                    Err(d) => {
                        diagnostics.push(d);
                        continue;
                    }
                };
                let mut count = 0usize;
                // The entry's name selects all its rows (`c::entry`), as
                // a row's selects it (`c::entry#ID`, `c::entry#*`).
                let entry_selected =
                    !filter.is_empty() && hits(&format!("{}::{}", contract.id, eval.id));
                let mut without_fake = 0usize;
                let display = eval.dataset.as_ref().map_or("", |d| d.display.as_str());
                for row in rows {
                    let row = match row {
                        Ok(row) => row,
                        Err(ds) => {
                            diagnostics.extend(ds);
                            continue;
                        }
                    };
                    let name = format!("{}::{}#{}", contract.id, eval.id, row.id);
                    // Both, so that a glob of the rows given beside the
                    // entry's name counts as matched.
                    let row_selected = hits(&name);
                    if !(entry_selected || row_selected) {
                        continue;
                    }
                    if fake_outputs_only && row.fake_output.is_none() {
                        without_fake += 1;
                        continue;
                    }
                    // Rendered to refuse a row that does not render before
                    // anything runs, then dropped; its diagnostics name the
                    // row (they are at the contract's content).
                    let (id, line) = (row.id.clone(), row.line);
                    match row_fixture(&contract.id, interaction, eval, &checks, name, row) {
                        Ok(_) => count += 1,
                        Err(ds) => diagnostics.extend(ds.into_iter().map(|mut d| {
                            d.notes.push(format!(
                                "rendering row `{}` (line {line}) of `{display}`",
                                words::printable(&id)
                            ));
                            d
                        })),
                    }
                }
                // One line per entry, not per row (`--provider fake`).
                if without_fake > 0 {
                    selection.skipped.push(format!(
                        "{}::{}#* ({without_fake} dataset row(s))",
                        contract.id, eval.id
                    ));
                }
                if count > 0 {
                    selection.count += count;
                    selection.sources.push(Source::Dataset {
                        contract: &contract.id,
                        interaction,
                        eval,
                        checks,
                    });
                    selected = true;
                }
                continue;
            }
            let name = format!("{}::{}", contract.id, eval.id);
            if !hits(&name) {
                continue;
            }
            if fake_outputs_only && eval.fake_output.is_none() {
                selection.skipped.push(name);
                continue;
            }
            let rendered = match templiqx::render(interaction, &eval.inputs, &eval.context) {
                Ok(r) => r,
                Err(e) => {
                    diagnostics.extend(e.diagnostics);
                    continue;
                }
            };
            selection.count += 1;
            selection.sources.push(Source::Inline(Arc::new(Fixture {
                name,
                contract: &contract.id,
                id: Cow::Borrowed(&eval.id),
                inputs: Cow::Borrowed(&eval.inputs),
                context: Cow::Borrowed(&eval.context),
                case: None,
                fake_output: eval.fake_output.clone().map(Json::from),
                checks,
                request_fingerprint: rendered.request_fingerprint(),
                rendered,
            })));
            selected = true;
        }
        if selected {
            selection.contracts.push((&contract.id, interaction));
        }
    }
    if diagnostics.has_errors() {
        return Err(EvalError::Refused(diagnostics));
    }
    let unmatched = filter.unmatched_of(&matched);
    if !unmatched.is_empty() || selection.count == 0 {
        const NAMES: &str = "fixtures are named `contract::fixture`, a dataset's rows `contract::entry#ID` (the entry's name, `contract::entry`, selects them all); `templiqx test PATH` lists them";
        let (why, help) = if !unmatched.is_empty() {
            (
                format!("no eval fixture matches --filter {}", unmatched.join(", ")),
                NAMES,
            )
        } else if !selection.skipped.is_empty() {
            (
                format!(
                    "every fixture selected lacks a fake_output, which --provider fake answers with ({})",
                    selection.skipped.join(", ")
                ),
                "give the fixtures (or the dataset rows) a `fake_output`, or run them on a model (`--provider openai` or `anthropic`)",
            )
        } else {
            ("no eval fixture to run".to_owned(), NAMES)
        };
        return Err(EvalError::NoFixture(
            Diagnostic::error(Code::Io, why).help(help),
        ));
    }
    Ok(selection)
}
