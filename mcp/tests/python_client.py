#!/usr/bin/env python3
"""Drives `templiqx mcp` with the official MCP Python SDK (`pip install mcp`).

An independent client: it starts the server as an MCP host does (a child
process speaking JSON-RPC on standard input and output), lists the CRM3
package's prompts and tools, gets a rendered prompt, gets the TQX_* error of
a bad argument, checks a broken contract text, diffs two versions of a
contract, completes an argument, reads the resources and runs the eval
fixtures on the fake provider; then, serving a contract file in a temporary
directory, it edits the file and sees notifications/prompts/list_changed.
Every step asserts what it sees; the script prints what it did and exits 0
when everything held.

    python3 -m venv /tmp/mcp-venv && /tmp/mcp-venv/bin/pip install mcp==2.3.0
    cargo build -p templiqx-cli
    /tmp/mcp-venv/bin/python mcp/tests/python_client.py [--templiqx target/debug/templiqx] \
        [--transcript session.jsonl]

With --transcript, every JSON-RPC line both ways is written to the file
(`>` client to server, `<` server to client), for docs/mcp.md.

Run from the repository root. It reaches no network. The test suite runs it
(cli/tests/it/mcp_python.rs) when TEMPLIQX_MCP_PYTHON names the Python to use;
.ci/run sets that up.
"""

import argparse
import asyncio
import json
import os
import shlex
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

try:
    from mcp_types import PromptReference
except ImportError:  # the 1.x SDK
    from mcp.types import PromptReference

REQUEST = {
    "document_id": "LEASE-0007",
    "clause_id": "clause-3",
    "clause_text": "The lease starts on 2026-03-01 and ends on 2027-02-28. "
    "Rent is EUR 1450.50 per month. Notice period: 60 days.",
    "focus_fields": '["notice_days", "start_date"]',
    "matter_reference": "MAT-2026-0107",
}

GREETING = """api_version: templiqx/v1alpha1
id: greet
version: 0.1.0
inputs:
  name: { schema: { type: string }, required: true }
  title: { schema: { type: string }, required: TITLE }
messages:
  - role: user
    content:
      - { kind: text, value: Hello }
      - { kind: interpolate, expression: { kind: ref, path: inputs.NAME } }
output_schema: { type: object }
"""


def greeting(title_required: bool, name: str) -> str:
    return GREETING.replace("TITLE", "true" if title_required else "false").replace("NAME", name)


def dump(model) -> dict:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def step(title: str) -> None:
    print(f"\n== {title}")


async def session(templiqx: str, transcript: str | None) -> None:
    command, args = templiqx, ["mcp", "examples/crm3", "--target", "structured_output"]
    if transcript:
        # The same server, each line of its standard streams also appended
        # to the transcript, in the order they pass.
        inner = shlex.join([templiqx, *args])
        log = shlex.quote(transcript)
        command = "bash"
        args = [
            "-c",
            f"tee >(sed -u 's/^/> /' >> {log}) | {inner} | tee >(sed -u 's/^/< /' >> {log})",
        ]
        open(transcript, "w").close()
    params = StdioServerParameters(command=command, args=args, cwd=os.getcwd())
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as client:
            step("initialize")
            init = await client.initialize()
            print(f"protocol {init.protocol_version}; server {init.server_info.name} {init.server_info.version}")
            assert init.protocol_version == "2025-11-25", init.protocol_version

            step("prompts/list")
            prompts = (await client.list_prompts()).prompts
            for p in prompts:
                args_text = ", ".join(
                    f"{a.name}{'' if a.required else '?'}" for a in (p.arguments or [])
                )
                print(f"{p.name}({args_text})")
            assert [p.name for p in prompts] == [
                "lease-term-extraction", "lease-summary-drafting", "lease-summary-judge"
            ]
            focus = next(a for a in prompts[0].arguments if a.name == "focus_fields")
            print(f"focus_fields: {focus.description}")
            assert "JSON Schema type `array`" in focus.description

            step("prompts/get lease-term-extraction")
            got = await client.get_prompt("lease-term-extraction", REQUEST)
            for m in got.messages:
                content = dump(m.content)
                role = content.get("_meta", {}).get("templiqx/role", m.role)
                print(f"[{m.role}] (templiqx role {role}) {content['text'][:70]}...")
            meta = dump(got)["_meta"]
            print("fingerprints", json.dumps(meta["templiqx/fingerprints"], indent=1))
            assert got.messages[0].role == "user"
            assert got.messages[1].content.text.startswith("Matter: MAT-2026-0107")

            step("prompts/get with a bad argument")
            try:
                await client.get_prompt(
                    "lease-term-extraction", {**REQUEST, "focus_fields": "[notice_days"}
                )
                raise AssertionError("a bad argument must fail")
            except MCPError as e:
                print(f"error {e.code}: {e.message}")
                print(f"data.code={e.data['code']} data.json_pointer={e.data['json_pointer']}")
                print(f"data.help={e.data['help']}")
                assert e.code == -32602
                assert e.data["code"] == "TQX_PARSE_JSON"
                assert e.data["json_pointer"] == "/inputs/focus_fields"

            step("completion/complete document_id")
            done = await client.complete(
                PromptReference(name="lease-term-extraction"),
                {"name": "document_id", "value": "LEASE"},
            )
            print(done.completion.values)
            assert done.completion.values == ["LEASE-0007"]

            step("resources/list, resources/read")
            resources = (await client.list_resources()).resources
            for r in resources:
                print(f"{r.name}: {r.uri if r.uri.startswith('templiqx:') else 'file:///…/' + r.name}")
            read = await client.read_resource("templiqx://diagnostics/examples/crm3")
            print(read.contents[0].text)
            assert json.loads(read.contents[0].text)["ok"] is True

            step("tools/list")
            tools = (await client.list_tools()).tools
            print(", ".join(t.name for t in tools))
            assert [t.name for t in tools] == ["check", "render", "fingerprint", "schema", "diff", "eval"]

            step("tools/call check (a broken contract text)")
            result = await client.call_tool(
                "check",
                {"text": greeting(False, "nmae"), "path": "examples/crm3/contracts/draft.yaml"},
            )
            out = result.structured_content
            d = out["diagnostics"][0]
            span = d["span"]["start"]
            print(f"isError={result.is_error} ok={out['ok']}")
            print(f"{d['code']} at {d['file']}:{span['line']}:{span['column']} {d['json_pointer']}: {d['message']}")
            print(f"help: {d['help']}")
            assert not result.is_error and out["ok"] is False
            assert d["code"] == "TQX_REF_UNKNOWN"

            step("tools/call diff (a field made required)")
            result = await client.call_tool(
                "diff",
                {"old_text": greeting(False, "name"), "new_text": greeting(True, "name")},
            )
            out = result.structured_content
            for c in out["changes"]:
                print(f"{c['rule']} ({c['class']}): {c['message']}")
            verdict = out["contracts"][0]
            print(f"sufficient={out['sufficient']}; {verdict['name']}: {verdict['gate']['old']} -> "
                  f"{verdict['gate']['new']}, needs {verdict['gate']['least']}")
            assert out["changes"][0]["rule"] == "INPUT_FIELD_MADE_REQUIRED"
            assert out["sufficient"] is False

            step("tools/call check (outside the served roots)")
            result = await client.call_tool("check", {"path": "../.."})
            d = result.structured_content["diagnostics"][0]
            print(f"isError={result.is_error} {d['code']}: {d['message']}")
            assert result.is_error and d["code"] == "TQX_IO"

            step("tools/call eval (the fake provider)")
            result = await client.call_tool("eval", {"repeat": 3})
            out = result.structured_content
            fixtures = out["stats"]["fixtures"]
            # The inline fixtures and the dataset entry, whose rows count as
            # one fixture with their own tally (`docs/eval.md`, "Datasets").
            for f in fixtures:
                rate = f["pass_rate"]
                rows = f.get("rows")
                of_rows = f", {rows['passed_all']['passed']}/{rows['rows']} rows passed every execution" if rows else ""
                print(f"{f['contract']}::{f['fixture']}: {rate['passed']}/{rate['total']} passed "
                      f"(95% interval {rate['low']:.2f}-{rate['high']:.2f}), "
                      f"{len(f['checks'])} checks, pass^N {f['pass_all']}{of_rows}")
            entries = [f for f in fixtures if "rows" in f]
            assert out["ok"] is True and len(fixtures) == 5 and len(entries) == 1
            assert entries[0]["rows"]["rows"] == 24 and entries[0]["executions"] == 72

    await list_changed(templiqx)

    print("\n12 passed, 0 failed")


async def list_changed(templiqx: str) -> None:
    """A second server, of a contract file in a temporary directory: the
    file is edited (a field made required), and the server announces it."""
    step("notifications/prompts/list_changed (a served contract file edited)")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "greet.yaml")
        with open(path, "w") as f:
            f.write(greeting(False, "name"))
        seen = []

        async def on_message(message) -> None:
            seen.append(message)

        def changed() -> list:
            return [m for m in seen if getattr(m, "method", None) == "notifications/prompts/list_changed"]

        params = StdioServerParameters(command=templiqx, args=["mcp", "greet.yaml"], cwd=tmp)
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, message_handler=on_message) as client:
                await client.initialize()
                before = (await client.list_prompts()).prompts[0]
                # The server takes its first look after `initialized`; the
                # edit comes later (its size differs, so it is seen).
                await asyncio.sleep(0.2)
                with open(path, "w") as f:
                    f.write(greeting(True, "name"))
                # The server looks once a second.
                for _ in range(100):
                    if changed():
                        break
                    await asyncio.sleep(0.1)
                assert changed(), f"no prompts/list_changed in 10 s: {seen}"
                after = (await client.list_prompts()).prompts[0]
                show = lambda p: ", ".join(f"{a.name}{'' if a.required else '?'}" for a in p.arguments)
                print(f"{changed()[0].method}")
                print(f"before: greet({show(before)}); after: greet({show(after)})")
                assert [a.required for a in after.arguments] == [True, True]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--templiqx", default=os.path.join("target", "debug", "templiqx"))
    parser.add_argument("--transcript")
    a = parser.parse_args()
    asyncio.run(session(os.path.abspath(a.templiqx), a.transcript and os.path.abspath(a.transcript)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
