//! `templiqx mcp`: Templiqx contracts as Model Context Protocol prompts,
//! and the compiler, renderer, fingerprints, format schema and diff as MCP
//! tools (`docs/mcp.md`).
//!
//! A [`Server`] serves the packages and contract files it is given (its
//! *served roots*) to one MCP client, on the official Rust SDK (`rmcp`):
//!
//! - **prompts**: every contract of the served packages, named by its id,
//!   with one argument per input and context field; `prompts/get` renders
//!   it as `templiqx render` does and returns the messages, with the
//!   fingerprints in the result's `_meta`; `completion/complete` offers a
//!   field's `enum` values and the values the eval fixtures give it;
//! - **resources**: the manifest and contract files of the served packages
//!   (`file://` URIs) and each served path's diagnostics
//!   (`templiqx://diagnostics/PATH`);
//! - **tools**: `check`, `render`, `fingerprint`, `schema`, `diff` and
//!   `eval` (on the fake provider, or on the real one the server was given,
//!   [`Options::with_provider`]), each with an input JSON Schema and
//!   structured output (`ok`, `diagnostics` and the tool's result).
//!
//! When a file the listings depend on changes, the client is sent
//! `notifications/prompts/list_changed` and
//! `notifications/resources/list_changed` ([`Options::watch`]).
//!
//! Every contract compiles through the one compile entry point,
//! [`templiqx_build::Compiler`] (`docs/decisions.md`, "One compile entry
//! point"), on every request: what is served is what is on disk. A path a
//! client names is confined to the served roots ([`Roots`]).
//!
//! The protocol revision negotiated is [`PROTOCOL_VERSION`] (MCP
//! 2025-11-25), or an older one a client asks for (2025-06-18, 2025-03-26,
//! 2024-11-05).
//!
//! ```no_run
//! use templiqx_mcp::{Options, run_stdio};
//!
//! let options = Options::new(std::env::current_dir()?, vec!["examples/crm3".into()]);
//! run_stdio(options)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod arguments;
mod catalogue;
mod eval;
mod prompts;
mod provider;
mod resources;
mod roots;
mod schemas;
mod tools;
mod watch;

pub use provider::{EvalProvider, RunFuture};
pub use roots::Roots;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult,
    GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use templiqx_build::Target;
use templiqx_contracts::{CapabilityProfile, Diagnostic};

/// The newest MCP revision the server implements, the one it answers an
/// `initialize` with unless the client asks for an older one it supports
/// ([`SUPPORTED_VERSIONS`]).
pub const PROTOCOL_VERSION: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// Every MCP revision the server negotiates, oldest first. Revisions after
/// [`PROTOCOL_VERSION`] (without the `initialize` handshake) are not
/// implemented: a client asking for one is answered with
/// [`PROTOCOL_VERSION`].
pub const SUPPORTED_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2024_11_05,
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
];

/// The largest JSON-RPC message the server reads (64 MiB): room for the
/// two 16 MiB texts of a `diff`, escaped. A text argument over 16 MiB in a
/// message under this bound is refused with a `TQX_IO` diagnostic; a
/// larger message is dropped by the SDK's transport, unanswered.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// The transport the server reads and writes, over any byte streams:
/// newline-delimited JSON-RPC, messages bounded by [`MAX_MESSAGE_BYTES`].
pub fn transport<R, W>(read: R, write: W) -> AsyncRwTransport<RoleServer, R, W>
where
    R: tokio::io::AsyncRead + Send + Unpin,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    AsyncRwTransport::new_server(read, write).with_max_line_length(MAX_MESSAGE_BYTES)
}

/// What a [`Server`] serves.
#[derive(Clone, Debug)]
pub struct Options {
    /// The directory relative paths are taken from, and that diagnostics
    /// name files relative to (the working directory of `templiqx mcp`).
    pub base: PathBuf,
    /// The package directories and contract files served (relative to
    /// `base`, or absolute). Empty means `base` itself.
    pub paths: Vec<PathBuf>,
    /// The target capability profile contracts compile for; `None`: each
    /// contract compiles for the capabilities it requires
    /// ([`Target::Required`]). A tool call's own `target` argument wins.
    pub target: Option<CapabilityProfile>,
    /// How often the files the served paths compiled from are looked at,
    /// for `list_changed` notifications (default: every second); `None`:
    /// never, and no notification is sent.
    pub watch: Option<Duration>,
    /// The real provider `eval` may run on when a call asks for it by
    /// name (`templiqx mcp --allow-providers`); `None`: `fake` only, and a
    /// call asking for another provider is a tool error.
    pub provider: Option<Arc<dyn EvalProvider>>,
}

impl Options {
    /// Serves `paths` (relative to `base`), each contract for the
    /// capabilities it requires.
    pub fn new(base: impl Into<PathBuf>, paths: Vec<PathBuf>) -> Options {
        Options {
            base: base.into(),
            paths,
            target: None,
            watch: Some(Duration::from_secs(1)),
            provider: None,
        }
    }

    /// Lets `eval` run on `provider` when a call asks for it (its calls
    /// reach the model, and may cost money).
    pub fn with_provider(mut self, provider: impl EvalProvider + 'static) -> Options {
        self.provider = Some(Arc::new(provider));
        self
    }

    /// Compiles every contract for `target`.
    pub fn with_target(mut self, target: CapabilityProfile) -> Options {
        self.target = Some(target);
        self
    }

    /// Looks for changes every `interval` (`None`: never).
    pub fn with_watch(mut self, interval: Option<Duration>) -> Options {
        self.watch = interval;
        self
    }
}

/// The MCP server of `templiqx mcp`: an [`rmcp::ServerHandler`] serving the
/// contracts of [`Options::paths`] as prompts and the Templiqx tools
/// (`check`, `render`, `fingerprint`, `schema`, `diff`, `eval`).
///
/// Serve it on any `rmcp` transport (`server.serve(transport(read,
/// write))` from [`rmcp::ServiceExt`]); [`run_stdio`] serves standard
/// input and output.
#[derive(Clone, Debug)]
pub struct Server {
    roots: Roots,
    target: Option<CapabilityProfile>,
    watch: Option<Duration>,
    provider: Option<Arc<dyn EvalProvider>>,
}

impl Server {
    /// A server for `options`.
    ///
    /// # Errors
    /// A `TQX_IO` diagnostic when a served path does not exist or is
    /// neither a directory nor a regular file.
    pub fn new(options: Options) -> Result<Server, Diagnostic> {
        Ok(Server {
            roots: Roots::new(&options.base, &options.paths)?,
            target: options.target,
            watch: options.watch,
            provider: options.provider,
        })
    }

    /// The real provider `eval` may run on, if the server was given one.
    pub(crate) fn provider(&self) -> Option<&Arc<dyn EvalProvider>> {
        self.provider.as_ref()
    }

    /// The served roots.
    pub fn roots(&self) -> &Roots {
        &self.roots
    }

    /// The target of a call: its own `target` argument, else the server's,
    /// else each contract's required capabilities.
    pub(crate) fn target(&self, requested: Option<&[String]>) -> Target {
        match (requested, &self.target) {
            (Some(t), _) => Target::Profile(CapabilityProfile::new(t.iter().map(|c| c.trim()))),
            (None, Some(profile)) => Target::Profile(profile.clone()),
            (None, None) => Target::Required,
        }
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_completions()
            .enable_prompts()
            .enable_prompts_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_tools()
            .build();
        ServerConfig::new(capabilities)
            .with_protocol_version(PROTOCOL_VERSION)
            .with_server_info(
                Implementation::new("templiqx", env!("CARGO_PKG_VERSION"))
                    .with_title("Templiqx contracts"),
            )
            .with_instructions(
                "Each prompt is a Templiqx contract: its arguments are the contract's inputs and \
                 context fields (JSON text unless the field is a string). Tools: `check` compiles \
                 a package, a contract file or unsaved contract text and returns the compiler's \
                 diagnostics; `render` renders a contract with inputs and context; `fingerprint` \
                 fingerprints a JSON value; `schema` returns the contract format's JSON Schema; \
                 `diff` says whether a change to a contract breaks callers or consumers and \
                 whether its version bump is enough; `eval` runs the eval fixtures, each \
                 answered with its own fake_output unless the server allows a real provider, \
                 and returns the pass rates. Resources: \
                 the manifests and contract files (file:// URIs) and each served path's \
                 diagnostics (templiqx://diagnostics/PATH).",
            )
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(SUPPORTED_VERSIONS)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if let Some(interval) = self.watch {
            tokio::spawn(watch::watch(self.clone(), context.peer, interval));
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(prompts::list(self)))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        prompts::get(self, &request.name, request.arguments.as_ref()).map(Into::into)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        Ok(prompts::complete(self, &request))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(resources::list(self)))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        resources::read(self, &request.uri).map(Into::into)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::list(self)))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        tools::call(self, &request.name, request.arguments.unwrap_or_default())
            .await
            .map(Into::into)
    }
}

/// Why [`run_stdio`] stopped.
#[derive(Debug)]
pub enum Error {
    /// The options are unusable (`TQX_IO`: a served path that does not
    /// exist).
    Options(Diagnostic),
    /// The session could not start or ended with a transport failure.
    Session(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Options(d) => {
                write!(f, "error[{}]: {}", d.code, d.message)?;
                match &d.help {
                    Some(help) => write!(f, "\n  = help: {help}"),
                    None => Ok(()),
                }
            }
            Error::Session(e) => write!(f, "the MCP session failed: {e}"),
        }
    }
}

impl std::error::Error for Error {}

/// Serves one MCP client on standard input and output until it closes
/// them, on a single-threaded Tokio runtime of its own.
///
/// # Errors
/// [`Error::Options`] when a served path does not exist;
/// [`Error::Session`] when the runtime cannot start, the client's
/// `initialize` fails, or the transport fails.
pub fn run_stdio(options: Options) -> Result<(), Error> {
    let server = Server::new(options).map_err(Error::Options)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Session(e.to_string()))?;
    runtime.block_on(async move {
        let running = server
            .serve(transport(tokio::io::stdin(), tokio::io::stdout()))
            .await
            .map_err(|e| Error::Session(e.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|e| Error::Session(e.to_string()))?;
        Ok(())
    })
}
