//! The history of eval runs in an embedded SQLite database
//! (`docs/eval.md`, "History").
//!
//! One file holds every run: a row in `runs` per run, a row in
//! `run_contracts` per contract of a run (its fingerprints), a row in
//! `executions` per execution (with its evidence: the output, the
//! failure's message and help, the finish reason), a row in `checks` per
//! check verdict (a failed check's expression and the values it read) and
//! a row in `violations` per schema violation. The schema is [`SCHEMA`]
//! (version [`SCHEMA_VERSION`]; a file of version 1, 2, 3, 4, 5 or 6 is
//! migrated in place by [`MIGRATION_V2`], [`MIGRATION_V3`],
//! [`MIGRATION_V4`], [`MIGRATION_V5`], [`MIGRATION_V6`] and
//! [`MIGRATION_V7`]); users query it with `sqlite3`, and
//! [`History::run`] and [`History::executions`] read a run back. Executions stream
//! in as they finish, committed in batches of [`BATCH`], so a run's memory
//! does not grow with its length and an interrupted run keeps what it did.

use crate::record::{CheckVerdict, Evidence, ExecutionRecord, RunInfo, Verdict, Violation};
use rusqlite::{Connection, OptionalExtension, params};
use std::fmt;
use std::path::Path;

/// The schema's version, kept in SQLite's `user_version`. A file of
/// version 1, 2, 3, 4, 5 or 6 is migrated in place ([`MIGRATION_V2`],
/// [`MIGRATION_V3`], [`MIGRATION_V4`], [`MIGRATION_V5`], [`MIGRATION_V6`],
/// [`MIGRATION_V7`]) when opened; a
/// database of another version is refused ([`HistoryError`]) rather than
/// guessed at.
pub const SCHEMA_VERSION: i64 = 7;

/// How long an operation waits for a database another connection is
/// writing before it fails: runs beside each other share one history file,
/// each holding the write lock at most [`COMMIT_EVERY`] at a time.
pub const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// Executions inserted per transaction, at most.
pub const BATCH: usize = 512;

/// The longest an execution waits to be committed: a slow run (a real model
/// at a request a minute) commits each execution as it finishes, a fast one
/// in batches of [`BATCH`].
pub const COMMIT_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

macro_rules! schema_v1 {
    () => {
        "\
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,      -- RFC 3339, UTC
  finished_at TEXT,              -- NULL while running or when interrupted
  provider TEXT NOT NULL,        -- openai | anthropic | fake
  model TEXT NOT NULL,
  sampling TEXT NOT NULL,        -- JSON object text
  repeat INTEGER NOT NULL,
  templiqx_version TEXT NOT NULL,
  stats TEXT                     -- the run's statistics (JSON), once finished
);
CREATE TABLE run_contracts (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  contract TEXT NOT NULL,
  contract_fingerprint TEXT NOT NULL,
  interaction_fingerprint TEXT NOT NULL,
  PRIMARY KEY (run_id, contract)
);
CREATE TABLE executions (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  contract TEXT NOT NULL,
  fixture TEXT NOT NULL,
  repeat INTEGER NOT NULL,
  contract_fingerprint TEXT NOT NULL,
  interaction_fingerprint TEXT NOT NULL,
  request_fingerprint TEXT NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  sampling TEXT NOT NULL,
  transport TEXT NOT NULL,       -- JSON: base URL and wire settings
  code TEXT,                     -- NULL on success, else the TQX_* code
  schema_valid INTEGER NOT NULL, -- 0 | 1
  latency_ms REAL NOT NULL,
  input_tokens INTEGER,
  output_tokens INTEGER,
  attempts INTEGER NOT NULL,
  output_fingerprint TEXT,
  output TEXT,                   -- the schema-valid output (JSON), for --cache
  cached INTEGER NOT NULL        -- 1 when reused from an earlier run
);
CREATE INDEX executions_by_run ON executions(run_id);
CREATE INDEX executions_by_request ON executions(
  request_fingerprint, interaction_fingerprint, provider, model, sampling, transport, repeat);
CREATE TABLE checks (
  execution_id INTEGER NOT NULL REFERENCES executions(id),
  position INTEGER NOT NULL,     -- the check's index in the fixture's expect
  check_id TEXT NOT NULL,
  verdict TEXT NOT NULL,         -- pass | fail | error | not_run
  PRIMARY KEY (execution_id, position)
);
"
    };
}

macro_rules! migration_v2 {
    () => {
        "\
ALTER TABLE executions ADD COLUMN response TEXT;       -- a schema-invalid output's text
ALTER TABLE executions ADD COLUMN message TEXT;        -- the failure's message (redacted)
ALTER TABLE executions ADD COLUMN help TEXT;           -- what to do about the failure
ALTER TABLE executions ADD COLUMN provider_message TEXT; -- the provider's whole error message
ALTER TABLE executions ADD COLUMN finish_reason TEXT;  -- length | max_tokens | content_filter | refusal
ALTER TABLE checks ADD COLUMN expression TEXT;         -- a check that did not pass: as written
ALTER TABLE checks ADD COLUMN observed TEXT;           -- JSON: [{expression, value}]
ALTER TABLE checks ADD COLUMN error TEXT;              -- verdict error: why
CREATE TABLE violations (
  execution_id INTEGER NOT NULL REFERENCES executions(id),
  position INTEGER NOT NULL,     -- in the validator's order
  pointer TEXT NOT NULL,         -- JSON pointer into the output
  keyword TEXT NOT NULL,         -- the JSON Schema keyword violated
  message TEXT NOT NULL,
  PRIMARY KEY (execution_id, position)
);
"
    };
}

macro_rules! migration_v3 {
    () => {
        "\
ALTER TABLE runs ADD COLUMN interrupted_at TEXT;       -- RFC 3339, when the run was interrupted
ALTER TABLE executions ADD COLUMN queue_ms REAL;       -- the time it waited for the server
"
    };
}

macro_rules! migration_v4 {
    () => {
        "\
ALTER TABLE runs ADD COLUMN variants TEXT;             -- JSON: [{name, provider, model, transport}], a run of several
ALTER TABLE runs ADD COLUMN currency TEXT;             -- the price table's currency, when the run had one
ALTER TABLE runs ADD COLUMN max_cost REAL;             -- the run's budget (--max-cost)
ALTER TABLE executions ADD COLUMN variant TEXT;        -- the variant's name, in a run of several
ALTER TABLE executions ADD COLUMN cost REAL;           -- what it cost by the price table; NULL when unknown
"
    };
}

macro_rules! migration_v5 {
    () => {
        "\
ALTER TABLE executions ADD COLUMN recovered INTEGER;   -- 1: output recovery read the output out of the model's text
"
    };
}

macro_rules! migration_v6 {
    () => {
        "\
ALTER TABLE checks ADD COLUMN judge TEXT;              -- JSON: what a model-graded check's judge answered
"
    };
}

macro_rules! migration_v7 {
    () => {
        "\
ALTER TABLE executions ADD COLUMN cached_input_tokens INTEGER; -- of input_tokens, those read from the provider's prompt cache
"
    };
}

/// The tables of version 1 of the history (what templiqx wrote before
/// version 2): a file created by it is migrated by [`MIGRATION_V2`].
pub const SCHEMA_V1: &str = schema_v1!();

/// From version 1 to 2: the evidence of each execution (`response`,
/// `message`, `help`, `provider_message`, `finish_reason`), of each check that did not pass
/// (`expression`, `observed`, `error`), and the schema `violations`
/// (`docs/eval.md`, "History"). Run in one transaction with the version
/// change.
pub const MIGRATION_V2: &str = migration_v2!();

/// From version 2 to 3: `runs.interrupted_at`, when a run was interrupted
/// (SIGINT, SIGTERM, [`Eval::interrupt`](crate::Eval::interrupt)); such a
/// run keeps `finished_at` null and has its `stats` over what ran; and
/// `executions.queue_ms`, the time an execution waited for the server
/// (`latency_ms` is then the model's own; `docs/eval.md`, "History"). Run in one transaction with the version
/// change.
pub const MIGRATION_V3: &str = migration_v3!();

/// From version 3 to 4: a run of several variants (`runs.variants`, and
/// each execution's `executions.variant`; `docs/eval.md`, "Comparing
/// models") and its cost (`runs.currency`, `runs.max_cost`,
/// `executions.cost`; "Cost"). Earlier runs keep them null: one variant,
/// no price table. Run in one transaction with the version change.
pub const MIGRATION_V4: &str = migration_v4!();

/// From version 4 to 5: `executions.recovered`, 1 when output recovery
/// read the output out of the model's text (`--recover-output`;
/// `docs/eval.md`, "Output recovery"). Earlier executions keep it null:
/// no recovery. Run in one transaction with the version change.
pub const MIGRATION_V5: &str = migration_v5!();

/// From version 5 to 6: `checks.judge`, what the judge of a model-graded
/// check answered (`docs/eval.md`, "Judges"): JSON `{contract, output,
/// reasons, code, input_tokens, output_tokens}`. Earlier checks keep it
/// null: no judge. Run in one transaction with the version change.
pub const MIGRATION_V6: &str = migration_v6!();

/// From version 6 to 7: `executions.cached_input_tokens`, of an
/// execution's input tokens those the provider read from its prompt cache
/// (`docs/eval.md`, "Cost"), null when no usage was reported. Earlier
/// executions keep it null: their cached tokens were not counted. Run in
/// one transaction with the version change.
pub const MIGRATION_V7: &str = migration_v7!();

/// The history's tables at [`SCHEMA_VERSION`]: [`SCHEMA_V1`], then
/// [`MIGRATION_V2`] and [`MIGRATION_V3`], so a new file and a migrated one
/// are alike (`docs/eval.md`, "History" documents each column).
pub const SCHEMA: &str = concat!(
    schema_v1!(),
    migration_v2!(),
    migration_v3!(),
    migration_v4!(),
    migration_v5!(),
    migration_v6!(),
    migration_v7!()
);

/// What a history operation failed on: the database file, its schema, or
/// SQLite itself. The CLI reports it as `TQX_IO` (exit 2).
#[derive(Debug)]
pub struct HistoryError {
    /// What was being done.
    pub action: String,
    /// SQLite's message, or why the file was refused.
    pub reason: String,
}

impl fmt::Display for HistoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.action, self.reason)
    }
}

impl std::error::Error for HistoryError {}

fn fail(action: &str) -> impl Fn(rusqlite::Error) -> HistoryError + '_ {
    move |e| HistoryError {
        action: action.to_owned(),
        reason: e.to_string(),
    }
}

/// What an execution is stored under. Beside the repeat index, all but the
/// contract fingerprint decide whether an earlier execution can stand for a
/// new one (`--cache`): the same interaction and rendered request
/// (fingerprints), sent to the same provider and model with the same
/// sampling parameters, the same way (transport). The contract fingerprint also changes with
/// descriptions, provenance and eval fixtures (their `expect` checks
/// included), none of which changes what the model is sent: an edited
/// check is evaluated again on the cached output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutionKey {
    /// The contract fingerprint.
    pub contract_fingerprint: String,
    /// The interaction fingerprint.
    pub interaction_fingerprint: String,
    /// The fingerprint of the rendered request.
    pub request_fingerprint: String,
    /// `openai`, `anthropic` or `fake`.
    pub provider: String,
    /// The model name.
    pub model: String,
    /// The sampling parameters, as JSON object text.
    pub sampling: String,
    /// How the request reached the model, as JSON object text: the base
    /// URL and the adapter's wire settings (structured-output mode, roles,
    /// token-cap field, the names — never the values — of extra headers);
    /// `{}` for the fake provider. Another server or another way of sending
    /// the schema is another experiment.
    pub transport: String,
}

/// An earlier execution found for `--cache`.
#[derive(Clone, Debug, PartialEq)]
pub struct Cached {
    /// Its record (with `cached: true`); its check verdicts are the ones
    /// stored, which the caller re-evaluates against `output` when the
    /// checks may have changed.
    pub record: ExecutionRecord,
    /// The schema-valid output it produced (JSON text), if any.
    pub output: Option<String>,
}

/// A finished run found by [`History::baseline`].
#[derive(Clone, Debug, PartialEq)]
pub struct StoredRun {
    /// Its id.
    pub id: i64,
    /// When it started (RFC 3339).
    pub started_at: String,
    /// Its statistics as stored at the end of the run (JSON text).
    pub stats: String,
    /// `(contract id, interaction fingerprint)` of each of its contracts.
    pub interactions: Vec<(String, String)>,
}

/// A run as stored, for `templiqx eval show` ([`History::run`]).
#[derive(Clone, Debug, PartialEq)]
pub struct StoredRunInfo {
    /// The run.
    pub run: RunInfo,
    /// When it finished (RFC 3339); `None` while running or when it was
    /// interrupted.
    pub finished_at: Option<String>,
    /// `(contract id, interaction fingerprint)` of each of its contracts.
    pub interactions: Vec<(String, String)>,
}

/// An open history database.
pub struct History {
    conn: Connection,
    pending: usize,
    /// When the open transaction began.
    opened: std::time::Instant,
}

impl fmt::Debug for History {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("History")
            .field("path", &self.conn.path())
            .field("pending", &self.pending)
            .finish()
    }
}

impl History {
    /// Opens the database at `path`, creating it (and its parent
    /// directories) with [`SCHEMA`] when it does not exist, and migrating a
    /// file of version 1 to 6 to [`SCHEMA_VERSION`] in place (one transaction under
    /// the write lock: of processes opening it together, one migrates).
    ///
    /// # Errors
    ///
    /// A [`HistoryError`] when the file cannot be created or opened, is not
    /// a SQLite database, or holds another schema version.
    pub fn open(path: &Path) -> Result<History, HistoryError> {
        if let Some(parent) = path.parent()
            && !parent.as_os_str().is_empty()
        {
            std::fs::create_dir_all(parent).map_err(|e| HistoryError {
                action: format!("creating {}", parent.display()),
                reason: e.to_string(),
            })?;
        }
        let conn = Connection::open(path).map_err(fail("opening the eval history"))?;
        History::with(conn)
    }

    /// Opens the existing history at `path` for reading only (`templiqx
    /// eval show`): nothing is created, migrated or written, so a file
    /// that is read-only, or in a directory that is (a CI artefact), can
    /// be read. A file in WAL mode whose `-shm` file cannot be made there
    /// is read as immutable (its last checkpoint).
    ///
    /// # Errors
    ///
    /// A [`HistoryError`] when the file cannot be opened, is not a SQLite
    /// database, holds no eval history (an empty file), or holds another
    /// schema version than [`SCHEMA_VERSION`] (an older one is migrated in
    /// place by [`History::open`], which writes it).
    pub fn open_read_only(path: &Path) -> Result<History, HistoryError> {
        use rusqlite::OpenFlags;
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let version =
            |conn: &Connection| conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0));
        let opened = Connection::open_with_flags(path, flags)
            .and_then(|conn| version(&conn).map(|v| (conn, v)));
        let (conn, version) = match opened {
            Ok(opened) => opened,
            Err(_) => {
                let uri = format!("file:{}?immutable=1", uri_path(path));
                Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI)
                    .and_then(|conn| version(&conn).map(|v| (conn, v)))
                    .map_err(fail("opening the eval history"))?
            }
        };
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(fail("configuring the eval history"))?;
        match version {
            SCHEMA_VERSION => Ok(History {
                conn,
                pending: 0,
                opened: std::time::Instant::now(),
            }),
            0 => Err(HistoryError {
                action: "opening the eval history".to_owned(),
                reason: "the file holds no eval history (no templiqx schema version)".to_owned(),
            }),
            other => Err(HistoryError {
                action: "opening the eval history".to_owned(),
                reason: format!(
                    "its schema version is {other}; reading it needs version {SCHEMA_VERSION}, to which `templiqx eval --db` with this file migrates it in place"
                ),
            }),
        }
    }

    /// A history in memory, gone when dropped (tests, `--db :memory:`).
    ///
    /// # Errors
    ///
    /// As [`History::open`].
    pub fn in_memory() -> Result<History, HistoryError> {
        History::with(Connection::open_in_memory().map_err(fail("opening an in-memory history"))?)
    }

    fn with(conn: Connection) -> Result<History, HistoryError> {
        // A database another process is writing (a run beside this one, or
        // creating the schema at the same moment) is waited for, not an
        // error: SQLite retries a locked database for up to BUSY_TIMEOUT.
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(fail("configuring the eval history"))?;
        // WAL keeps readers (sqlite3 in another terminal) off the writer's
        // back; NORMAL is durable across a process crash, which is what a
        // history needs.
        // Switching to WAL takes the file exclusively, and SQLite does not
        // wait for that lock through the busy timeout when other
        // connections are opening the file too: retry it.
        until_not_busy(|| {
            conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")
        })
        .map_err(fail("configuring the eval history"))?;
        // Create the schema under the write lock (`BEGIN IMMEDIATE`), and
        // decide whether to from what is there once the lock is held: of
        // processes opening a new file together, one creates the tables and
        // the others find them.
        conn.execute_batch("BEGIN IMMEDIATE")
            .map_err(fail("opening the eval history"))?;
        let created = History::create_schema(&conn);
        let end = if created.is_ok() {
            "COMMIT"
        } else {
            "ROLLBACK"
        };
        let ended = conn
            .execute_batch(end)
            .map_err(fail("creating the eval history"));
        created?;
        ended?;
        Ok(History {
            conn,
            pending: 0,
            opened: std::time::Instant::now(),
        })
    }

    /// Within the open transaction: creates the schema in a file without
    /// one, migrates versions 1 to 6, accepts the current version, refuses
    /// anything else.
    fn create_schema(conn: &Connection) -> Result<(), HistoryError> {
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(fail("reading the eval history's schema version"))?;
        match version {
            0 => {
                let tables: i64 = conn
                    .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
                    .map_err(fail("reading the eval history"))?;
                if tables > 0 {
                    return Err(HistoryError {
                        action: "opening the eval history".to_owned(),
                        reason: "the file is a SQLite database of something else (it has tables but no templiqx schema version)".to_owned(),
                    });
                }
                conn.execute_batch(&format!("{SCHEMA} PRAGMA user_version = {SCHEMA_VERSION};"))
                    .map_err(fail("creating the eval history"))
            }
            // Migrated in place, in the transaction `with` holds: of runs
            // opening an older file together, one migrates and the others
            // find the current version.
            1 => conn
                .execute_batch(&format!(
                    "{MIGRATION_V2} {MIGRATION_V3} {MIGRATION_V4} {MIGRATION_V5} {MIGRATION_V6} {MIGRATION_V7} PRAGMA user_version = {SCHEMA_VERSION};"
                ))
                .map_err(fail("migrating the eval history to schema version 7")),
            2 => conn
                .execute_batch(&format!(
                    "{MIGRATION_V3} {MIGRATION_V4} {MIGRATION_V5} {MIGRATION_V6} {MIGRATION_V7} PRAGMA user_version = {SCHEMA_VERSION};"
                ))
                .map_err(fail("migrating the eval history to schema version 7")),
            3 => conn
                .execute_batch(&format!(
                    "{MIGRATION_V4} {MIGRATION_V5} {MIGRATION_V6} {MIGRATION_V7} PRAGMA user_version = {SCHEMA_VERSION};"
                ))
                .map_err(fail("migrating the eval history to schema version 7")),
            4 => conn
                .execute_batch(&format!(
                    "{MIGRATION_V5} {MIGRATION_V6} {MIGRATION_V7} PRAGMA user_version = {SCHEMA_VERSION};"
                ))
                .map_err(fail("migrating the eval history to schema version 7")),
            5 => conn
                .execute_batch(&format!(
                    "{MIGRATION_V6} {MIGRATION_V7} PRAGMA user_version = {SCHEMA_VERSION};"
                ))
                .map_err(fail("migrating the eval history to schema version 7")),
            6 => conn
                .execute_batch(&format!(
                    "{MIGRATION_V7} PRAGMA user_version = {SCHEMA_VERSION};"
                ))
                .map_err(fail("migrating the eval history to schema version 7")),
            SCHEMA_VERSION => Ok(()),
            other => Err(HistoryError {
                action: "opening the eval history".to_owned(),
                reason: format!(
                    "its schema version is {other}; this templiqx reads version {SCHEMA_VERSION}"
                ),
            }),
        }
    }

    /// Stores a new run and returns its id.
    ///
    /// # Errors
    ///
    /// A [`HistoryError`] from SQLite.
    pub fn begin_run(&mut self, run: &RunInfo) -> Result<i64, HistoryError> {
        self.conn
            .execute(
                "INSERT INTO runs (started_at, provider, model, sampling, repeat, templiqx_version,
                   variants, currency, max_cost)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    run.started_at,
                    run.provider,
                    run.model,
                    run.sampling,
                    run.repeat,
                    env!("CARGO_PKG_VERSION"),
                    (!run.variants.is_empty())
                        .then(|| serde_json::to_string(&run.variants).unwrap_or_default()),
                    run.currency,
                    run.max_cost,
                ],
            )
            .map_err(fail("storing the run"))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Stores the fingerprints of a contract of run `run_id`.
    ///
    /// # Errors
    ///
    /// A [`HistoryError`] from SQLite.
    pub fn add_contract(
        &mut self,
        run_id: i64,
        contract: &str,
        contract_fingerprint: &str,
        interaction_fingerprint: &str,
    ) -> Result<(), HistoryError> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO run_contracts VALUES (?1, ?2, ?3, ?4)",
                params![
                    run_id,
                    contract,
                    contract_fingerprint,
                    interaction_fingerprint
                ],
            )
            .map_err(fail("storing the run's contracts"))?;
        Ok(())
    }

    /// Stores one execution of run `run_id` with its check verdicts;
    /// `output` is the schema-valid output's JSON text, kept for `--cache`.
    /// Inserts are grouped in transactions of at most [`BATCH`], committed
    /// at least every [`COMMIT_EVERY`];
    /// [`finish_run`](History::finish_run) or [`flush`](History::flush)
    /// commits the rest.
    ///
    /// # Errors
    ///
    /// A [`HistoryError`] from SQLite.
    pub fn insert(
        &mut self,
        run_id: i64,
        key: &ExecutionKey,
        record: &ExecutionRecord,
        output: Option<&str>,
    ) -> Result<(), HistoryError> {
        if self.pending == 0 {
            // IMMEDIATE: the write lock is taken (or waited for) now, so a
            // read inside the batch cannot leave it unable to write when
            // another run committed in between.
            self.conn
                .execute_batch("BEGIN IMMEDIATE")
                .map_err(fail("storing executions"))?;
            self.opened = std::time::Instant::now();
        }
        {
            let evidence = &record.evidence;
            // A schema-valid output is `output` (the cache reads it), as
            // redacted as everything else; another output is `response`.
            let (valid, response) = if record.schema_valid {
                (evidence.output.as_deref().or(output), None)
            } else {
                (None, evidence.output.as_deref())
            };
            let mut insert = self
                .conn
                .prepare_cached(
                    "INSERT INTO executions (run_id, contract, fixture, repeat, contract_fingerprint,
                   interaction_fingerprint, request_fingerprint, provider, model, sampling, code,
                   schema_valid, latency_ms, input_tokens, output_tokens, attempts,
                   output_fingerprint, output, cached, transport, response, message, help,
                   finish_reason, provider_message, queue_ms, variant, cost, recovered,
                   cached_input_tokens)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                   ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30)",
                )
                .map_err(fail("storing an execution"))?;
            insert
                .execute(params![
                    run_id,
                    record.contract,
                    record.fixture,
                    record.repeat,
                    key.contract_fingerprint,
                    key.interaction_fingerprint,
                    key.request_fingerprint,
                    key.provider,
                    key.model,
                    key.sampling,
                    record.code,
                    record.schema_valid,
                    record.latency_ms,
                    record.input_tokens.map(saturate),
                    record.output_tokens.map(saturate),
                    record.attempts,
                    record.output_fingerprint,
                    valid,
                    record.cached,
                    key.transport,
                    response,
                    evidence.message,
                    evidence.help,
                    evidence.finish_reason,
                    evidence.provider_message,
                    record.queue_ms,
                    record.variant,
                    record.cost,
                    record.recovered,
                    record.cached_input_tokens.map(saturate),
                ])
                .map_err(fail("storing an execution"))?;
            let execution = self.conn.last_insert_rowid();
            let mut check = self
                .conn
                .prepare_cached(
                    "INSERT INTO checks (execution_id, position, check_id, verdict, expression,
                       observed, error, judge)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )
                .map_err(fail("storing a check verdict"))?;
            for (position, c) in (0_i64..).zip(&record.checks) {
                let observed = (!c.observed.is_empty())
                    .then(|| serde_json::to_string(&c.observed).unwrap_or_default());
                let judge = c
                    .judge
                    .as_ref()
                    .map(|j| serde_json::to_string(j).unwrap_or_default());
                check
                    .execute(params![
                        execution,
                        position,
                        c.id,
                        c.verdict.as_str(),
                        (!c.expression.is_empty()).then_some(c.expression.as_str()),
                        observed,
                        c.error,
                        judge,
                    ])
                    .map_err(fail("storing a check verdict"))?;
            }
            let mut violation = self
                .conn
                .prepare_cached("INSERT INTO violations VALUES (?1, ?2, ?3, ?4, ?5)")
                .map_err(fail("storing a schema violation"))?;
            for (position, v) in (0_i64..).zip(&evidence.violations) {
                violation
                    .execute(params![
                        execution, position, v.pointer, v.keyword, v.message
                    ])
                    .map_err(fail("storing a schema violation"))?;
            }
        }
        self.pending += 1;
        if self.pending >= BATCH || self.opened.elapsed() >= COMMIT_EVERY {
            self.flush()?;
        }
        Ok(())
    }

    /// Commits the executions inserted since the last commit.
    ///
    /// # Errors
    ///
    /// A [`HistoryError`] from SQLite.
    pub fn flush(&mut self) -> Result<(), HistoryError> {
        if self.pending > 0 {
            self.conn
                .execute_batch("COMMIT")
                .map_err(fail("committing executions"))?;
            self.pending = 0;
        }
        Ok(())
    }

    /// Marks run `run_id` finished at `finished_at` (RFC 3339) with its
    /// statistics (`stats`, JSON text), after committing what is pending.
    ///
    /// # Errors
    ///
    /// A [`HistoryError`] from SQLite.
    pub fn finish_run(
        &mut self,
        run_id: i64,
        finished_at: &str,
        stats: &str,
    ) -> Result<(), HistoryError> {
        self.end_run(
            "UPDATE runs SET finished_at = ?2, stats = ?3 WHERE id = ?1",
            (run_id, finished_at, stats),
            "finishing the run",
        )
    }

    /// Marks run `run_id` interrupted at `interrupted_at` (RFC 3339) with
    /// the statistics of what ran (`stats`, JSON text), after committing
    /// what is pending. Its `finished_at` stays null: it is never a
    /// `--baseline last`.
    ///
    /// # Errors
    ///
    /// A [`HistoryError`] from SQLite.
    pub fn interrupt_run(
        &mut self,
        run_id: i64,
        interrupted_at: &str,
        stats: &str,
    ) -> Result<(), HistoryError> {
        self.end_run(
            "UPDATE runs SET interrupted_at = ?2, stats = ?3 WHERE id = ?1",
            (run_id, interrupted_at, stats),
            "marking the run interrupted",
        )
    }

    /// Commits what is pending, then `update` with `(run id, time, stats)`.
    fn end_run(
        &mut self,
        update: &str,
        values: (i64, &str, &str),
        action: &str,
    ) -> Result<(), HistoryError> {
        self.flush()?;
        self.conn
            .execute(update, params![values.0, values.1, values.2])
            .map_err(fail(action))?;
        Ok(())
    }

    /// The earlier execution that stands for repeat `repeat` of `key`
    /// under `--cache`: the latest one executed (not itself reused) of the
    /// same fixture (`contract`, `fixture`: two fixtures that send the same
    /// request are two experiments, each checked by its own `expect`) with
    /// the same key and repeat index whose outcome is an answer of the
    /// model — a schema-valid output, or `TQX_OUTPUT_SCHEMA`. Transport
    /// failures (rate limits, timeouts, …) are not answers and are never
    /// reused. Distinct repeat indexes map to distinct earlier executions,
    /// so caching never makes the repeats of one run the same answer.
    ///
    /// # Errors
    ///
    /// A [`HistoryError`] from SQLite.
    pub fn cached(
        &self,
        key: &ExecutionKey,
        contract: &str,
        fixture: &str,
        repeat: u32,
    ) -> Result<Option<Cached>, HistoryError> {
        let row = self
            .conn
            .prepare_cached(&format!(
                "SELECT {RECORD_COLUMNS}
                 FROM executions
                 WHERE request_fingerprint = ?1 AND interaction_fingerprint = ?2
                   AND provider = ?3 AND model = ?4 AND sampling = ?5 AND repeat = ?6
                   AND transport = ?7 AND contract = ?8 AND fixture = ?9 AND cached = 0
                   AND (code IS NULL OR code = 'TQX_OUTPUT_SCHEMA')
                 ORDER BY id DESC LIMIT 1"
            ))
            .map_err(fail("reading the cache"))?
            .query_row(
                params![
                    key.request_fingerprint,
                    key.interaction_fingerprint,
                    key.provider,
                    key.model,
                    key.sampling,
                    repeat,
                    key.transport,
                    contract,
                    fixture
                ],
                read_record,
            )
            .optional()
            .map_err(fail("reading the cache"))?;
        let Some((id, mut record, output)) = row else {
            return Ok(None);
        };
        record.repeat = repeat;
        record.cached = true;
        record.checks = self.checks_of(id)?;
        record.evidence.violations = self.violations_of(id)?;
        Ok(Some(Cached { record, output }))
    }

    fn checks_of(&self, execution: i64) -> Result<Vec<CheckVerdict>, HistoryError> {
        let mut select = self
            .conn
            .prepare_cached(
                "SELECT check_id, verdict, expression, observed, error, judge FROM checks
                 WHERE execution_id = ?1 ORDER BY position",
            )
            .map_err(fail("reading check verdicts"))?;
        let rows = select
            .query_map([execution], |r| {
                let verdict: String = r.get(1)?;
                let observed: Option<String> = r.get(3)?;
                Ok(CheckVerdict {
                    id: r.get(0)?,
                    verdict: match verdict.as_str() {
                        "pass" => Verdict::Pass,
                        "fail" => Verdict::Fail,
                        "not_run" => Verdict::NotRun,
                        _ => Verdict::Error,
                    },
                    expression: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                    observed: observed
                        .and_then(|o| serde_json::from_str(&o).ok())
                        .unwrap_or_default(),
                    error: r.get(4)?,
                    judge: r
                        .get::<_, Option<String>>(5)?
                        .and_then(|j| serde_json::from_str(&j).ok()),
                })
            })
            .map_err(fail("reading check verdicts"))?;
        rows.collect::<Result<_, _>>()
            .map_err(fail("reading check verdicts"))
    }

    fn violations_of(&self, execution: i64) -> Result<Vec<Violation>, HistoryError> {
        let mut select = self
            .conn
            .prepare_cached(
                "SELECT pointer, keyword, message FROM violations
                 WHERE execution_id = ?1 ORDER BY position",
            )
            .map_err(fail("reading schema violations"))?;
        let rows = select
            .query_map([execution], |r| {
                Ok(Violation {
                    pointer: r.get(0)?,
                    keyword: r.get(1)?,
                    message: r.get(2)?,
                })
            })
            .map_err(fail("reading schema violations"))?;
        rows.collect::<Result<_, _>>()
            .map_err(fail("reading schema violations"))
    }

    /// The run `reference` names, finished or not (an interrupted run is
    /// shown too): `last` (the latest run) or a run id. `Ok(None)` when
    /// there is no such run.
    ///
    /// # Errors
    ///
    /// A [`HistoryError`] from SQLite.
    pub fn run(&self, reference: &str) -> Result<Option<StoredRunInfo>, HistoryError> {
        let columns = "id, started_at, finished_at, provider, model, sampling, repeat, \
            interrupted_at, variants, currency, max_cost";
        let read = |r: &rusqlite::Row<'_>| -> rusqlite::Result<StoredRunInfo> {
            Ok(StoredRunInfo {
                run: RunInfo {
                    id: Some(r.get(0)?),
                    started_at: r.get(1)?,
                    provider: r.get(3)?,
                    model: r.get(4)?,
                    sampling: r.get(5)?,
                    repeat: r.get(6)?,
                    interrupted_at: r.get(7)?,
                    // Null before version 4, and for a run of one.
                    variants: r
                        .get::<_, Option<String>>(8)?
                        .and_then(|v| serde_json::from_str(&v).ok())
                        .unwrap_or_default(),
                    currency: r.get(9)?,
                    max_cost: r.get(10)?,
                },
                finished_at: r.get(2)?,
                interactions: Vec::new(),
            })
        };
        let found = if reference == "last" {
            self.conn
                .query_row(
                    &format!("SELECT {columns} FROM runs ORDER BY id DESC LIMIT 1"),
                    [],
                    read,
                )
                .optional()
        } else {
            let Ok(id) = reference.parse::<i64>() else {
                return Ok(None);
            };
            self.conn
                .query_row(
                    &format!("SELECT {columns} FROM runs WHERE id = ?1"),
                    [id],
                    read,
                )
                .optional()
        }
        .map_err(fail("reading the run"))?;
        let Some(mut found) = found else {
            return Ok(None);
        };
        let id = found.run.id.unwrap_or_default();
        let mut select = self
            .conn
            .prepare_cached(
                "SELECT contract, interaction_fingerprint FROM run_contracts
                 WHERE run_id = ?1 ORDER BY contract",
            )
            .map_err(fail("reading the run"))?;
        found.interactions = select
            .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(fail("reading the run"))?
            .collect::<Result<_, _>>()
            .map_err(fail("reading the run"))?;
        Ok(Some(found))
    }

    /// Calls `each` with every execution of run `run_id`, in the order
    /// they were stored, with its check verdicts and evidence (the
    /// schema-valid output as its evidence's output), one at a time: what
    /// `templiqx eval show` reads.
    ///
    /// # Errors
    ///
    /// A [`HistoryError`] from SQLite.
    pub fn executions(
        &self,
        run_id: i64,
        mut each: impl FnMut(ExecutionRecord),
    ) -> Result<(), HistoryError> {
        let mut select = self
            .conn
            .prepare(&format!(
                "SELECT {RECORD_COLUMNS} FROM executions WHERE run_id = ?1 ORDER BY id"
            ))
            .map_err(fail("reading the run's executions"))?;
        let rows = select
            .query_map([run_id], read_record)
            .map_err(fail("reading the run's executions"))?;
        for row in rows {
            let (id, mut record, output) = row.map_err(fail("reading the run's executions"))?;
            record.checks = self.checks_of(id)?;
            record.evidence.violations = self.violations_of(id)?;
            if record.schema_valid && record.evidence.output.is_none() {
                record.evidence.output = output;
            }
            each(record);
        }
        Ok(())
    }

    /// The finished run a `--baseline` reference names: `last` (the latest
    /// finished run other than `current` with the same provider and model,
    /// `like`) or a run id. `Ok(None)` when there is no such finished run.
    ///
    /// # Errors
    ///
    /// A [`HistoryError`] from SQLite.
    pub fn baseline(
        &self,
        reference: &str,
        current: Option<i64>,
        like: (&str, &str),
    ) -> Result<Option<StoredRun>, HistoryError> {
        let row = if reference == "last" {
            self.conn
                .query_row(
                    "SELECT id, started_at, stats FROM runs
                     WHERE finished_at IS NOT NULL AND stats IS NOT NULL AND id IS NOT ?1
                       AND provider = ?2 AND model = ?3
                     ORDER BY id DESC LIMIT 1",
                    params![current, like.0, like.1],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .optional()
        } else {
            let Ok(id) = reference.parse::<i64>() else {
                return Ok(None);
            };
            self.conn
                .query_row(
                    "SELECT id, started_at, stats FROM runs
                     WHERE finished_at IS NOT NULL AND stats IS NOT NULL AND id = ?1",
                    [id],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .optional()
        }
        .map_err(fail("reading the baseline run"))?;
        let Some((id, started_at, stats)) = row else {
            return Ok(None);
        };
        let mut select = self
            .conn
            .prepare_cached(
                "SELECT contract, interaction_fingerprint FROM run_contracts
                 WHERE run_id = ?1 ORDER BY contract",
            )
            .map_err(fail("reading the baseline run"))?;
        let interactions = select
            .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(fail("reading the baseline run"))?
            .collect::<Result<_, _>>()
            .map_err(fail("reading the baseline run"))?;
        Ok(Some(StoredRun {
            id,
            started_at,
            stats,
            interactions,
        }))
    }
}

impl Drop for History {
    fn drop(&mut self) {
        // What an interrupted run did stays in the history.
        let _ = self.flush();
    }
}

/// The columns [`read_record`] reads, in its order.
const RECORD_COLUMNS: &str = "id, contract, fixture, repeat, code, schema_valid, latency_ms, \
    input_tokens, output_tokens, attempts, output_fingerprint, output, cached, response, \
    message, help, finish_reason, provider_message, queue_ms, variant, cost, recovered, \
    cached_input_tokens";

/// An execution's row ([`RECORD_COLUMNS`]): its id, its record (no checks,
/// no violations yet; the schema-invalid output as its evidence's output)
/// and its schema-valid output.
fn read_record(r: &rusqlite::Row<'_>) -> rusqlite::Result<(i64, ExecutionRecord, Option<String>)> {
    Ok((
        r.get(0)?,
        ExecutionRecord {
            contract: r.get(1)?,
            fixture: r.get(2)?,
            repeat: r.get(3)?,
            code: r.get(4)?,
            schema_valid: r.get(5)?,
            checks: Vec::new(),
            latency_ms: r.get(6)?,
            // Null before version 3: nothing was known to have waited.
            queue_ms: r.get::<_, Option<f64>>(18)?.unwrap_or(0.0),
            input_tokens: r.get::<_, Option<i64>>(7)?.map(unsigned),
            output_tokens: r.get::<_, Option<i64>>(8)?.map(unsigned),
            // Null before version 7: cached tokens were not counted.
            cached_input_tokens: r.get::<_, Option<i64>>(22)?.map(unsigned),
            attempts: r.get(9)?,
            output_fingerprint: r.get(10)?,
            cached: r.get(12)?,
            // Null before version 4.
            variant: r.get(19)?,
            cost: r.get(20)?,
            // Null before version 5: no recovery.
            recovered: r.get::<_, Option<bool>>(21)?.unwrap_or(false),
            evidence: Evidence {
                output: r.get(13)?,
                message: r.get(14)?,
                help: r.get(15)?,
                finish_reason: r.get(16)?,
                provider_message: r.get(17)?,
                violations: Vec::new(),
            },
        },
        r.get(11)?,
    ))
}

/// `path` as the path of a SQLite `file:` URI: `%`, `?` and `#` (which
/// would end or escape the path) percent-encoded.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => out.push_str("%25"),
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out
}

/// `op` again while SQLite answers that the database is busy or locked, for
/// up to [`BUSY_TIMEOUT`], every few milliseconds.
fn until_not_busy<T>(mut op: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match op() {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            other => return other,
        }
    }
}

/// SQLite integers are signed 64-bit; token counts beyond `i64::MAX` are
/// stored as `i64::MAX`.
fn saturate(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn unsigned(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(request: &str) -> ExecutionKey {
        ExecutionKey {
            contract_fingerprint: "c".into(),
            interaction_fingerprint: "i".into(),
            request_fingerprint: request.into(),
            provider: "fake".into(),
            model: "fake".into(),
            sampling: "{}".into(),
            transport: "{}".into(),
        }
    }

    fn record(repeat: u32, code: Option<&str>, fp: &str) -> ExecutionRecord {
        ExecutionRecord {
            contract: "lease".into(),
            fixture: "fixed-term".into(),
            repeat,
            code: code.map(str::to_owned),
            schema_valid: code.is_none(),
            checks: vec![
                CheckVerdict::new("a", Verdict::Pass),
                CheckVerdict::new(
                    "b",
                    if code.is_none() {
                        Verdict::Fail
                    } else {
                        Verdict::NotRun
                    },
                ),
            ],
            latency_ms: 12.5,
            queue_ms: 0.0,
            input_tokens: Some(100),
            output_tokens: Some(20),
            cached_input_tokens: Some(64),
            attempts: 1,
            output_fingerprint: code.is_none().then(|| fp.to_owned()),
            cached: false,
            variant: None,
            cost: None,
            recovered: false,
            evidence: Evidence::default(),
        }
    }

    fn run() -> RunInfo {
        RunInfo {
            id: None,
            started_at: "2026-12-03T00:00:00Z".into(),
            provider: "fake".into(),
            model: "fake".into(),
            sampling: "{}".into(),
            repeat: 3,
            interrupted_at: None,
            variants: Vec::new(),
            currency: None,
            max_cost: None,
        }
    }

    #[test]
    fn the_cache_maps_each_repeat_to_its_own_earlier_answer_and_never_a_transport_failure() {
        let mut h = History::in_memory().unwrap();
        let id = h.begin_run(&run()).unwrap();
        h.insert(id, &key("r"), &record(0, None, "fp0"), Some("{\"x\":0}"))
            .unwrap();
        h.insert(id, &key("r"), &record(1, None, "fp1"), Some("{\"x\":1}"))
            .unwrap();
        h.insert(
            id,
            &key("r"),
            &record(2, Some("TQX_RUNTIME_TIMEOUT"), ""),
            None,
        )
        .unwrap();
        h.finish_run(id, "2026-12-03T00:00:01Z", "{}").unwrap();

        let zero = h
            .cached(&key("r"), "lease", "fixed-term", 0)
            .unwrap()
            .unwrap();
        let one = h
            .cached(&key("r"), "lease", "fixed-term", 1)
            .unwrap()
            .unwrap();
        assert_eq!(zero.output.as_deref(), Some("{\"x\":0}"));
        assert_eq!(one.output.as_deref(), Some("{\"x\":1}"));
        assert_eq!(one.record.output_fingerprint.as_deref(), Some("fp1"));
        assert_eq!(
            (one.record.input_tokens, one.record.cached_input_tokens),
            (Some(100), Some(64))
        );
        assert!(one.record.cached);
        assert_eq!(one.record.checks, record(1, None, "fp1").checks);
        // A timeout is not an answer; another request is not this one.
        assert_eq!(h.cached(&key("r"), "lease", "fixed-term", 2).unwrap(), None);
        assert_eq!(
            h.cached(&key("other"), "lease", "fixed-term", 0).unwrap(),
            None
        );
        // Another fixture sending the same request is another experiment.
        assert_eq!(h.cached(&key("r"), "lease", "periodic", 0).unwrap(), None);
        assert_eq!(h.cached(&key("r"), "other", "fixed-term", 0).unwrap(), None);
    }

    #[test]
    fn the_baseline_is_the_latest_finished_run_or_the_one_named() {
        let mut h = History::in_memory().unwrap();
        let fake = ("fake", "fake");
        assert_eq!(h.baseline("last", None, fake).unwrap(), None);
        let first = h.begin_run(&run()).unwrap();
        h.add_contract(first, "lease", "c1", "i1").unwrap();
        h.finish_run(first, "t", "{\"n\":1}").unwrap();
        // An interrupted run has statistics of what ran, but is no baseline.
        let interrupted = h.begin_run(&run()).unwrap();
        h.interrupt_run(interrupted, "t", "{\"n\":2}").unwrap();
        assert_eq!(
            h.baseline(&interrupted.to_string(), None, fake).unwrap(),
            None
        );
        let stored = h.run(&interrupted.to_string()).unwrap().unwrap();
        assert_eq!(stored.run.interrupted_at.as_deref(), Some("t"));
        assert_eq!(stored.finished_at, None);
        let unfinished = h.begin_run(&run()).unwrap();
        let last = h.baseline("last", Some(unfinished), fake).unwrap().unwrap();
        // Another model's runs are not this one's baseline.
        assert_eq!(h.baseline("last", None, ("openai", "gpt")).unwrap(), None);
        assert_eq!(last.id, first);
        assert_eq!(last.stats, "{\"n\":1}");
        assert_eq!(
            last.interactions,
            vec![("lease".to_owned(), "i1".to_owned())]
        );
        assert_eq!(
            h.baseline(&first.to_string(), None, fake)
                .unwrap()
                .unwrap()
                .id,
            first
        );
        assert_eq!(
            h.baseline(&unfinished.to_string(), None, fake).unwrap(),
            None
        );
        assert_eq!(h.baseline("nonsense", None, fake).unwrap(), None);
    }

    #[test]
    fn a_database_of_something_else_or_of_another_version_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let other = dir.path().join("other.sqlite");
        Connection::open(&other)
            .unwrap()
            .execute_batch("CREATE TABLE t (x)")
            .unwrap();
        let e = History::open(&other).unwrap_err();
        assert!(e.reason.contains("something else"), "{e}");
        let newer = dir.path().join("newer.sqlite");
        Connection::open(&newer)
            .unwrap()
            .execute_batch("PRAGMA user_version = 99")
            .unwrap();
        let e = History::open(&newer).unwrap_err();
        assert!(e.reason.contains("version is 99"), "{e}");
    }

    #[test]
    fn batches_are_committed_and_readable_by_another_connection() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/eval.sqlite");
        let mut h = History::open(&path).unwrap();
        let id = h.begin_run(&run()).unwrap();
        for i in 0..(BATCH as u32 + 3) {
            h.insert(id, &key("r"), &record(i, None, "fp"), Some("{}"))
                .unwrap();
        }
        let count = |p: &Path| -> i64 {
            Connection::open(p)
                .unwrap()
                .query_row("SELECT count(*) FROM executions", [], |r| r.get(0))
                .unwrap()
        };
        // One full batch is committed; the rest when the run finishes.
        assert_eq!(count(&path), BATCH as i64);
        h.finish_run(id, "t", "{}").unwrap();
        assert_eq!(count(&path), BATCH as i64 + 3);
        let checks: i64 = Connection::open(&path)
            .unwrap()
            .query_row(
                "SELECT count(*) FROM checks WHERE verdict = 'fail'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(checks, BATCH as i64 + 3);
    }
}
