"""Drives `sess mcp` with the official MCP Python SDK (PyPI `mcp`).

    client.py SESS HOME      (or SESS_BIN and SESS_MCP_HOME in the environment)

Spawns `SESS mcp --all-projects` with HOME as its home (a scratch folder
holding the fixture sessions the interop test copies there: Claude Code 2.1.332,
Codex 0.171.0 and a pi-mono 0.73.1 session), then, through `stdio_client` and
`ClientSession`: initializes, lists the tools, calls each with good and bad
arguments, and reads every listed session with `read_session` two messages at a
time, following the `next` cursor to "that is the end". Prints a one-line JSON
summary; exits 1 when a check failed (each failure is also written to stderr).
The same checks are made with the TypeScript SDK by client.mjs.
"""

import asyncio
import importlib.metadata
import json
import os
import re
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

# What the fixture sessions hold.
SEARCH = "subagent counted"
SEARCH_FINDS = "claude d0320bc2-9f9f-4dd3-b19b-6e52d18059d0"
SEARCH_READS = "The subagent counted 2 files."
TOOLS = ["list_sessions", "read_session", "search_sessions", "session_context"]

LISTED = re.compile(r"^ref (\S+) · (\S+) (\S+) · ")
COUNTED = re.compile(r"^(\d+) sessions ")
HEADER = re.compile(r"^session ref \S+ · .* · (\d+) messages in all$", re.M)
MESSAGE = re.compile(r"^\[(\d+)\] ", re.M)
NEXT = re.compile(r"next: read_session (\{.*\})\s*$")


class Checks:
    """The checks made so far and the ones that failed."""

    def __init__(self):
        self.made = 0
        self.failed = []

    def check(self, ok, what):
        self.made += 1
        if not ok:
            self.failed.append(what)
            print(f"mcp-python: FAILED: {what}", file=sys.stderr)
        return ok


async def call(session, tool, arguments):
    """A tool's text and whether it is a tool error."""
    result = await session.call_tool(tool, arguments)
    text = "".join(block.text for block in result.content if block.type == "text")
    return text, bool(result.is_error)


def listed(text):
    """The (ref, source, id) of each session in a listing or search answer."""
    return [m.groups() for m in map(LISTED.match, text.splitlines()) if m]


async def read_to_the_end(session, checks, ref, source):
    """Reads one session two messages at a time; returns (windows, messages)."""
    cursor = {"id": ref}
    seen = []
    total = None
    windows = 0
    while True:
        text, error = await call(session, "read_session", {**cursor, "limit": 2})
        windows += 1
        if not checks.check(not error, f"read_session {cursor}: {text}"):
            return windows, len(seen)
        header = HEADER.search(text)
        if not checks.check(header is not None, f"read_session {cursor}: no header in {text}"):
            return windows, len(seen)
        total = int(header.group(1))
        if total == 0:
            break
        numbers = [int(n) for n in MESSAGE.findall(text)]
        checks.check(
            0 < len(numbers) <= 2 and numbers == list(range(len(seen), len(seen) + len(numbers))),
            f"{source} {ref}: window {cursor} shows messages {numbers} after {len(seen)}",
        )
        seen += numbers
        follow = NEXT.search(text)
        if text.rstrip().endswith("that is the end"):
            break
        if not checks.check(follow is not None, f"{source} {ref}: a window ends with neither `next` nor the end: {text}"):
            break
        cursor = json.loads(follow.group(1))
        checks.check(cursor.get("offset") == len(seen), f"{source} {ref}: next {cursor} after {len(seen)} messages")
        if not checks.check(windows <= 1000, f"{source} {ref}: more than 1000 windows"):
            break
    checks.check(seen == list(range(total or 0)), f"{source} {ref}: windows show {seen} of {total} messages")
    return windows, len(seen)


async def drive(sess, home):
    checks = Checks()
    summary = {"client": "python", "sdk": importlib.metadata.version("mcp")}
    server = StdioServerParameters(command=sess, args=["mcp", "--all-projects"], env={"HOME": home}, cwd=home)
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            summary["server"] = f"{init.server_info.name} {init.server_info.version}"
            checks.check(init.server_info.name == "sess", f"server is {init.server_info}")

            tools = (await session.list_tools()).tools
            names = sorted(tool.name for tool in tools)
            checks.check(names == TOOLS, f"tools {names}")
            schema = {tool.name: tool.input_schema for tool in tools}
            checks.check(schema.get("search_sessions", {}).get("required") == ["query"], f"search schema {schema}")
            checks.check("id" in schema.get("read_session", {}).get("required", []), f"read schema {schema}")

            text, error = await call(session, "list_sessions", {})
            every = listed(text)
            counted = COUNTED.match(text)
            checks.check(not error and counted and int(counted.group(1)) == len(every), f"list_sessions: {text}")
            sources = {source for _, source, _ in every}
            checks.check({"pi", "codex", "claude"} <= sources, f"list_sessions sources {sources}")

            text, error = await call(session, "list_sessions", {"source": "codex"})
            codex = listed(text)
            checks.check(
                not error and codex and all(source == "codex" for _, source, _ in codex),
                f"list_sessions codex: {text}",
            )
            checks.check(len(codex) == sum(s == "codex" for _, s, _ in every), f"codex: {len(codex)} of {every}")

            text, error = await call(session, "list_sessions", {"limit": 1})
            checks.check(not error and len(listed(text)) == 1, f"list_sessions limit 1: {text}")

            text, error = await call(session, "search_sessions", {"query": SEARCH})
            found = listed(text)
            checks.check(not error and SEARCH_FINDS in text and "[[counted]]" in text, f"search_sessions: {text}")
            hit = next((ref for ref, s, i in found if f"{s} {i}" == SEARCH_FINDS), None)
            if checks.check(hit is not None, f"search_sessions names no ref for {SEARCH_FINDS}: {text}"):
                text, error = await call(session, "read_session", {"id": hit})
                checks.check(not error and SEARCH_READS in text, f"read_session {hit}: {text}")
            text, error = await call(session, "search_sessions", {"query": SEARCH, "source": "codex"})
            checks.check(not error and listed(text) == [] and text.startswith("0 sessions"), f"search codex: {text}")

            pi = [i for _, source, i in every if source == "pi"]
            if checks.check(len(pi) == 1, f"pi sessions {pi}"):
                text, error = await call(session, "session_context", {"id": pi[0]})
                try:
                    messages = json.loads(text)["messages"] if not error else None
                except (ValueError, KeyError):
                    messages = None
                checks.check(
                    isinstance(messages, list) and messages and all("role" in m for m in messages),
                    f"session_context {pi[0]}: {text}",
                )

            windows = messages = 0
            for ref, source, _ in every:
                w, m = await read_to_the_end(session, checks, ref, source)
                windows += w
                messages += m
            summary.update(sessions=len(every), windows=windows, messages=messages)

            claude = next((i for _, s, i in every if s == "claude"), "")
            bad = [
                ("search_sessions", {"query": "  "}, "`query` is empty"),
                ("search_sessions", {"query": "x", "source": "vim"}, "`source` is one of"),
                ("list_sessions", {"since": "last week"}, "`since` is a date"),
                ("read_session", {"id": "ffffffff"}, "no session has the ref or id `ffffffff`"),
                ("session_context", {"id": claude}, "works on pi-family sessions"),
            ]
            for tool, arguments, says in bad:
                text, error = await call(session, tool, arguments)
                checks.check(error and says in text, f"{tool} {arguments}: error {error}: {text}")
            text, error = await call(session, "list_sessions", {"limit": 1})
            checks.check(not error and len(listed(text)) == 1, f"after the errors: {text}")

    summary.update(checks=checks.made, failed=checks.failed)
    return summary


def main():
    sess = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SESS_BIN")
    home = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("SESS_MCP_HOME")
    if not sess or not home:
        print("usage: client.py SESS HOME (or SESS_BIN and SESS_MCP_HOME)", file=sys.stderr)
        return 2
    summary = asyncio.run(drive(sess, home))
    print(json.dumps(summary))
    return 1 if summary["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
