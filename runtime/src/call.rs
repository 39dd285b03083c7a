//! One typed call per contract: render the interaction from typed values,
//! execute it through an adapter, and decode the output into the generated
//! `Output` (`docs/runtime.md`, "Typed calls"). Generated modules wrap
//! these as `execute`, `execute_async`, `execute_streaming` and
//! `execute_streaming_async`; the functions here are generic over the
//! output type, so the generated ones stay one line each.
//!
//! Every failure keeps its `TQX_*` code ([`ExecuteError`]):
//!
//! | variant | codes | receipt |
//! |---|---|---|
//! | [`ExecuteError::Render`] | `TQX_VALUE_INVALID` (a missing, undeclared or invalid request value), `TQX_VALUE_MISSING`, `TQX_FILTER_INPUT`, `TQX_COMPONENT_ARGUMENT`, `TQX_RENDER_BUDGET` ([`RenderError`]) | none: nothing was sent |
//! | [`ExecuteError::Execution`] | `TQX_CAPABILITY_UNSUPPORTED` (nothing invoked), the adapter's `TQX_RUNTIME_TIMEOUT`, `TQX_RUNTIME_UNAVAILABLE`, `TQX_RUNTIME_RATE_LIMITED`, `TQX_RUNTIME_INVALID_RESPONSE`, `TQX_RUNTIME_PERMANENT` (after the port's retries), `TQX_OUTPUT_SCHEMA` (a schema-invalid output) ([`ExecutionError`]) | the failure receipt |
//! | [`ExecuteError::Decode`] | `TQX_OUTPUT_SCHEMA`: a schema-valid output the generated type cannot hold exactly (an integer beyond `i64` where the schema sets no bound) | the execution's success receipt |

use crate::adapter::{AsyncRuntimeAdapter, Execution, ExecutionError, RuntimeAdapter, Usage};
use crate::decode::{DecodeError, decode_output};
use crate::fallback::Route;
use crate::partial::PartialJson;
use crate::render::{RenderError, render};
use crate::typed::{Follow, FollowState, Grow};
use serde::de::DeserializeOwned;
use std::fmt;
use std::future::Future;
use templiqx_contracts::{
    Code, Diagnostic, Diagnostics, Interaction, ObjectView, Receipt, RenderedInteraction,
    StreamEvent,
};

/// A successful typed call: the decoded output with what the execution
/// reported.
#[derive(Clone, Debug, PartialEq)]
pub struct Executed<O> {
    /// The output, validated against `output_schema` and decoded into the
    /// generated `Output`.
    pub output: O,
    /// The rendered request that was sent (its messages, and
    /// `request.request_fingerprint()`, which the receipt covers).
    pub request: RenderedInteraction<'static>,
    /// `Receipt::Success` over the request and output fingerprints
    /// (`docs/runtime.md`, "Receipts").
    pub receipt: Receipt,
    /// Token usage of the successful attempt, when the adapter reports it.
    pub usage: Option<Usage>,
    /// Invocations made, including the successful one (≥ 1).
    pub attempts: u32,
    /// Which adapter answered and every attempt, when the adapter is a
    /// combinator ([`crate::fallback::Fallback`]); `None` otherwise
    /// (`docs/runtime.md`, "Receipts", "Routes").
    pub route: Option<Route>,
}

/// A failed typed call, by the step that failed (small: the port's error is
/// boxed); each keeps its `TQX_*` codes ([`code`](ExecuteError::code),
/// [`diagnostics`](ExecuteError::diagnostics)). `Display` writes the
/// diagnostics in the project's layout (`error[TQX_…]: message`, then
/// `  = help: …`), as [`Diagnostics`] does.
#[derive(Clone, Debug, PartialEq)]
pub enum ExecuteError {
    /// The request did not render (nothing was sent): `TQX_VALUE_INVALID`
    /// for a missing, undeclared or invalid value (every problem at once,
    /// pointers `/inputs/…`, `/context/…`), or the first render problem:
    /// `TQX_VALUE_MISSING`, `TQX_FILTER_INPUT`, `TQX_COMPONENT_ARGUMENT`,
    /// `TQX_RENDER_BUDGET`.
    Render(RenderError),
    /// The port failed, with its failure receipt and attempts:
    /// `TQX_CAPABILITY_UNSUPPORTED` (the adapter lacks a required
    /// capability; nothing invoked), the adapter's `TQX_RUNTIME_*` failure
    /// (after the retries `runtime_policy.max_attempts` allows), or
    /// `TQX_OUTPUT_SCHEMA` for an output that violates `output_schema`.
    /// Boxed, so that the error stays small (clippy's `result_large_err`
    /// in hosts that call the generated functions).
    Execution(Box<ExecutionError>),
    /// The output is valid against `output_schema` but does not decode into
    /// the generated type (`TQX_OUTPUT_SCHEMA`: a value it cannot hold
    /// exactly, such as an integer beyond `i64` under a schema without
    /// bounds).
    Decode {
        /// The decoding problems, each with its pointer into the output.
        error: DecodeError,
        /// The execution: its output (as JSON), success receipt, usage and
        /// attempts.
        execution: Box<Execution>,
    },
}

impl ExecuteError {
    /// The failure's code: the first render diagnostic's, the port's
    /// failure code (`TQX_CAPABILITY_UNSUPPORTED`, `TQX_RUNTIME_*`,
    /// `TQX_OUTPUT_SCHEMA`), or `TQX_OUTPUT_SCHEMA` for a decode failure.
    pub fn code(&self) -> Code {
        match self {
            ExecuteError::Render(e) => e.diagnostics.first().map_or(Code::ValueInvalid, |d| d.code),
            ExecuteError::Execution(e) => e.failure.code,
            ExecuteError::Decode { .. } => Code::OutputSchema,
        }
    }

    /// Every diagnostic of the failure, in order (for `Execution`, the
    /// port's: the failure with its help, or one per schema violation).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            ExecuteError::Render(e) => &e.diagnostics,
            ExecuteError::Execution(e) => &e.diagnostics,
            ExecuteError::Decode { error, .. } => &error.diagnostics,
        }
    }

    /// Invocations made: 0 for a render failure (and for the capability
    /// gate's refusal), else the port's count, retries included.
    pub fn attempts(&self) -> u32 {
        match self {
            ExecuteError::Render(_) => 0,
            ExecuteError::Execution(e) => e.attempts,
            ExecuteError::Decode { execution, .. } => execution.attempts,
        }
    }

    /// The route of a combinator's execution (which adapters were tried,
    /// [`crate::fallback::Route`]): `None` for a render failure and for an
    /// execution on one adapter.
    pub fn route(&self) -> Option<&Route> {
        match self {
            ExecuteError::Render(_) => None,
            ExecuteError::Execution(e) => e.route.as_ref(),
            ExecuteError::Decode { execution, .. } => execution.route.as_ref(),
        }
    }

    /// The receipt of the execution: `None` for a render failure (nothing
    /// was executed), the failure receipt of an `Execution` failure, and
    /// the success receipt of a `Decode` failure (the port accepted the
    /// output).
    pub fn receipt(&self) -> Option<&Receipt> {
        match self {
            ExecuteError::Render(_) => None,
            ExecuteError::Execution(e) => Some(&e.receipt),
            ExecuteError::Decode { execution, .. } => Some(&execution.receipt),
        }
    }
}

impl From<RenderError> for ExecuteError {
    fn from(error: RenderError) -> ExecuteError {
        ExecuteError::Render(error)
    }
}

impl From<ExecutionError> for ExecuteError {
    fn from(error: ExecutionError) -> ExecuteError {
        ExecuteError::Execution(Box::new(error))
    }
}

impl fmt::Display for ExecuteError {
    /// The diagnostics as [`Diagnostics`] displays them; an `Execution`
    /// failure without diagnostics (a hand-made one) as its failure.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut diagnostics = Diagnostics::from(self.diagnostics().to_vec());
        if let (ExecuteError::Execution(e), true) = (self, diagnostics.is_empty()) {
            diagnostics.push(Diagnostic::error(e.failure.code, e.failure.detail.clone()));
        }
        fmt::Display::fmt(&diagnostics, f)
    }
}

/// `Display` carries every diagnostic, so no `source` is reported (it
/// would repeat them).
impl std::error::Error for ExecuteError {}

/// Renders `interaction` from `inputs` and `context`, executes it through
/// `adapter` ([`RuntimeAdapter::execute`]: capability gate, retries,
/// output validation, receipt), and decodes the output into `O` (a
/// generated `Output`). What a generated module's `execute` calls with its
/// `INTERACTION`; hand-built interactions use [`render()`],
/// [`RuntimeAdapter::execute`] and [`decode_output`].
///
/// # Errors
/// [`ExecuteError::Render`] (`TQX_VALUE_INVALID`, `TQX_VALUE_MISSING`,
/// `TQX_FILTER_INPUT`, `TQX_COMPONENT_ARGUMENT`, `TQX_RENDER_BUDGET`),
/// [`ExecuteError::Execution`] (`TQX_CAPABILITY_UNSUPPORTED`,
/// `TQX_RUNTIME_*`, `TQX_OUTPUT_SCHEMA`, with the failure receipt), or
/// [`ExecuteError::Decode`] (`TQX_OUTPUT_SCHEMA`).
pub fn execute<O, A>(
    adapter: &A,
    interaction: &'static Interaction,
    inputs: &dyn ObjectView,
    context: &dyn ObjectView,
) -> Result<Executed<O>, ExecuteError>
where
    O: DeserializeOwned,
    A: RuntimeAdapter + ?Sized,
{
    let request = render(interaction, inputs, context)?;
    let execution = adapter.execute(&request)?;
    decoded(request, execution)
}

/// [`execute`], streaming ([`RuntimeAdapter::execute_streaming`]): the
/// adapter's `Delta` and `ToolCallDelta` events go to `sink`, then the one
/// terminal event (`Complete` with the receipt, or `Failed`). A request
/// that does not render sends no event; an output that does not decode
/// follows its `Complete` event.
///
/// # Errors
/// As [`execute`].
pub fn execute_streaming<O, A>(
    adapter: &A,
    interaction: &'static Interaction,
    inputs: &dyn ObjectView,
    context: &dyn ObjectView,
    sink: &mut dyn FnMut(StreamEvent),
) -> Result<Executed<O>, ExecuteError>
where
    O: DeserializeOwned,
    A: RuntimeAdapter + ?Sized,
{
    let request = render(interaction, inputs, context)?;
    let execution = adapter.execute_streaming(&request, sink)?;
    decoded(request, execution)
}

/// [`execute`] through an [`AsyncRuntimeAdapter`]
/// ([`AsyncRuntimeAdapter::execute`], which may wait between attempts).
/// The request renders when the future is first polled; the future is
/// `Send` (so `inputs` and `context` are `Sync`, as generated types are).
///
/// # Errors
/// As [`execute`] (every text of an `Execution` failure redacted by the
/// adapter).
// The `Send` bound is the API: written out, a change that loses it fails
// here, not in a host.
#[allow(clippy::manual_async_fn)]
pub fn execute_async<O, A, I, C>(
    adapter: &A,
    interaction: &'static Interaction,
    inputs: &I,
    context: &C,
) -> impl Future<Output = Result<Executed<O>, ExecuteError>> + Send
where
    O: DeserializeOwned,
    A: AsyncRuntimeAdapter,
    I: ObjectView + Sync,
    C: ObjectView + Sync,
{
    async move {
        let request = render(interaction, inputs, context)?;
        let execution = adapter.execute(&request).await?;
        decoded(request, execution)
    }
}

/// [`execute_async`], streaming ([`AsyncRuntimeAdapter::execute_streaming`];
/// events as [`execute_streaming`] sends them).
///
/// # Errors
/// As [`execute_async`].
// The `Send` bound is the API: written out, a change that loses it fails
// here, not in a host.
#[allow(clippy::manual_async_fn)]
pub fn execute_streaming_async<O, A, I, C>(
    adapter: &A,
    interaction: &'static Interaction,
    inputs: &I,
    context: &C,
    sink: &mut (dyn FnMut(StreamEvent) + Send),
) -> impl Future<Output = Result<Executed<O>, ExecuteError>> + Send
where
    O: DeserializeOwned,
    A: AsyncRuntimeAdapter,
    I: ObjectView + Sync,
    C: ObjectView + Sync,
{
    async move {
        let request = render(interaction, inputs, context)?;
        let execution = adapter.execute_streaming(&request, sink).await?;
        decoded(request, execution)
    }
}

/// The partial output of a streamed call, followed delta by delta
/// (`docs/runtime.md`, "Typed streaming"): each text delta goes to an
/// incremental reader ([`PartialJson`]), and the partial value `P` (a
/// generated `PartialOutput`, or [`Json`](templiqx_contracts::Json) for
/// any output) is brought up to date by walking only what changed
/// ([`Grow`]): following a whole stream is linear in the output, whatever
/// the deltas, and the text is never read twice.
///
/// ```
/// use templiqx::{Json, PartialStream};
///
/// let mut stream = PartialStream::<Json>::new();
/// let mut shown = Vec::new();
/// for delta in [r#"{"title": "Lea"#, r#"se", "days": 6"#, "0}"] {
///     if let Some(snapshot) = stream.feed(delta) {
///         shown.push((snapshot.output.to_string(), snapshot.writing.map(str::to_owned)));
///     }
/// }
/// assert_eq!(shown, [
///     (r#"{"title":"Lea"}"#.to_owned(), Some("/title".to_owned())),
///     // `6` may go on: a number shows once complete.
///     (r#"{"title":"Lease"}"#.to_owned(), Some("/days".to_owned())),
///     (r#"{"days":60,"title":"Lease"}"#.to_owned(), None),
/// ]);
/// ```
#[derive(Debug)]
pub struct PartialStream<P> {
    reader: PartialJson,
    output: P,
    started: bool,
    state: FollowState,
}

impl<P: Grow + Default> Default for PartialStream<P> {
    fn default() -> Self {
        PartialStream::new()
    }
}

/// The partial output after a delta that changed it, borrowed from the
/// [`PartialStream`] (or the typed call) that follows the stream.
#[derive(Debug)]
pub struct Snapshot<'a, P> {
    /// The output as far as it was written (`docs/format.md`, "Partial
    /// types": strings and arrays grow, numbers, booleans, enum values and
    /// `null` show once complete, objects are partial in turn).
    pub output: &'a P,
    /// The JSON Pointer of the innermost value still being written (`""`
    /// for the root itself; `None` once the whole output is complete):
    /// the completion state of every value (`docs/decisions.md`, "Typed
    /// streaming"). The values on the way to it are being written too;
    /// every other value shown is done and will not change.
    pub writing: Option<&'a str>,
    /// The delta this snapshot follows, counted from 1 over the stream.
    pub delta: u64,
}

impl<P> Clone for Snapshot<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for Snapshot<'_, P> {}

impl<P> Snapshot<'_, P> {
    /// Whether the value at `pointer` (a JSON Pointer into the output,
    /// `""` for the root) is still being written: it is [`writing`](Self::writing)
    /// or a value on the way to it. A value shown that is not being
    /// written is done; a value not shown has not started (or is a number
    /// or literal still being written, which shows once complete).
    pub fn is_writing(&self, pointer: &str) -> bool {
        self.writing.is_some_and(|w| {
            w == pointer
                || (w.starts_with(pointer) && w.as_bytes().get(pointer.len()) == Some(&b'/'))
        })
    }
}

impl<P: Grow + Default> PartialStream<P> {
    /// A stream that has read nothing.
    pub fn new() -> Self {
        PartialStream {
            reader: PartialJson::new(),
            output: P::default(),
            started: false,
            state: FollowState::default(),
        }
    }

    /// Reads one text delta. Returns the snapshot when what it shows
    /// changed: the output (a string grew, a value appeared) or the value
    /// being written (one completed or started); `None` otherwise (white
    /// space, more digits of a number), and `None` from the first
    /// character that is not JSON on (the reader's
    /// [`error`](Self::error); the output is still validated as a whole
    /// when the call completes).
    pub fn feed(&mut self, delta: &str) -> Option<Snapshot<'_, P>> {
        self.reader.feed(delta).ok()?;
        self.started = Follow::update(
            &self.reader,
            &mut self.state,
            &mut self.output,
            self.started,
        );
        (self.started && self.state.shown_changed()).then(|| self.snapshot())
    }

    /// Ends the input: the stream is complete (`docs/runtime.md`, "Typed
    /// streaming"). Returns the snapshot when that changed what shows: a
    /// number at the end of the text (a bare-number output, or one written
    /// with nothing after it) is complete only now, so its value shows
    /// only here. `None` when nothing changed, or the text is not a
    /// complete JSON value (the reader's [`error`](Self::error) then says
    /// where). Later deltas show nothing more.
    pub fn finish(&mut self) -> Option<Snapshot<'_, P>> {
        self.reader.end().ok()?;
        self.started = Follow::update(
            &self.reader,
            &mut self.state,
            &mut self.output,
            self.started,
        );
        (self.started && self.state.shown_changed()).then(|| self.snapshot())
    }

    /// The partial output so far; `None` until it shows anything.
    pub fn output(&self) -> Option<&P> {
        self.started.then_some(&self.output)
    }

    /// The last snapshot (`None` until the output shows anything).
    pub fn last(&self) -> Option<Snapshot<'_, P>> {
        self.started.then(|| self.snapshot())
    }

    fn snapshot(&self) -> Snapshot<'_, P> {
        Snapshot {
            output: &self.output,
            writing: self.state.writing(),
            delta: self.reader.version(),
        }
    }

    /// Where the text stopped being JSON, if it did (an answer wrapped in
    /// prose, say): no snapshot follows it.
    pub fn error(&self) -> Option<&crate::partial::PartialError> {
        self.reader.error()
    }
}

/// What a typed streaming call ([`execute_partial`]) sends its sink, in
/// the order it happens.
#[derive(Debug)]
pub enum Streamed<'a, P> {
    /// A stream event as the port sends it ([`execute_streaming`]): every
    /// `Delta` and `ToolCallDelta`, then the terminal `Complete` (with the
    /// receipt) or `Failed`.
    Event(&'a StreamEvent),
    /// The partial output, after the `Delta` event that changed it.
    Partial(Snapshot<'a, P>),
}

/// The stream sink of a typed streaming call: every event to `sink`, and
/// after each delta that changed the partial output, its snapshot.
fn follow_into<P: Grow + Default>(
    stream: &mut PartialStream<P>,
    sink: &mut dyn FnMut(Streamed<'_, P>),
    event: &StreamEvent,
) {
    // The stream is complete: what only its end completes (a number at
    // the end of the text) shows before the terminal event.
    if let StreamEvent::Complete { .. } = event
        && let Some(snapshot) = stream.finish()
    {
        sink(Streamed::Partial(snapshot));
    }
    sink(Streamed::Event(event));
    if let StreamEvent::Delta { text } = event
        && let Some(snapshot) = stream.feed(text)
    {
        sink(Streamed::Partial(snapshot));
    }
}

/// [`execute_streaming`] with the partial output as it is written: `sink`
/// gets every stream event ([`Streamed::Event`]) and, after each delta
/// that changed what the output shows, a [`Streamed::Partial`] snapshot
/// of `P` (a generated module's `PartialOutput`), built by following the
/// deltas ([`PartialStream`]); the call returns the typed `O` with its
/// receipt, as [`execute`] does. What a generated module's
/// `execute_partial` calls (`docs/runtime.md`, "Typed streaming").
///
/// # Errors
/// As [`execute`]. An output that is not JSON, or is wrapped in other
/// text, shows no partial from where it stops being JSON, and fails (or
/// not) as the port decides for the whole text.
pub fn execute_partial<O, P, A>(
    adapter: &A,
    interaction: &'static Interaction,
    inputs: &dyn ObjectView,
    context: &dyn ObjectView,
    sink: &mut dyn FnMut(Streamed<'_, P>),
) -> Result<Executed<O>, ExecuteError>
where
    O: DeserializeOwned,
    P: Grow + Default,
    A: RuntimeAdapter + ?Sized,
{
    let request = render(interaction, inputs, context)?;
    let mut stream = PartialStream::<P>::new();
    let execution = adapter.execute_streaming(&request, &mut |event| {
        follow_into(&mut stream, sink, &event)
    })?;
    decoded(request, execution)
}

/// [`execute_partial`] through an [`AsyncRuntimeAdapter`]
/// ([`execute_streaming_async`]).
///
/// # Errors
/// As [`execute_async`].
// The `Send` bound is the API: written out, a change that loses it fails
// here, not in a host.
#[allow(clippy::manual_async_fn)]
pub fn execute_partial_async<O, P, A, I, C>(
    adapter: &A,
    interaction: &'static Interaction,
    inputs: &I,
    context: &C,
    sink: &mut (dyn FnMut(Streamed<'_, P>) + Send),
) -> impl Future<Output = Result<Executed<O>, ExecuteError>> + Send
where
    O: DeserializeOwned,
    P: Grow + Default + Send,
    A: AsyncRuntimeAdapter,
    I: ObjectView + Sync,
    C: ObjectView + Sync,
{
    async move {
        let request = render(interaction, inputs, context)?;
        let mut stream = PartialStream::<P>::new();
        let execution = adapter
            .execute_streaming(&request, &mut |event| {
                follow_into(&mut stream, &mut *sink, &event)
            })
            .await?;
        decoded(request, execution)
    }
}

/// The last step: decode the validated output into `O`.
fn decoded<O: DeserializeOwned>(
    request: RenderedInteraction<'static>,
    execution: Execution,
) -> Result<Executed<O>, ExecuteError> {
    match decode_output::<O>(request.interaction, &execution.output) {
        Ok(output) => Ok(Executed {
            output,
            request,
            receipt: execution.receipt,
            usage: execution.usage,
            attempts: execution.attempts,
            route: execution.route,
        }),
        Err(error) => Err(ExecuteError::Decode {
            error,
            execution: Box::new(execution),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::{PartialStream, Snapshot};
    use crate::partial::{PartialJson, PartialNode, PartialValue};
    use crate::typed::{Follow, FollowState};
    use templiqx_contracts::Json;

    /// `next` is what `prev` may become while streaming: strings grow,
    /// arrays and objects keep what they showed (each value consistent in
    /// turn), complete scalars stay.
    fn consistent(prev: &Json, next: &Json, at: &str) {
        match (prev, next) {
            (Json::String(a), Json::String(b)) => {
                assert!(b.starts_with(a.as_str()), "{at}: {a:?} -> {b:?}")
            }
            (Json::Array(a), Json::Array(b)) => {
                assert!(b.len() >= a.len(), "{at}: array shrank");
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    consistent(x, y, &format!("{at}/{i}"));
                }
            }
            (Json::Object(a), Json::Object(b)) => {
                for (k, x) in a {
                    let y = b.get(k).unwrap_or_else(|| panic!("{at}/{k} went away"));
                    consistent(x, y, &format!("{at}/{k}"));
                }
            }
            (a, b) => assert_eq!(a, b, "{at}: a complete scalar changed"),
        }
    }

    /// The innermost value still being written, found by a whole walk.
    fn writing(node: PartialNode<'_>, at: String) -> Option<String> {
        if node.is_done() {
            return None;
        }
        let inner = match node.value() {
            PartialValue::Array(items) => items
                .iter()
                .enumerate()
                .find_map(|(i, item)| writing(item, format!("{at}/{i}"))),
            PartialValue::Object(members) => members.iter().find_map(|(k, member)| {
                writing(
                    member,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                )
            }),
            _ => None,
        };
        Some(inner.unwrap_or(at))
    }

    fn follow(text: &str, split: usize) {
        let mut stream = PartialStream::<Json>::new();
        let mut reader = PartialJson::new();
        let mut prev: Option<Json> = None;
        let mut chars = text.char_indices().peekable();
        while let Some((start, _)) = chars.next() {
            let mut end = text.len();
            for _ in 1..split {
                if chars.next().is_none() {
                    break;
                }
            }
            if let Some(&(i, _)) = chars.peek() {
                end = i;
            }
            let delta = &text[start..end];
            reader.feed(delta).unwrap();
            let changed = stream.feed(delta).is_some();
            // Whatever the resumption skipped, a walk from scratch shows
            // the same value.
            let mut scratch = Json::Null;
            let mut state = FollowState::default();
            let started = Follow::update(&reader, &mut state, &mut scratch, false);
            assert_eq!(
                stream.output(),
                started.then_some(&scratch),
                "{text:?} at {end}"
            );
            let expected_writing = reader.root().and_then(|r| writing(r, String::new()));
            let snapshot: Option<Snapshot<'_, Json>> = stream.last().filter(|_| changed);
            if let Some(s) = snapshot {
                assert_eq!(
                    s.writing.map(str::to_owned),
                    expected_writing,
                    "{text:?} at {end}"
                );
                if let Some(w) = s.writing {
                    assert!(s.is_writing(w) && s.is_writing(""));
                }
                if let Some(p) = &prev {
                    consistent(p, s.output, "");
                }
                prev = Some(s.output.clone());
            }
        }
        let whole = templiqx_contracts::json::parse(text).unwrap();
        assert_eq!(stream.output(), Some(&whole), "{text:?}");
        assert_eq!(stream.last().unwrap().writing, None);
    }

    #[test]
    fn a_followed_stream_grows_by_the_rules_and_ends_as_the_whole_value() {
        let many: String = (0..40)
            .map(|i| format!("\"k{i}\": [{i}, \"v\"],"))
            .collect();
        for text in [
            r#"{"title": "Lease \"A\" \u00e9\ud83d\ude00", "days": 60, "rent": -1450.5e0, "ok": true, "none": null}"#,
            r#"[[1, 22, [333]], {"a": {"b": [{"c": "d/e~f"}]}}, "x", 4.5, false, null, []]"#,
            r#"{"items": [{"n": 1, "tags": ["a", "bb"]}, {"n": 22, "tags": []}, {"n": 333}], "a/b~c": {}}"#,
            &format!("{{{many} \"last\": {{\"deep\": [[[\"x\"]]]}}}}"),
            "  \"just a string\"  ",
        ] {
            for split in [1, 2, 3, 7, 1000] {
                follow(text, split);
            }
        }
    }

    #[test]
    fn a_walk_resumes_only_at_a_node_that_can_be_the_child_named() {
        let mut reader = PartialJson::new();
        reader.feed(r#"[10, [20], {"a": 1, "b": [2]}, 4"#).unwrap();
        let root = reader.root().unwrap();
        let PartialValue::Array(items) = root.value() else {
            panic!("an array")
        };
        let third = items.get(2).unwrap();
        let rest: Vec<usize> = items.iter_from(2, third).unwrap().map(|n| n.id()).collect();
        let all: Vec<usize> = items.iter().skip(2).map(|n| n.id()).collect();
        assert_eq!(rest, all);
        assert_eq!(reader.node(third.id()).map(|n| n.id()), Some(third.id()));
        assert!(reader.node(usize::MAX).is_none());
        // Past the count, before the first item, another reader's node.
        assert!(items.iter_from(4, third).is_none());
        assert!(items.iter_from(0, third).is_none());
        assert!(items.iter_from(0, root).is_none());
        let mut other = PartialJson::new();
        other.feed("[1, 2, 3]").unwrap();
        let foreign = other.root().unwrap();
        assert!(items.iter_from(1, foreign).is_none());
        // Members too; a member that is not the one named gives wrong
        // members, never a panic.
        let PartialValue::Object(members) = third.value() else {
            panic!("an object")
        };
        let b = members.get("b").unwrap();
        let keys: Vec<&str> = members.iter_from(1, b).unwrap().map(|(k, _)| k).collect();
        assert_eq!(keys, ["b"]);
        let inner = match b.value() {
            PartialValue::Array(a) => a.get(0).unwrap(),
            _ => panic!("an array"),
        };
        let _ = members.iter_from(1, inner).map(|i| i.count());
    }

    #[test]
    fn snapshots_come_only_when_what_shows_changes() {
        let mut stream = PartialStream::<Json>::new();
        assert!(stream.feed(" ").is_none(), "nothing has started");
        assert!(stream.feed("[").is_some());
        let s = stream.feed("1").unwrap();
        assert_eq!(
            (s.output.to_string(), s.writing),
            ("[]".to_owned(), Some("/0"))
        );
        assert!(stream.feed("2").is_none(), "a number shows once complete");
        let s = stream.feed(",").unwrap();
        assert_eq!(s.output, &templiqx_contracts::json::parse("[12]").unwrap());
        assert_eq!(s.writing, Some(""));
        assert!(s.is_writing("") && !s.is_writing("/0"));
        assert!(stream.feed("  ").is_none());
        assert!(stream.feed("x").is_none(), "not JSON: no more snapshots");
        assert!(stream.error().is_some());
    }

    /// Small enough for clippy's `result_large_err` (128 bytes) in hosts,
    /// which deny warnings without the workspace's allowance.
    #[test]
    fn the_error_stays_small() {
        assert!(std::mem::size_of::<super::ExecuteError>() <= 64);
    }
}
