//! `templiqx lsp` with a real client: Neovim's built-in LSP client
//! (`docs/editors.md`, "Neovim"; `docs/cli.md`, "lsp").
//!
//! The test copies the CRM3 example to a temporary directory and starts
//! `nvim --headless --clean` on a Lua script it writes there. With `HOME`
//! and every XDG directory inside the temporary directory, nothing of the
//! machine's Neovim configuration takes part. The script attaches the
//! server (`templiqx lsp`, the target profile given as the initialization
//! option `target`) to `contracts/lease-term-extraction.yaml`, misspells the
//! reference `inputs.clause_id` as `inputs.clasue_id` in the buffer, waits
//! for the diagnostics of that buffer version, asks for the code actions on
//! the `TQX_REF_UNKNOWN` it got, applies the preferred quick fix's
//! workspace edit the way Neovim applies one, and waits again. It writes
//! what Neovim saw to a JSON file; the assertions are here.
//!
//! Supported: Neovim 0.7 (Debian 12's `neovim` package: `vim.lsp.start_client`
//! and `vim.lsp.buf_attach_client`) and later (`vim.lsp.start`, 0.8+).
//! Without `nvim` the test writes one `skipped in …` line and passes, unless
//! `CI` is set: then it fails (`.ci/run` installs the package).

use serde_json::{Value, json};
use std::fmt::Display;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use templiqx_conformance_suites::{copy_tree, skip_unless_ci};

/// How long the script waits for each publication of diagnostics and for
/// the code-action response, in milliseconds.
const WAIT_MS: u64 = 30_000;

/// How long the whole Neovim run may take: its waits, the server's start
/// and shutdown, and Neovim's own.
const RUN_TIMEOUT: Duration = Duration::from_secs(180);

/// The oldest Neovim (major, minor) whose Lua LSP client the script knows:
/// 0.7 has `vim.lsp.start_client`, `vim.diagnostic`, `client.server_capabilities`
/// and `vim.lsp.util.apply_workspace_edit(edit, offset_encoding)`.
const OLDEST: (u64, u64) = (0, 7);

/// The reference the test misspells. Its first occurrence in the contract
/// is in the user message (`expression: { kind: ref, path: … }`).
const REFERENCE: &str = "inputs.clause_id";
/// The part of [`REFERENCE`] the edit replaces, and what with: two letters
/// swapped, close enough for the compiler to suggest [`REFERENCE`].
const FIELD: &str = "clause_id";
const MISSPELT: &str = "clasue_id";

/// How to get Neovim, for the skip line and the CI failure.
const HOW: &str = "install Debian's `neovim` package (`apt-get install neovim`)";

/// The Neovim side. It reads its parameters from the JSON file named by
/// `TEMPLIQX_NEOVIM_PARAMS` and writes what it saw to `params.results`;
/// an error is caught and written there too, so the Rust side can say
/// which step failed.
const CLIENT: &str = r#"
-- The Neovim side of cli/tests/it/neovim.rs (Neovim 0.7 and later).
vim.o.swapfile = false
-- Filetype detection, as in a user's session: the buffer's filetype is the
-- languageId the client sends (`yaml`).
vim.cmd('filetype on')
local params = vim.fn.json_decode(table.concat(vim.fn.readfile(vim.env.TEMPLIQX_NEOVIM_PARAMS), '\n'))
local log = require('vim.lsp.log')
local version = vim.version()
local results = {
  nvim = string.format('%d.%d.%d', version.major, version.minor, version.patch),
  log = log.get_filename(),
  publishes = {},
}

local function line_text(buf)
  return vim.api.nvim_buf_get_lines(buf, params.line, params.line + 1, true)[1]
end

-- What Neovim holds for the buffer after its client converted the
-- server's diagnostics (what the user sees).
local function shown(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code
    if code == nil and d.user_data and d.user_data.lsp then
      code = d.user_data.lsp.code
    end
    out[#out + 1] = {
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      code = code, message = d.message, severity = d.severity,
    }
  end
  return out
end

local function run(state)
  log.set_level('debug')
  vim.cmd('edit ' .. vim.fn.fnameescape(params.file))
  local buf = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(buf)
  results.filetype = vim.bo[buf].filetype
  -- The last publishDiagnostics for this buffer, as the server sent it.
  local latest
  local config = {
    name = 'templiqx',
    cmd = params.cmd,
    root_dir = params.root,
    init_options = { target = { 'structured_output' } },
    handlers = {
      ['textDocument/publishDiagnostics'] = function(err, result, ctx, handler_config)
        if result then
          table.insert(results.publishes, {
            uri = result.uri, version = result.version, count = #result.diagnostics,
          })
          if result.uri == uri then
            latest = result
          end
        end
        return vim.lsp.handlers['textDocument/publishDiagnostics'](err, result, ctx, handler_config)
      end,
    },
    on_exit = function(code, signal)
      results.server_exit = { code = code, signal = signal }
    end,
  }
  local client_id
  if vim.lsp.start then
    -- 0.8 and later: starts the client and attaches the current buffer.
    client_id = vim.lsp.start(config)
  else
    client_id = vim.lsp.start_client(config)
    if client_id then
      vim.lsp.buf_attach_client(buf, client_id)
    end
  end
  if not client_id then
    error('the LSP client did not start')
  end
  state.client_id = client_id

  -- The version of the buffer the client last sent (didOpen, didChange).
  local function sent_version()
    return vim.lsp.util.buf_versions[buf] or vim.api.nvim_buf_get_changedtick(buf)
  end
  -- Waits for the diagnostics of the buffer's current version.
  local function settle(step)
    local ok = vim.wait(params.wait_ms, function()
      return latest ~= nil and latest.version == sent_version()
    end, 10)
    if not ok then
      error(string.format('%s: no diagnostics for version %s of the buffer within %d ms',
        step, tostring(sent_version()), params.wait_ms))
    end
    return latest.diagnostics
  end

  settle('on open')
  results.opened = { diagnostics = shown(buf), line = line_text(buf) }

  vim.api.nvim_buf_set_text(buf, params.line, params.start_col, params.line, params.end_col,
    { params.misspelt })
  local published = settle('after the edit')
  results.edited = { diagnostics = shown(buf), line = line_text(buf) }

  local target
  for _, d in ipairs(published) do
    if d.code == 'TQX_REF_UNKNOWN' and d.range.start.line == params.line then
      target = d
    end
  end
  if not target then
    return
  end
  local client = vim.lsp.get_client_by_id(client_id)
  local provider = client.server_capabilities.codeActionProvider
  results.code_action_provider = provider ~= nil and provider ~= false
  if not results.code_action_provider then
    return
  end
  local responses, err = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', {
    textDocument = { uri = uri },
    range = target.range,
    context = { diagnostics = { target } },
  }, params.wait_ms)
  if not responses then
    error('textDocument/codeAction: ' .. tostring(err))
  end
  results.actions = {}
  local chosen
  for _, response in pairs(responses) do
    if response.err or response.error then
      error('textDocument/codeAction failed: ' .. vim.inspect(response.err or response.error))
    end
    for _, action in ipairs(response.result or {}) do
      table.insert(results.actions, {
        title = action.title, kind = action.kind, isPreferred = action.isPreferred,
        edit = action.edit ~= nil,
      })
      if not chosen and action.kind == 'quickfix' and action.isPreferred == true and action.edit then
        chosen = action
      end
    end
  end
  if not chosen then
    return
  end
  results.chosen = chosen.title
  vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding)
  settle('after the quick fix')
  results.fixed = { diagnostics = shown(buf), line = line_text(buf) }
end

local state = {}
local ok, err = xpcall(function() run(state) end, debug.traceback)
if not ok then
  results.error = tostring(err)
end
if state.client_id then
  -- shutdown, then exit: the server's exit status is the client's on_exit.
  vim.lsp.stop_client(state.client_id)
  vim.wait(params.wait_ms, function() return results.server_exit ~= nil end, 10)
end
local file = assert(io.open(params.results, 'w'))
file:write(vim.fn.json_encode(results))
file:close()
vim.cmd('qa!')
"#;

#[test]
fn neovim_shows_an_unknown_reference_and_applies_its_quick_fix() {
    let Some(nvim) = neovim() else { return };
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let root = dir.join("crm3");
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/crm3"),
        &root,
    );
    let contract = root.join("contracts/lease-term-extraction.yaml");
    let text = std::fs::read_to_string(&contract).unwrap();
    let needle = format!("path: {REFERENCE} }}");
    let (line, original) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(&needle))
        .unwrap_or_else(|| panic!("{} has no `{needle}`", contract.display()));
    let reference_col = original.find(REFERENCE).unwrap();
    let start_col = reference_col + "inputs.".len();
    let end_col = start_col + FIELD.len();
    let misspelt_line = format!(
        "{}{MISSPELT}{}",
        &original[..start_col],
        &original[end_col..]
    );

    let results = dir.join("results.json");
    let params = dir.join("params.json");
    std::fs::write(
        &params,
        json!({
            "file": utf8(&contract),
            "root": utf8(&root),
            "cmd": [env!("CARGO_BIN_EXE_templiqx"), "lsp"],
            "line": line,
            "start_col": start_col,
            "end_col": end_col,
            "misspelt": MISSPELT,
            "results": utf8(&results),
            "wait_ms": WAIT_MS,
        })
        .to_string(),
    )
    .unwrap();
    let init = dir.join("init.lua");
    std::fs::write(&init, CLIENT).unwrap();

    let run = Run::new(&nvim, &dir, &init, &params, &results);
    let results = &run.results;
    if let Some(error) = results.get("error").and_then(Value::as_str) {
        run.fail(format_args!("the Neovim script failed: {error}"));
    }

    run.check_eq(
        &results["filetype"],
        &json!("yaml"),
        "the contract's filetype (the languageId Neovim sends)",
    );
    // On open: the example is clean under `structured_output`.
    let opened = run.step("opened");
    if !diagnostics(opened).is_empty() {
        run.fail("the unedited CRM3 contract has diagnostics in Neovim");
    }

    // After the edit: Neovim holds one TQX_REF_UNKNOWN, on the edited line,
    // over the whole reference.
    let edited = run.step("edited");
    run.check_eq(&edited["line"], &json!(misspelt_line), "the edited line");
    let shown = diagnostics(edited);
    let unknown: Vec<&Value> = shown
        .iter()
        .filter(|d| d["code"] == "TQX_REF_UNKNOWN")
        .collect();
    if shown.len() != 1 || unknown.len() != 1 {
        run.fail(format_args!(
            "after misspelling `{REFERENCE}` on line {line} (0-based), Neovim should hold \
             exactly one TQX_REF_UNKNOWN; it holds {:#}",
            edited["diagnostics"]
        ));
    }
    let diagnostic = unknown[0];
    let misspelt_reference = format!("inputs.{MISSPELT}");
    run.check_eq(
        &json!([
            &diagnostic["lnum"],
            &diagnostic["col"],
            &diagnostic["end_lnum"],
            &diagnostic["end_col"]
        ]),
        &json!([
            line,
            reference_col,
            line,
            reference_col + misspelt_reference.len()
        ]),
        "the TQX_REF_UNKNOWN's range (line, column, end line, end column; 0-based bytes)",
    );
    let message = diagnostic["message"].as_str().unwrap_or_default();
    if !message.contains(&format!("`{MISSPELT}`")) || !message.contains(&format!("`{REFERENCE}`")) {
        run.fail(format_args!(
            "the TQX_REF_UNKNOWN's message should name `{MISSPELT}` and suggest \
             `{REFERENCE}`: {message:?}"
        ));
    }

    // The quick fix: the preferred `quickfix` action with a workspace edit.
    if results["code_action_provider"] != true {
        run.fail("the server does not advertise `codeActionProvider`: no quick fix to apply");
    }
    let Some(chosen) = results.get("chosen") else {
        run.fail(format_args!(
            "no code action of kind `quickfix` with `isPreferred: true` and an `edit` among {:#}",
            results["actions"]
        ));
    };
    let fixed = run.step("fixed");
    run.check_eq(
        &fixed["line"],
        &json!(original),
        &format!("the line after applying {chosen}"),
    );
    if !diagnostics(fixed).is_empty() {
        run.fail(format_args!(
            "after applying {chosen}, Neovim still holds diagnostics: {:#}",
            fixed["diagnostics"]
        ));
    }
    run.check_eq(
        &results["server_exit"]["code"],
        &json!(0),
        "the server's exit status after shutdown and exit",
    );
}

/// `nvim --version`'s first line (`NVIM v0.7.2`) when Neovim is on `PATH`
/// and at least [`OLDEST`]; otherwise `None`, after [`skip_unless_ci`]
/// wrote its line (or failed the test under CI).
fn neovim() -> Option<String> {
    let output = match Command::new("nvim").arg("--version").output() {
        Ok(output) if output.status.success() => output,
        Ok(output) => {
            skip_unless_ci(&format!("`nvim --version` failed ({})", output.status), HOW);
            return None;
        }
        Err(e) => {
            skip_unless_ci(&format!("nvim not found ({e})"), HOW);
            return None;
        }
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let first = stdout.lines().next().unwrap_or_default().to_owned();
    let version = first.strip_prefix("NVIM v").and_then(|v| {
        let mut parts = v.split(['.', '-']).map(|p| p.parse::<u64>().ok());
        Some((parts.next()??, parts.next()??))
    });
    match version {
        Some(version) if version >= OLDEST => Some(first),
        _ => {
            skip_unless_ci(
                &format!(
                    "`nvim --version` says {first:?}; the test needs Neovim {}.{} or later",
                    OLDEST.0, OLDEST.1
                ),
                HOW,
            );
            None
        }
    }
}

fn utf8(path: &Path) -> &str {
    path.to_str()
        .unwrap_or_else(|| panic!("{} is not UTF-8", path.display()))
}

/// The diagnostics of a step, `[]` when absent (Neovim writes an empty
/// Lua table as `[]`).
fn diagnostics(step: &Value) -> Vec<Value> {
    step["diagnostics"].as_array().cloned().unwrap_or_default()
}

/// One Neovim run and what it left: the script's results, Neovim's output
/// and the LSP client's log (which holds the server's standard error).
struct Run {
    nvim: String,
    results: Value,
    stdout: String,
    stderr: String,
    log: String,
}

impl Run {
    /// Runs `nvim --headless --clean -u init` with `HOME` and the XDG
    /// directories below `dir`, waits at most [`RUN_TIMEOUT`], and reads the
    /// results. Fails the test (with the output) when Neovim does not end
    /// in time or leaves no results.
    fn new(nvim: &str, dir: &Path, init: &Path, params: &Path, results: &Path) -> Run {
        let mut command = Command::new("nvim");
        command
            .args(["--headless", "--clean", "-u"])
            .arg(init)
            .current_dir(dir)
            .env("TEMPLIQX_NEOVIM_PARAMS", params)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(dir.join("nvim.stdout")).unwrap())
            .stderr(std::fs::File::create(dir.join("nvim.stderr")).unwrap());
        for (var, sub) in [
            ("HOME", "home"),
            ("XDG_CONFIG_HOME", "xdg/config"),
            ("XDG_CONFIG_DIRS", "xdg/config-dirs"),
            ("XDG_DATA_HOME", "xdg/data"),
            ("XDG_DATA_DIRS", "xdg/data-dirs"),
            ("XDG_STATE_HOME", "xdg/state"),
            ("XDG_CACHE_HOME", "xdg/cache"),
            ("XDG_RUNTIME_DIR", "xdg/run"),
        ] {
            let path = dir.join(sub);
            std::fs::create_dir_all(&path).unwrap();
            command.env(var, path);
        }
        for var in [
            "VIMINIT",
            "MYVIMRC",
            "NVIM_APPNAME",
            "NVIM_LOG_FILE",
            "NVIM",
            "NVIM_LISTEN_ADDRESS",
        ] {
            command.env_remove(var);
        }
        let mut child = command.spawn().unwrap();
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if started.elapsed() > RUN_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_default();
        let results_text = read(results);
        let results: Value = serde_json::from_str(&results_text).unwrap_or(Value::Null);
        let log = results["log"]
            .as_str()
            .map(|p| read(Path::new(p)))
            .unwrap_or_default();
        let run = Run {
            nvim: nvim.to_owned(),
            results,
            stdout: read(&dir.join("nvim.stdout")),
            stderr: read(&dir.join("nvim.stderr")),
            log,
        };
        match status {
            None => run.fail(format_args!(
                "Neovim did not end within {}s",
                RUN_TIMEOUT.as_secs()
            )),
            Some(status) if run.results.is_null() => run.fail(format_args!(
                "Neovim ended ({status}) without writing its results: {results_text:?}"
            )),
            Some(_) => run,
        }
    }

    /// The object the script wrote for `step`; fails the test when the
    /// script did not get that far.
    fn step(&self, step: &str) -> &Value {
        match self.results.get(step) {
            Some(value) if value.is_object() => value,
            _ => self.fail(format_args!("the Neovim script wrote no `{step}` step")),
        }
    }

    fn check_eq(&self, actual: &Value, expected: &Value, what: &str) {
        if actual != expected {
            self.fail(format_args!(
                "{what}: expected {expected}, Neovim has {actual}"
            ));
        }
    }

    /// Fails the test with `message`, the script's results, Neovim's output
    /// and the end of the LSP log.
    fn fail(&self, message: impl Display) -> ! {
        const LOG_TAIL: usize = 20_000;
        let log = match self.log.len().checked_sub(LOG_TAIL) {
            Some(start) => {
                let start = (start..self.log.len())
                    .find(|&i| self.log.is_char_boundary(i))
                    .unwrap_or(start);
                format!("[… {start} bytes before]\n{}", &self.log[start..])
            }
            None => self.log.clone(),
        };
        panic!(
            "{message}\n\n{}\n--- results ---\n{:#}\n--- nvim stdout ---\n{}\n\
             --- nvim stderr ---\n{}\n--- LSP log ---\n{log}",
            self.nvim, self.results, self.stdout, self.stderr
        );
    }
}
