//! Diagnostics: stable `TQX_*` codes, severities, locations and help.
//!
//! Every code is stable once published; each is listed in
//! `docs/diagnostics.md` with an example.

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident => $code:literal,)*) => {
        /// A stable diagnostic code. Serialises as its `TQX_*` string.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Code {
            $($(#[$doc])* $variant,)*
        }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The stable `TQX_*` spelling.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $code,)*
                }
            }

            /// Parses a `TQX_*` spelling.
            pub fn parse(s: &str) -> Option<Code> {
                match s {
                    $($code => Some(Code::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

codes! {
    /// The YAML text is not well-formed, or uses a tag, a duplicate mapping
    /// key, or alias expansion beyond the budget.
    ParseYaml => "TQX_PARSE_YAML",
    /// JSON text (a request, an output, a manifest, a value to fingerprint)
    /// is not well-formed, or repeats an object key.
    ParseJson => "TQX_PARSE_JSON",
    /// A mapping key that the format does not define (all DTOs are strict).
    UnknownField => "TQX_UNKNOWN_FIELD",
    /// A field the format requires is absent.
    MissingField => "TQX_MISSING_FIELD",
    /// A field has the wrong YAML shape (e.g. a list where a string belongs).
    InvalidType => "TQX_INVALID_TYPE",
    /// A value outside a closed set: role, node kind, filter, expression kind.
    UnknownVariant => "TQX_UNKNOWN_VARIANT",
    /// `api_version` is not a supported format version.
    ApiVersion => "TQX_API_VERSION",
    /// A field's value is malformed (bad semver, empty id, empty message list).
    InvalidValue => "TQX_INVALID_VALUE",
    /// A `runtime_policy` value outside its documented range.
    PolicyRange => "TQX_POLICY_RANGE",
    /// A JSON Schema keyword outside the bounded subset.
    SchemaUnsupported => "TQX_SCHEMA_UNSUPPORTED",
    /// A subset keyword with a malformed value (e.g. `minLength: -1`).
    SchemaInvalid => "TQX_SCHEMA_INVALID",
    /// Bounds that no value can satisfy (min above max, empty `enum`, ...).
    SchemaBounds => "TQX_SCHEMA_BOUNDS",
    /// A reference whose root or a segment is not declared.
    RefUnknown => "TQX_REF_UNKNOWN",
    /// A reference that steps into a scalar, or indexes an object by number.
    RefImpossible => "TQX_REF_IMPOSSIBLE",
    /// A `for_each` item or component parameter named like a root scope.
    LocalReserved => "TQX_LOCAL_RESERVED",
    /// An operand or collection of the wrong type (non-boolean condition,
    /// `for_each` over a non-array, interpolating a non-scalar without `json`).
    TypeMismatch => "TQX_TYPE_MISMATCH",
    /// An expression kind written where it is not allowed: an eval check
    /// operator (`compare`, `contains`, `length`) in contract content
    /// (`docs/format.md`, "Where each kind is allowed").
    ExprKindNotAllowed => "TQX_EXPR_KIND_NOT_ALLOWED",
    /// A filter applied to a value of a type it does not accept.
    FilterType => "TQX_FILTER_TYPE",
    /// A component invocation names no declared component.
    ComponentUnknown => "TQX_COMPONENT_UNKNOWN",
    /// A component argument is missing, undeclared, of the wrong type, or
    /// (legacy form) used in a way the string inference cannot satisfy.
    ComponentArgument => "TQX_COMPONENT_ARGUMENT",
    /// Components invoke each other in a cycle.
    ComponentCycle => "TQX_COMPONENT_CYCLE",
    /// An extension key without a namespace (`reasoning_effort` instead of
    /// `openai.reasoning_effort`).
    ExtensionKey => "TQX_EXTENSION_KEY",
    /// An extension value that does not validate against its schema.
    ExtensionValue => "TQX_EXTENSION_VALUE",
    /// An extension's capability is missing from the target profile.
    ExtensionUnsupported => "TQX_EXTENSION_UNSUPPORTED",
    /// A contract capability is missing from the target profile (or no
    /// profile was given: there is no default).
    CapabilityUnsupported => "TQX_CAPABILITY_UNSUPPORTED",
    /// An eval fixture violates its schemas, names undeclared fields, or
    /// repeats an id.
    EvalInvalid => "TQX_EVAL_INVALID",
    /// The judge contract of a model-graded check cannot be used: the
    /// package lists no such contract, it does not compile for the target,
    /// or the contract was compiled without its package
    /// (`docs/format.md`, "Model-graded checks").
    JudgeUnresolved => "TQX_JUDGE_UNRESOLVED",
    /// The `with` of a model-graded check does not fit its judge's inputs:
    /// a required input missing, an undeclared one, a value of the wrong
    /// type, or a judge that requires context.
    JudgeInput => "TQX_JUDGE_INPUT",
    /// Model-graded checks form a cycle: a contract judged, directly or
    /// through other judges, by itself.
    JudgeCycle => "TQX_JUDGE_CYCLE",
    /// A render exceeded a budget (iterations, nesting depth, output bytes).
    RenderBudget => "TQX_RENDER_BUDGET",
    /// A request value (inputs/context) violates its declaration.
    ValueInvalid => "TQX_VALUE_INVALID",
    /// A reference to an absent optional value was rendered.
    ValueMissing => "TQX_VALUE_MISSING",
    /// A filter received an input it cannot process (e.g. `2026-02-30`).
    FilterInput => "TQX_FILTER_INPUT",
    /// A model output does not validate against `output_schema`.
    OutputSchema => "TQX_OUTPUT_SCHEMA",
    /// A warning: the model's text did not parse or validate as it was,
    /// and output recovery (opt-in) read the output from it (the JSON in a
    /// Markdown fence or in prose, trailing commas or quotes fixed;
    /// `docs/runtime.md`, "Output recovery").
    OutputRecovered => "TQX_OUTPUT_RECOVERED",
    /// The runtime timed out.
    RuntimeTimeout => "TQX_RUNTIME_TIMEOUT",
    /// The runtime was rate limited (may carry `retry_after_ms`).
    RuntimeRateLimited => "TQX_RUNTIME_RATE_LIMITED",
    /// The runtime was unavailable.
    RuntimeUnavailable => "TQX_RUNTIME_UNAVAILABLE",
    /// The runtime's response could not be used.
    RuntimeInvalidResponse => "TQX_RUNTIME_INVALID_RESPONSE",
    /// The runtime failed permanently; retrying will not help.
    RuntimePermanent => "TQX_RUNTIME_PERMANENT",
    /// A warning of an adapter combinator (`templiqx::fallback`): a member
    /// was skipped, not called, because it lacks a capability the
    /// interaction requires (`docs/runtime.md`, "Fallback and round robin").
    AdapterSkipped => "TQX_ADAPTER_SKIPPED",
    /// Include nodes form a cycle.
    IncludeCycle => "TQX_INCLUDE_CYCLE",
    /// An include path is missing, or leaves its package root.
    IncludeUnresolved => "TQX_INCLUDE_UNRESOLVED",
    /// A partial is not a YAML list of content nodes.
    IncludeInvalid => "TQX_INCLUDE_INVALID",
    /// A tool-contract `$ref` names no entry, has no pin, or a wrong pin.
    ToolContractRefUnresolved => "TQX_TOOL_CONTRACT_REF_UNRESOLVED",
    /// A package manifest problem (unknown dependency, wrong digest, path
    /// outside the package).
    Package => "TQX_PACKAGE",
    /// A mock scenario or scenario inventory breaks a rule of
    /// `templiqx.mock/v1alpha1`: lifecycle order, duplicate ids, drift
    /// between the inventory and a manifest, a path outside the corpus root.
    Scenario => "TQX_SCENARIO",
    /// A file could not be read.
    Io => "TQX_IO",
    /// Two generated Rust names collide (`first-name` and `first_name`).
    CodegenCollision => "TQX_CODEGEN_COLLISION",
    /// A warning of `templiqx check --lint openai-strict`: OpenAI would
    /// receive the output schema with `strict: false` (a node outside its
    /// strict subset even after optional properties are lowered).
    LintOpenAiNotStrict => "TQX_LINT_OPENAI_NOT_STRICT",
    /// `templiqx eval` ran, and its gate failed: a pass rate below
    /// `--min-pass-rate`, or a regression against the baseline with
    /// `--fail-on-regression` (`docs/eval.md`, "Gating and exit status").
    EvalGate => "TQX_EVAL_GATE",
    /// `templiqx diff`: a contract's or package's new version is not bumped
    /// enough for the changes found (Cargo's semver rules, `docs/diff.md`,
    /// "The version gate").
    VersionBump => "TQX_VERSION_BUMP",
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Code::parse(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown diagnostic code `{s}`")))
    }
}

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The operation fails.
    Error,
    /// Reported, but the operation succeeds.
    Warning,
}

/// A 1-based line/column position. Columns count Unicode scalar values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub struct Position {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

/// A source range: `start` inclusive, `end` exclusive, both 1-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    /// First character.
    pub start: Position,
    /// One past the last character.
    pub end: Position,
    /// Byte offsets into the file (`start..end`), for snippet rendering.
    #[serde(skip)]
    pub bytes: (usize, usize),
}

/// The 1-based line and column of byte `offset` in `text` (clamped to the
/// text, and to the start of the character it falls in). `\n`, `\r\n` and a
/// lone `\r` each end a line (YAML 1.2); columns count Unicode scalar
/// values.
pub fn position(text: &str, offset: usize) -> Position {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let bytes = text.as_bytes();
    let (mut line, mut line_start) = (1usize, 0usize);
    for (i, &b) in bytes[..offset].iter().enumerate() {
        let ends_line = b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
        if ends_line {
            line += 1;
            line_start = i + 1;
        }
    }
    let column = text[line_start..offset].chars().count() + 1;
    Position {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        column: u32::try_from(column).unwrap_or(u32::MAX),
    }
}

/// One problem found in a contract, a package, a request or an execution.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// The stable code.
    pub code: Code,
    /// Error or warning.
    pub severity: Severity,
    /// One sentence saying what is wrong.
    pub message: String,
    /// The file, relative to the package root or the caller's base directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// RFC 6901 JSON Pointer of the offending node within `file` (or within
    /// the request for render-time diagnostics).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_pointer: Option<String>,
    /// Source span in `file`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
    /// What to do about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// Further context, e.g. the include chain (`"included from ..."`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// A fix that can be applied as is: the text that replaces a span of
    /// `file` (the "did you mean" of the help, `docs/diagnostics.md`,
    /// "Suggestions"). Set only where the compiler knows exactly which
    /// source text the suggestion replaces. Boxed: most diagnostics have
    /// none, and diagnostics are moved often.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<Box<Suggestion>>,
}

/// A machine-applicable fix of a [`Diagnostic`]: write `replacement` in
/// place of the text at `span` (in the diagnostic's file). rustc's JSON
/// diagnostics call the same pair a span's `suggested_replacement`.
///
/// ```
/// use templiqx_contracts::{Code, Diagnostic, Position, Span, Suggestion};
///
/// let at = |column| Position { line: 3, column };
/// let span = Span { start: at(25), end: at(36), bytes: (60, 71) };
/// let d = Diagnostic::error(Code::RefUnknown, "`inputs` declares no field `nmae`")
///     .help("did you mean `inputs.name`?")
///     .suggest("inputs.name", span);
/// let json = serde_json::to_value(&d).unwrap();
/// assert_eq!(json["suggestion"]["replacement"], "inputs.name");
/// assert_eq!(json["suggestion"]["span"]["start"]["column"], 25);
/// let back: Diagnostic = serde_json::from_value(json).unwrap();
/// assert_eq!(back.suggestion.map(|s| s.replacement).as_deref(), Some("inputs.name"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suggestion {
    /// The text to write.
    pub replacement: String,
    /// The text it replaces: all or part of the one scalar or mapping key
    /// the suggestion corrects.
    pub span: Span,
}

impl Diagnostic {
    /// An error with a code and message and no location yet.
    pub fn error(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            file: None,
            json_pointer: None,
            span: None,
            help: None,
            notes: Vec::new(),
            suggestion: None,
        }
    }

    /// Sets the JSON pointer.
    pub fn at(mut self, pointer: impl Into<String>) -> Diagnostic {
        self.json_pointer = Some(pointer.into());
        self
    }

    /// Sets the help line.
    pub fn help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Sets the file.
    pub fn in_file(mut self, file: impl Into<String>) -> Diagnostic {
        self.file = Some(file.into());
        self
    }

    /// Adds a note.
    pub fn note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Sets the [`Suggestion`]: `replacement` in place of the text at
    /// `span` of the diagnostic's file.
    pub fn suggest(mut self, replacement: impl Into<String>, span: Span) -> Diagnostic {
        self.suggestion = Some(Box::new(Suggestion {
            replacement: replacement.into(),
            span,
        }));
        self
    }

    /// Whether this diagnostic is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    /// One line: `error[CODE]: message (file:line:column at /pointer)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{sev}[{}]: {}", self.code, self.message)?;
        match (&self.file, &self.span) {
            (Some(file), Some(span)) => {
                write!(f, " ({file}:{}:{})", span.start.line, span.start.column)?
            }
            (Some(file), None) => write!(f, " ({file})")?,
            _ => {}
        }
        if let Some(p) = &self.json_pointer {
            write!(f, " at {}", if p.is_empty() { "/" } else { p })?;
        }
        Ok(())
    }
}

/// Every problem one operation found, in the order found.
///
/// The one carrier of diagnostics across the crates: a compile, a render,
/// an output decode, a scenario load and a build each fail with a thin
/// wrapper around it (`RenderError`, `DecodeError`, `MockError`,
/// `BuildError`, the gateway's `StartupError`), so every failure displays,
/// iterates and reports its codes the same way. Dereferences to a slice;
/// serialises as a JSON array of [`Diagnostic`]s.
///
/// ```
/// use templiqx_contracts::{Code, Diagnostic, Diagnostics};
///
/// let mut found = Diagnostics::new();
/// found.push(Diagnostic::error(Code::ValueInvalid, "`inputs.name` is missing").at("/inputs/name"));
/// found.push(Diagnostic::error(Code::ValueInvalid, "`inputs.age` is not declared").help("remove it"));
/// assert!(found.has(Code::ValueInvalid));
/// assert_eq!(found.len(), 2);
/// assert_eq!(
///     found.to_string(),
///     "error[TQX_VALUE_INVALID]: `inputs.name` is missing at /inputs/name\n\
///      error[TQX_VALUE_INVALID]: `inputs.age` is not declared\n  = help: remove it"
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Diagnostics(Vec<Diagnostic>);

impl Diagnostics {
    /// No diagnostics yet.
    pub const fn new() -> Diagnostics {
        Diagnostics(Vec::new())
    }

    /// Exactly one diagnostic.
    pub fn one(diagnostic: Diagnostic) -> Diagnostics {
        Diagnostics(vec![diagnostic])
    }

    /// Appends a diagnostic.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.0.push(diagnostic);
    }

    /// The code of each diagnostic, in order.
    pub fn codes(&self) -> impl Iterator<Item = Code> + '_ {
        self.0.iter().map(|d| d.code)
    }

    /// Whether some diagnostic has `code`.
    pub fn has(&self, code: Code) -> bool {
        self.0.iter().any(|d| d.code == code)
    }

    /// Whether some diagnostic is an error (not only warnings).
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }

    /// The diagnostics as a `Vec`.
    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.0
    }
}

impl std::ops::Deref for Diagnostics {
    type Target = [Diagnostic];
    fn deref(&self) -> &[Diagnostic] {
        &self.0
    }
}

impl std::ops::DerefMut for Diagnostics {
    fn deref_mut(&mut self) -> &mut [Diagnostic] {
        &mut self.0
    }
}

impl From<Vec<Diagnostic>> for Diagnostics {
    fn from(diagnostics: Vec<Diagnostic>) -> Diagnostics {
        Diagnostics(diagnostics)
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(diagnostic: Diagnostic) -> Diagnostics {
        Diagnostics::one(diagnostic)
    }
}

impl From<Diagnostics> for Vec<Diagnostic> {
    fn from(diagnostics: Diagnostics) -> Vec<Diagnostic> {
        diagnostics.0
    }
}

impl PartialEq<Vec<Diagnostic>> for Diagnostics {
    fn eq(&self, other: &Vec<Diagnostic>) -> bool {
        &self.0 == other
    }
}

impl FromIterator<Diagnostic> for Diagnostics {
    fn from_iter<I: IntoIterator<Item = Diagnostic>>(iter: I) -> Diagnostics {
        Diagnostics(iter.into_iter().collect())
    }
}

impl Extend<Diagnostic> for Diagnostics {
    fn extend<I: IntoIterator<Item = Diagnostic>>(&mut self, iter: I) {
        self.0.extend(iter);
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl fmt::Display for Diagnostics {
    /// One line per diagnostic ([`Diagnostic`]'s one-line form), each
    /// followed by `  = help: …` when it has a help line, as rustc prints
    /// helps. The one display policy of every Templiqx error type.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{d}")?;
            if let Some(help) = &d.help {
                write!(f, "\n  = help: {help}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// Escapes one JSON Pointer reference token (RFC 6901 section 3: `~` → `~0`, `/` → `~1`).
pub fn escape_pointer_token(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains(['~', '/']) {
        token.replace('~', "~0").replace('/', "~1").into()
    } else {
        token.into()
    }
}

/// Appends a reference token to a JSON Pointer.
pub fn pointer_push(pointer: &str, token: &str) -> String {
    let mut s = String::with_capacity(pointer.len() + token.len() + 1);
    s.push_str(pointer);
    s.push('/');
    s.push_str(&escape_pointer_token(token));
    s
}
