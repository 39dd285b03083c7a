#!/usr/bin/env python3
"""Build cost at scale: times host crates of N contracts against askama.

Documented in docs/benchmarks.md ("Build cost at scale"). Python 3 standard
library only; it is not part of the cargo workspace, so CI never runs it.

For N contracts — copies of one contract with ids d001..dNNN, of one of two
shapes (--shape):

  bench   the bench package's drafting contract
          (bench/contracts/contracts/drafting.yaml; askama prompt
          bench/templates/drafting_user.txt)
  corpus  the corpus drafting contract
          (examples/crm3/contracts/lease-summary-drafting.yaml: a component,
          an included partial, evals, an enum in an array of evidence objects
          in the inputs, an optional context field, a nested output object;
          askama prompt bench/templates/lease_summary_user.txt)

— it writes these host crates under a scratch directory outside the
repository:

  file       N `include_contract!("contracts/dNNN.yaml", ...)` calls
  package    one package of the N contracts and N
             `include_contract!(package = "pkg", contract = "dNNN", ...)` calls
  buildrs    a `build.rs` `Builder` over the same package
  askama     N `#[derive(Template)]` structs, each over its own copy of the
             shape's askama prompt (the same user prompt)
  askama+serde
             the askama host plus, per contract, a module of hand-written
             serde types of the contract's inputs, context and output, as a
             careful user writes them: `#[derive(Serialize, Deserialize)]`,
             a struct per object with properties (nested objects nested
             structs), `Vec` for arrays, `Option` with
             `#[serde(default, skip_serializing_if = "Option::is_none")]` for
             fields that are not required, `deny_unknown_fields` where
             `additionalProperties: false`, an enum for a string `enum`
  askama+serde+schemars
             the same with `#[derive(schemars::JsonSchema)]` on every type

The corpus contract includes `partials/grounding-rules.yaml`
(examples/crm3/partials): the script copies that partial next to the
contracts (`contracts/partials/` for the file host, which has no package
and so includes from the contract's own directory; `pkg/partials/` for the
package and `build.rs` hosts), so every host compiles the contract as
written.

Each host depends on the worktree's crates by path (askama, serde and
schemars at the versions of the worktree's Cargo.lock), gets a copy of its
Cargo.lock and builds `--offline` into one target directory under the
scratch directory (never the workspace's). Per profile (debug; release too
with --release) it first builds every host once, untimed, so that the
dependencies are built (--no-warm-up skips this when an earlier run with
the same --scratch built them: the hosts' dependencies do not depend on N);
then, per host, it times with the wall clock:

  clean    `cargo clean -p <host>` and `cargo build` of that host alone
  rebuild  `touch` of one contract (askama hosts: one template) and
           `cargo build`

and checks from cargo's output that the host was recompiled each time and
that nothing else was (so a dependency built inside a timed step fails the
run instead of inflating it).
It prints one table (seconds, and each time as a ratio to the askama,
askama+serde and askama+serde+schemars hosts of the same run and profile)
with the generated lines per contract, and the 1-minute load average
before and after every timed step.

Generated lines per contract: for the macro hosts, the module the macro
expands for d001, produced by a small helper crate that calls the same
library path as `include_contract!` (`Loader::compile_file` or
`Loader::compile_package_contract`, then `codegen::generate` with the macro's
options) and formats it as `build.rs` output is formatted
(`codegen::format_file`, header line excluded); for `build.rs`, the lines
of the generated `templiqx_contracts.rs` (header excluded) divided by N.
The askama hosts' generated code is not counted ("-").

Usage: python3 bench/scale/scale.py [--n 100] [--shape bench|corpus]
           [--hosts file,askama+serde,...] [--release]
           [--scratch $TMPDIR/templiqx-scale] [--jobs 2] [--repeat 1]
           [--no-warm-up]

It replaces <scratch>/<shape>-n<N> on every run and keeps <scratch>/target,
so a second run reuses the built dependencies.
"""

import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TARGET = '["structured_output"]'
HOSTS = ["file", "package", "buildrs", "askama", "askama_serde", "askama_serde_schemars"]
# Row labels; docs/benchmarks.md ("Build cost at scale") describes each host.
HOST_LABEL = {
    "file": "file",
    "package": "package",
    "buildrs": "`build.rs`",
    "askama": "askama",
    "askama_serde": "askama+serde",
    "askama_serde_schemars": "askama+serde+schemars",
}
# The hosts the ratio columns divide by, in column order.
BASELINES = ["askama", "askama_serde", "askama_serde_schemars"]
HEADER = "// @generated by templiqx-build"


class Shape:
    """One contract shape: the contract copied N times, the id line it
    replaces, the partials it includes (paths relative to its include root),
    the askama prompt, and the hand-written Rust the askama hosts need."""

    def __init__(self, contract, original_id, partials, template, askama_types,
                 askama_fields, serde_types):
        self.contract = contract
        self.original_id = original_id
        self.partials = partials
        self.template = template
        # Types the askama template structs borrow (shared by all N).
        self.askama_types = askama_types
        # The fields of each template struct.
        self.askama_fields = askama_fields
        # The per-contract serde types (a module body); `{derive}` is the
        # derive list.
        self.serde_types = serde_types


# The evidence entry both shapes borrow in their askama template structs.
ASKAMA_EVIDENCE = """\
/// One evidence entry, fields in canonical order.
#[derive(Debug, serde::Serialize)]
pub struct Evidence {
    /// `document_id`
    pub document_id: String,
    /// `end_offset`
    pub end_offset: i64,
    /// `field`
    pub field: String,
    /// `fragment_id`
    pub fragment_id: String,
    /// `quote_sha256`
    pub quote_sha256: String,
    /// `start_offset`
    pub start_offset: i64,
}
"""


def serde_evidence_item(field_type):
    """The hand-written type of one element of both shapes' `evidence`
    arrays (its `field` a `String` or an enum); `{derive}` stays a
    placeholder."""
    return (
        "    /// One element of `evidence`.\n"
        "    #[derive({derive})]\n"
        "    #[serde(deny_unknown_fields)]\n"
        "    pub struct EvidenceItem {\n"
        "        /// `field`\n"
        f"        pub field: {field_type},\n"
        "        /// `document_id`\n        pub document_id: String,\n"
        "        /// `fragment_id`\n        pub fragment_id: String,\n"
        "        /// `start_offset`\n        pub start_offset: i64,\n"
        "        /// `end_offset`\n        pub end_offset: i64,\n"
        "        /// `quote_sha256`\n        pub quote_sha256: String,\n"
        "    }\n"
    )


BENCH_ASKAMA_TYPES = """\
/// The drafting facts, fields in canonical order.
#[derive(Debug, serde::Serialize)]
pub struct Facts {
    /// `effective_date`
    pub effective_date: String,
    /// `end_date`
    pub end_date: String,
    /// `evidence`
    pub evidence: Vec<Evidence>,
    /// `notice_date`
    pub notice_date: String,
    /// `term_months`
    pub term_months: i64,
}

""" + ASKAMA_EVIDENCE

BENCH_ASKAMA_FIELDS = """\
    /// `client_name`
    pub client_name: &'a str,
    /// `matter_reference`
    pub matter_reference: &'a str,
    /// `facts`
    pub facts: &'a Facts,
"""

# The inputs, context and output of bench/contracts/contracts/drafting.yaml.
BENCH_SERDE_TYPES = """\
    /// Inputs.
    #[derive({derive})]
    #[serde(deny_unknown_fields)]
    pub struct Inputs {
        /// Facts accepted from an extraction contract after schema validation.
        pub facts: Facts,
    }

    /// `facts`
    #[derive({derive})]
    #[serde(deny_unknown_fields)]
    pub struct Facts {
        /// `effective_date`
        pub effective_date: String,
        /// `end_date`
        pub end_date: String,
        /// `term_months`
        pub term_months: i64,
        /// `notice_date`
        pub notice_date: String,
        /// `evidence`
        pub evidence: Vec<EvidenceItem>,
    }

""" + serde_evidence_item("String") + """
    /// Context.
    #[derive({derive})]
    #[serde(deny_unknown_fields)]
    pub struct Context {
        /// Client display name.
        pub client_name: String,
        /// Host-owned opaque matter reference.
        pub matter_reference: String,
    }

    /// Output.
    #[derive({derive})]
    #[serde(deny_unknown_fields)]
    pub struct Output {
        /// `title`
        pub title: String,
        /// `summary`
        pub summary: String,
    }
"""

CORPUS_ASKAMA_TYPES = """\
/// The validated lease terms, fields in canonical order.
#[derive(Debug, serde::Serialize)]
pub struct LeaseTerms {
    /// `end_date`
    pub end_date: String,
    /// `evidence`
    pub evidence: Vec<Evidence>,
    /// `monthly_rent`
    pub monthly_rent: f64,
    /// `notice_days`
    pub notice_days: i64,
    /// `start_date`
    pub start_date: String,
}

""" + ASKAMA_EVIDENCE

CORPUS_ASKAMA_FIELDS = """\
    /// `formal`
    pub formal: bool,
    /// `client_name`
    pub client_name: &'a str,
    /// `matter_reference`
    pub matter_reference: &'a str,
    /// `lease_terms`
    pub lease_terms: &'a LeaseTerms,
"""

# The inputs, context and output of
# examples/crm3/contracts/lease-summary-drafting.yaml.
CORPUS_SERDE_TYPES = """\
    /// Inputs.
    #[derive({derive})]
    #[serde(deny_unknown_fields)]
    pub struct Inputs {
        /// The output of lease-term-extraction, after schema validation.
        pub lease_terms: LeaseTerms,
        /// Whether to address the client formally.
        pub formal: bool,
    }

    /// `lease_terms`
    #[derive({derive})]
    #[serde(deny_unknown_fields)]
    pub struct LeaseTerms {
        /// `start_date`
        pub start_date: String,
        /// `end_date`
        pub end_date: String,
        /// `monthly_rent`
        pub monthly_rent: f64,
        /// `notice_days`
        pub notice_days: i64,
        /// `evidence`
        pub evidence: Vec<EvidenceItem>,
    }

""" + serde_evidence_item("Field") + """
    /// The values of `field`.
    #[derive({derive})]
    #[serde(rename_all = "snake_case")]
    pub enum Field {
        /// `start_date`
        StartDate,
        /// `end_date`
        EndDate,
        /// `monthly_rent`
        MonthlyRent,
        /// `notice_days`
        NoticeDays,
    }

    /// Context.
    #[derive({derive})]
    #[serde(deny_unknown_fields)]
    pub struct Context {
        /// Display name of the client.
        pub client_name: String,
        /// Host-owned opaque matter reference.
        pub matter_reference: String,
        /// BCP 47 tag driving the date and number formats.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub locale: Option<String>,
    }

    /// Output.
    #[derive({derive})]
    #[serde(deny_unknown_fields)]
    pub struct Output {
        /// `title`
        pub title: String,
        /// `summary`
        pub summary: String,
        /// `merge_fields`
        pub merge_fields: MergeFields,
    }

    /// `merge_fields`
    #[derive({derive})]
    #[serde(deny_unknown_fields)]
    pub struct MergeFields {
        /// `client`
        pub client: String,
        /// `term`
        pub term: String,
        /// `rent`
        pub rent: String,
    }
"""

SHAPES = {
    "bench": Shape(
        REPO / "bench/contracts/contracts/drafting.yaml",
        "drafting",
        [],
        REPO / "bench/templates/drafting_user.txt",
        BENCH_ASKAMA_TYPES,
        BENCH_ASKAMA_FIELDS,
        BENCH_SERDE_TYPES,
    ),
    "corpus": Shape(
        REPO / "examples/crm3/contracts/lease-summary-drafting.yaml",
        "lease-summary-drafting",
        [("partials/grounding-rules.yaml", REPO / "examples/crm3/partials/grounding-rules.yaml")],
        REPO / "bench/templates/lease_summary_user.txt",
        CORPUS_ASKAMA_TYPES,
        CORPUS_ASKAMA_FIELDS,
        CORPUS_SERDE_TYPES,
    ),
}


def ids(n):
    """Contract ids d001..dNNN (at least three digits, so ids sort)."""
    width = max(3, len(str(n)))
    return [f"d{i:0{width}d}" for i in range(1, n + 1)]


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def manifest(name, deps, build_deps="", extra=""):
    """A standalone host manifest (its own workspace, default profiles)."""
    text = (
        f'[package]\nname = "{name}"\nversion = "0.0.0"\nedition = "2024"\n'
        f"publish = false\n{extra}\n[dependencies]\n{deps}"
    )
    if build_deps:
        text += f"\n[build-dependencies]\n{build_deps}"
    return text + "\n[workspace]\n"


def contract_text(shape, cid):
    text = shape.contract.read_text(encoding="utf-8")
    out, count = re.subn(rf"(?m)^id: {re.escape(shape.original_id)}$", f"id: {cid}", text)
    if count != 1:
        sys.exit(f"error: {shape.contract} has no line `id: {shape.original_id}`")
    return out


def write_partials(shape, include_root):
    for rel, src in shape.partials:
        shutil.copyfile(src, write_parent(include_root / rel))


def write_parent(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def write_package(shape, pkg, names):
    listed = "".join(f"  - {c}\n" for c in names)
    write(
        pkg / "templiqx.yaml",
        "api_version: templiqx/v1alpha1\npackage: scale\nversion: 0.1.0\n"
        f"contracts:\n{listed}",
    )
    for c in names:
        write(pkg / "contracts" / f"{c}.yaml", contract_text(shape, c))
    write_partials(shape, pkg)


def runtime_dep():
    return f'templiqx = {{ path = "{REPO / "runtime"}" }}\n'


ASKAMA_DEPS = (
    'askama = { version = "0.16", features = ["serde_json"] }\n'
    'serde = { version = "1", features = ["derive"] }\n'
)


def askama_host(shape, d, names, crate, serde_derive=None):
    """The askama host (N template structs over copies of the prompt), with
    per contract a module of serde types when `serde_derive` is a derive
    list."""
    deps = ASKAMA_DEPS
    if serde_derive and "JsonSchema" in serde_derive:
        deps += 'schemars = "1"\n'
    write(d / "Cargo.toml", manifest(crate, deps))
    prompt = shape.template.read_text(encoding="utf-8")
    structs = []
    for c in names:
        write(d / "templates" / f"{c}.txt", prompt)
        camel = c[0].upper() + c[1:]
        structs.append(
            f'/// `{c}`\n#[derive(askama::Template)]\n#[template(path = "{c}.txt")]\n'
            f"pub struct {camel}<'a> {{\n{shape.askama_fields}}}\n"
        )
        if serde_derive:
            body = shape.serde_types.replace("{derive}", serde_derive)
            structs.append(
                f"/// The inputs, context and output of `{c}`.\npub mod {c} {{\n"
                f"    use serde::{{Deserialize, Serialize}};\n\n{body}}}\n"
            )
    what = {
        None: "",
        "Serialize, Deserialize": " and serde types of each contract",
        "Serialize, Deserialize, schemars::JsonSchema": (
            " and serde + schemars types of each contract"
        ),
    }[serde_derive]
    write(
        d / "src/lib.rs",
        f"//! {len(names)} askama templates over the prompt{what}.\n#![deny(warnings)]\n\n"
        + shape.askama_types
        + "\n"
        + "\n".join(structs),
    )
    return (d, d / "templates" / f"{names[0]}.txt")


def generate_hosts(shape, root, n):
    """Writes the hosts and the expander; returns {host: (dir, touched file)}."""
    names = ids(n)
    lock = REPO / "Cargo.lock"
    hosts = {}

    d = root / "file"
    write(d / "Cargo.toml", manifest("tqx-scale-file", runtime_dep()))
    for c in names:
        write(d / "contracts" / f"{c}.yaml", contract_text(shape, c))
    # No package: a contract includes from its own directory.
    write_partials(shape, d / "contracts")
    calls = "".join(
        f'templiqx::include_contract!("contracts/{c}.yaml", target = {TARGET});\n'
        for c in names
    )
    write(d / "src/lib.rs", f"//! {n} contracts, file form.\n#![deny(warnings)]\n\n{calls}")
    hosts["file"] = (d, d / "contracts" / f"{names[0]}.yaml")

    d = root / "package"
    write(d / "Cargo.toml", manifest("tqx-scale-package", runtime_dep()))
    write_package(shape, d / "pkg", names)
    calls = "".join(
        f'templiqx::include_contract!(package = "pkg", contract = "{c}", target = {TARGET});\n'
        for c in names
    )
    write(d / "src/lib.rs", f"//! {n} contracts, package form.\n#![deny(warnings)]\n\n{calls}")
    hosts["package"] = (d, d / "pkg/contracts" / f"{names[0]}.yaml")

    d = root / "buildrs"
    write(
        d / "Cargo.toml",
        manifest(
            "tqx-scale-buildrs",
            runtime_dep(),
            f'templiqx-build = {{ path = "{REPO / "build-support"}" }}\n',
        ),
    )
    write_package(shape, d / "pkg", names)
    write(
        d / "build.rs",
        "fn main() {\n"
        f"    if let Err(e) = templiqx_build::Builder::new().target({TARGET})"
        '.package("pkg").compile() {\n'
        '        eprintln!("{e}");\n        std::process::exit(1);\n    }\n}\n',
    )
    write(
        d / "src/lib.rs",
        f"//! {n} contracts, build.rs form.\n#![deny(warnings)]\n\n"
        'include!(concat!(env!("OUT_DIR"), "/templiqx_contracts.rs"));\n',
    )
    hosts["buildrs"] = (d, d / "pkg/contracts" / f"{names[0]}.yaml")

    hosts["askama"] = askama_host(shape, root / "askama", names, "tqx-scale-askama")
    hosts["askama_serde"] = askama_host(
        shape, root / "askama_serde", names, "tqx-scale-askama_serde", "Serialize, Deserialize"
    )
    hosts["askama_serde_schemars"] = askama_host(
        shape,
        root / "askama_serde_schemars",
        names,
        "tqx-scale-askama_serde_schemars",
        "Serialize, Deserialize, schemars::JsonSchema",
    )

# The expander: prints the module include_contract! generates for one call.
    d = root / "expand"
    write(
        d / "Cargo.toml",
        manifest(
            "tqx-scale-expand",
            f'templiqx-build = {{ path = "{REPO / "build-support"}" }}\n'
            f'templiqx-contracts = {{ path = "{REPO / "contracts"}" }}\n',
        ),
    )
    write(d / "src/main.rs", EXPANDER)

    for d, _ in list(hosts.values()) + [(root / "expand", None)]:
        shutil.copyfile(lock, d / "Cargo.lock")
    return hosts


# Mirrors `expand` in macros/src/lib.rs: same loader options, same codegen
# options (evals on, the files read tracked), formatted like build.rs output.
EXPANDER = r"""//! Prints the module `include_contract!` generates for one call.
use std::path::Path;
use templiqx_build::codegen::{self, Options};
use templiqx_build::{CompileOptions, Loader};
use templiqx_contracts::CapabilityProfile;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (base, form, path, id) = (Path::new(&args[1]), &args[2], &args[3], &args[4]);
    let target = CapabilityProfile::new(["structured_output"]);
    let mut loader = Loader::new(base).with_options(CompileOptions {
        fake_output_in_tests: true,
        ..CompileOptions::default()
    });
    let compiled = if form == "file" {
        loader.compile_file(&base.join(path), &target)
    } else {
        loader
            .compile_package_contract(&base.join(path), id, &target)
            .expect("package compiles and lists the contract")
    };
    assert!(compiled.diagnostics.is_empty(), "{:?}", compiled.diagnostics);
    let options = Options { eval_tests: true, tracked_files: loader.files_read.clone() };
    let tokens = codegen::generate(
        compiled.contract.as_ref().unwrap(),
        compiled.interaction.as_ref().unwrap(),
        &loader.sources,
        &options,
    )
    .expect("codegen");
    print!("{}", codegen::format_file(tokens));
}
"""


def code_lines(text):
    """Lines of generated Rust, without the `@generated` header line and the
    blank line after it."""
    lines = text.splitlines()
    if lines and lines[0].startswith(HEADER):
        lines = lines[2:] if len(lines) > 1 and not lines[1].strip() else lines[1:]
    return len(lines)


class Runner:
    def __init__(self, args, target_dir):
        self.jobs = str(args.jobs)
        self.target_dir = target_dir
        self.loads = []

    def cargo(self, host_dir, *argv, release=False, program_args=()):
        cmd = ["cargo", *argv, "--offline", "--manifest-path", str(host_dir / "Cargo.toml")]
        if argv[0] in ("build", "run"):
            cmd += ["-j", self.jobs]
        if release:
            cmd.append("--release")
        if program_args:
            cmd += ["--", *program_args]
        env = dict(os.environ, CARGO_TARGET_DIR=str(self.target_dir))
        env.pop("RUSTFLAGS", None)
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.stderr.write(proc.stdout + proc.stderr)
            sys.exit(f"error: `{' '.join(cmd)}` failed ({proc.returncode})")
        return proc

    def timed_build(self, host, host_dir, release):
        """Wall-clock seconds of one `cargo build`; fails unless it recompiled the host."""
        self.loads.append(os.getloadavg()[0])
        start = time.monotonic()
        proc = self.cargo(host_dir, "build", "--verbose", release=release)
        elapsed = time.monotonic() - start
        self.loads.append(os.getloadavg()[0])
        crate = f"--crate-name tqx_scale_{host} "
        if not any(crate in line and "src/lib.rs" in line for line in proc.stderr.splitlines()):
            sys.stderr.write(proc.stderr)
            sys.exit(f"error: the timed build of {host} did not recompile its library")
        # The host's own crates: its library and, for `build.rs`, its build
        # script (a dependency's build script has the same crate name, so
        # it counts only when its output goes to the host's build directory).
        own_build = f"/build/tqx-scale-{host}-"
        others = sorted(
            {
                m.group(1)
                for m in re.finditer(r"Running `\S*rustc --crate-name (\S+)([^\n]*)", proc.stderr)
                if m.group(1) != f"tqx_scale_{host}"
                and not (m.group(1) == "build_script_build" and own_build in m.group(2))
            }
        )
        if others:
            sys.exit(
                f"error: the timed build of {host} also compiled {', '.join(others)}: "
                "the dependencies were not built beforehand (run without --no-warm-up)"
            )
        return elapsed


def newest_out_file(target_dir, profile):
    found = sorted(
        (target_dir / profile / "build").glob("tqx-scale-buildrs-*/out/templiqx_contracts.rs"),
        key=lambda p: p.stat().st_mtime,
    )
    if not found:
        sys.exit("error: no templiqx_contracts.rs from the build.rs host")
    return found[-1]


def median(xs):
    xs = sorted(xs)
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2


def commit():
    """The worktree's commit, and whether it has uncommitted changes (read only)."""
    try:
        head = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown commit"
    return f"commit {head}" + (" with uncommitted changes" if dirty else "")


def parse_hosts(text):
    """`--hosts`: comma-separated host keys or labels, in table order."""
    by_name = {k: k for k in HOSTS}
    by_name.update({v.strip("`"): k for k, v in HOST_LABEL.items()})
    chosen = set()
    for name in filter(None, (t.strip() for t in text.split(","))):
        if name not in by_name:
            sys.exit(f"error: --hosts: no host `{name}` (hosts: {', '.join(HOSTS)})")
        chosen.add(by_name[name])
    if not chosen:
        sys.exit("error: --hosts names no host")
    return [h for h in HOSTS if h in chosen]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=100, help="contracts per host (default 100)")
    p.add_argument(
        "--shape",
        choices=sorted(SHAPES),
        default="bench",
        help="the contract copied N times: bench (drafting.yaml, default) or corpus "
        "(lease-summary-drafting.yaml)",
    )
    p.add_argument(
        "--hosts",
        default=",".join(HOSTS),
        help="comma-separated hosts to time (default all: " + ",".join(HOSTS) + ")",
    )
    p.add_argument("--release", action="store_true", help="measure the release profile too")
    p.add_argument(
        "--scratch",
        type=Path,
        default=Path(os.environ.get("TMPDIR", "/tmp")) / "templiqx-scale",
        help="where the hosts and their target directory go (outside the repository)",
    )
    p.add_argument("--jobs", type=int, default=2, help="cargo -j (default 2)")
    p.add_argument(
        "--repeat", type=int, default=1, help="timed runs per step; the median is shown"
    )
    p.add_argument(
        "--no-warm-up",
        action="store_true",
        help="skip the untimed build of every host (only after a run with the same --scratch "
        "and profiles built the dependencies; a timed build that compiles one fails the run)",
    )
    args = p.parse_args()
    for flag, value in (("--n", args.n), ("--repeat", args.repeat), ("--jobs", args.jobs)):
        if value < 1:
            sys.exit(f"error: {flag} must be at least 1 (got {value})")
    chosen = parse_hosts(args.hosts)
    scratch = args.scratch.resolve()
    if scratch == REPO or REPO in scratch.parents:
        sys.exit("error: --scratch must be outside the repository")
    if scratch in REPO.parents:
        sys.exit("error: --scratch must not hold the repository (it is cleaned and written)")

    target_dir = scratch / "target"
    profiles = ["debug"] + (["release"] if args.release else [])
    if args.no_warm_up:
        unbuilt = [p for p in profiles if not (target_dir / p / "deps").is_dir()]
        if unbuilt:
            sys.exit(
                f"error: --no-warm-up, but {target_dir} holds no {' or '.join(unbuilt)} build: "
                "run once without it first"
            )

    shape = SHAPES[args.shape]
    root = scratch / f"{args.shape}-n{args.n}"
    if root.exists():
        shutil.rmtree(root)
    hosts = generate_hosts(shape, root, args.n)
    run = Runner(args, target_dir)

    print(
        f"templiqx build-scale benchmark: N = {args.n}, shape {args.shape}, scratch {scratch}, "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the start",
        file=sys.stderr,
    )
    rows = {}
    lines = {}
    for profile in profiles:
        release = profile == "release"
        if not args.no_warm_up:
            print(
                f"[{profile}] building dependencies and every host once (not timed)",
                file=sys.stderr,
            )
            for host in chosen:
                run.cargo(hosts[host][0], "build", release=release)
        for host in chosen:
            host_dir, touched = hosts[host]
            cleans, rebuilds = [], []
            for _ in range(args.repeat):
                run.cargo(host_dir, "clean", "-p", f"tqx-scale-{host}", release=release)
                cleans.append(run.timed_build(host, host_dir, release))
                touched.touch()
                rebuilds.append(run.timed_build(host, host_dir, release))
            rows[(host, profile)] = (median(cleans), median(rebuilds))
            print(
                f"[{profile}] {host}: clean {median(cleans):.2f} s, "
                f"rebuild {median(rebuilds):.2f} s",
                file=sys.stderr,
            )
        if profile == "debug" and "buildrs" in chosen:
            out = newest_out_file(target_dir, "debug")
            lines["buildrs"] = code_lines(out.read_text(encoding="utf-8")) / args.n

    first = ids(args.n)[0]
    for host, form, path in [
        ("file", "file", f"contracts/{first}.yaml"),
        ("package", "package", "pkg"),
    ]:
        if host not in chosen:
            continue
        proc = run.cargo(
            root / "expand",
            "run",
            "--quiet",
            program_args=(str(hosts[host][0]), form, path, first),
        )
        lines[host] = code_lines(proc.stdout)

    load = f"{min(run.loads):.2f}-{max(run.loads):.2f}"
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"N = {args.n}, shape {args.shape}, {date}, {commit()}, {os.cpu_count()} cores, "
          f"cargo -j {args.jobs}, median of {args.repeat}, 1-minute load average {load} "
          "during the timed steps")
    print()
    bases = [b for b in BASELINES if b in chosen]
    ratio_heads = "".join(
        f" clean / {HOST_LABEL[b]} | rebuild / {HOST_LABEL[b]} |" for b in bases
    )
    print("| host | profile | clean build s | rebuild s |" + ratio_heads
          + " generated lines per contract |")
    print("|---|---|---|---|" + "---|---|" * len(bases) + "---|")
    for profile in profiles:
        for host in chosen:
            clean, rebuild = rows[(host, profile)]
            ratios = ""
            for b in bases:
                b_clean, b_rebuild = rows[(b, profile)]
                ratios += f" {clean / b_clean:.2f}x | {rebuild / b_rebuild:.2f}x |"
            gen = f"{lines[host]:,.0f}" if host in lines else "-"
            print(
                f"| {HOST_LABEL[host]} | {profile} | {clean:.2f} | {rebuild:.2f} |{ratios} {gen} |"
            )


if __name__ == "__main__":
    main()
