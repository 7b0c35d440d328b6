// Drives `sess mcp` with the official MCP TypeScript SDK (npm `@modelcontextprotocol/sdk`).
//
//   node client.mjs SESS HOME      (or SESS_BIN and SESS_MCP_HOME in the environment)
//
// Spawns `SESS mcp --all-projects` with HOME as its home (a scratch folder
// holding the fixture sessions the interop test copies there: Claude Code
// 2.1.332, Codex 0.171.0 and a pi-mono 0.73.1 session), then, through `Client`
// and `StdioClientTransport`: initializes, lists the tools, calls each with good
// and bad arguments, and reads every listed session with `read_session` two
// messages at a time, following the `next` cursor to "that is the end". Prints a
// one-line JSON summary; exits 1 when a check failed (each failure is also
// written to stderr). The same checks are made with the Python SDK by client.py.

import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

// What the fixture sessions hold.
const SEARCH = "subagent counted";
const SEARCH_FINDS = "claude d0320bc2-9f9f-4dd3-b19b-6e52d18059d0";
const SEARCH_READS = "The subagent counted 2 files.";
const TOOLS = ["list_sessions", "read_session", "search_sessions", "session_context"];

const LISTED = /^ref (\S+) · (\S+) (\S+) · /;
const COUNTED = /^(\d+) sessions /;
const HEADER = /^session ref \S+ · .* · (\d+) messages in all$/m;
const MESSAGE = /^\[(\d+)\] /gm;
const NEXT = /next: read_session (\{.*\})\s*$/;

/** The checks made so far and the ones that failed. */
class Checks {
  made = 0;
  failed = [];

  check(ok, what) {
    this.made += 1;
    if (!ok) {
      this.failed.push(what);
      process.stderr.write(`mcp-ts: FAILED: ${what}\n`);
    }
    return Boolean(ok);
  }
}

/** A tool's text and whether it is a tool error. */
async function call(client, tool, args) {
  const result = await client.callTool({ name: tool, arguments: args });
  const text = result.content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("");
  return [text, result.isError === true];
}

/** The [ref, source, id] of each session in a listing or search answer. */
function listed(text) {
  return text
    .split("\n")
    .map((line) => LISTED.exec(line))
    .filter(Boolean)
    .map((m) => [m[1], m[2], m[3]]);
}

const show = (value) => JSON.stringify(value);

/** Reads one session two messages at a time; returns [windows, messages]. */
async function readToTheEnd(client, checks, ref, source) {
  let cursor = { id: ref };
  const seen = [];
  let total = null;
  let windows = 0;
  for (;;) {
    const [text, error] = await call(client, "read_session", { ...cursor, limit: 2 });
    windows += 1;
    if (!checks.check(!error, `read_session ${show(cursor)}: ${text}`)) return [windows, seen.length];
    const header = HEADER.exec(text);
    if (!checks.check(header, `read_session ${show(cursor)}: no header in ${text}`)) return [windows, seen.length];
    total = Number(header[1]);
    if (total === 0) break;
    const numbers = [...text.matchAll(MESSAGE)].map((m) => Number(m[1]));
    const expected = numbers.map((_, i) => seen.length + i);
    checks.check(
      numbers.length > 0 && numbers.length <= 2 && show(numbers) === show(expected),
      `${source} ${ref}: window ${show(cursor)} shows messages ${show(numbers)} after ${seen.length}`,
    );
    seen.push(...numbers);
    if (text.trimEnd().endsWith("that is the end")) break;
    const follow = NEXT.exec(text);
    if (!checks.check(follow, `${source} ${ref}: a window ends with neither \`next\` nor the end: ${text}`)) break;
    cursor = JSON.parse(follow[1]);
    checks.check(cursor.offset === seen.length, `${source} ${ref}: next ${show(cursor)} after ${seen.length} messages`);
    if (!checks.check(windows <= 1000, `${source} ${ref}: more than 1000 windows`)) break;
  }
  const all = Array.from({ length: total ?? 0 }, (_, i) => i);
  checks.check(show(seen) === show(all), `${source} ${ref}: windows show ${show(seen)} of ${total} messages`);
  return [windows, seen.length];
}

async function drive(sess, home) {
  const checks = new Checks();
  const sdk = JSON.parse(
    readFileSync(new URL("./node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url), "utf8"),
  ).version;
  const summary = { client: "typescript", sdk };
  const client = new Client({ name: "sess-interop", version: "0" });
  const transport = new StdioClientTransport({
    command: sess,
    args: ["mcp", "--all-projects"],
    env: { HOME: home },
    cwd: home,
  });
  await client.connect(transport);
  try {
    const server = client.getServerVersion();
    summary.server = `${server?.name} ${server?.version}`;
    checks.check(server?.name === "sess", `server is ${show(server)}`);

    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    checks.check(show(names) === show(TOOLS), `tools ${show(names)}`);
    const schema = Object.fromEntries(tools.map((tool) => [tool.name, tool.inputSchema]));
    checks.check(show(schema.search_sessions?.required) === show(["query"]), `search schema ${show(schema)}`);
    checks.check(schema.read_session?.required?.includes("id"), `read schema ${show(schema)}`);

    let [text, error] = await call(client, "list_sessions", {});
    const every = listed(text);
    const counted = COUNTED.exec(text);
    checks.check(!error && counted && Number(counted[1]) === every.length, `list_sessions: ${text}`);
    const sources = new Set(every.map(([, source]) => source));
    checks.check(["pi", "codex", "claude"].every((s) => sources.has(s)), `list_sessions sources ${show([...sources])}`);

    [text, error] = await call(client, "list_sessions", { source: "codex" });
    const codex = listed(text);
    checks.check(
      !error && codex.length > 0 && codex.every(([, source]) => source === "codex"),
      `list_sessions codex: ${text}`,
    );
    const codexInAll = every.filter(([, source]) => source === "codex").length;
    checks.check(codex.length === codexInAll, `codex: ${codex.length} of ${show(every)}`);

    [text, error] = await call(client, "list_sessions", { limit: 1 });
    checks.check(!error && listed(text).length === 1, `list_sessions limit 1: ${text}`);

    [text, error] = await call(client, "search_sessions", { query: SEARCH });
    const found = listed(text);
    checks.check(!error && text.includes(SEARCH_FINDS) && text.includes("[[counted]]"), `search_sessions: ${text}`);
    const hit = found.find(([, source, id]) => `${source} ${id}` === SEARCH_FINDS)?.[0];
    if (checks.check(hit !== undefined, `search_sessions names no ref for ${SEARCH_FINDS}: ${text}`)) {
      [text, error] = await call(client, "read_session", { id: hit });
      checks.check(!error && text.includes(SEARCH_READS), `read_session ${hit}: ${text}`);
    }
    [text, error] = await call(client, "search_sessions", { query: SEARCH, source: "codex" });
    checks.check(!error && listed(text).length === 0 && text.startsWith("0 sessions"), `search codex: ${text}`);

    const pi = every.filter(([, source]) => source === "pi").map(([, , id]) => id);
    if (checks.check(pi.length === 1, `pi sessions ${show(pi)}`)) {
      [text, error] = await call(client, "session_context", { id: pi[0] });
      let messages = null;
      try {
        messages = error ? null : JSON.parse(text).messages;
      } catch {
        messages = null;
      }
      checks.check(
        Array.isArray(messages) && messages.length > 0 && messages.every((m) => "role" in m),
        `session_context ${pi[0]}: ${text}`,
      );
    }

    let windows = 0;
    let messages = 0;
    for (const [ref, source] of every) {
      const [w, m] = await readToTheEnd(client, checks, ref, source);
      windows += w;
      messages += m;
    }
    Object.assign(summary, { sessions: every.length, windows, messages });

    const claude = every.find(([, source]) => source === "claude")?.[2] ?? "";
    const bad = [
      ["search_sessions", { query: "  " }, "`query` is empty"],
      ["search_sessions", { query: "x", source: "vim" }, "`source` is one of"],
      ["list_sessions", { since: "last week" }, "`since` is a date"],
      ["read_session", { id: "ffffffff" }, "no session has the ref or id `ffffffff`"],
      ["session_context", { id: claude }, "works on pi-family sessions"],
    ];
    for (const [tool, args, says] of bad) {
      [text, error] = await call(client, tool, args);
      checks.check(error && text.includes(says), `${tool} ${show(args)}: error ${error}: ${text}`);
    }
    [text, error] = await call(client, "list_sessions", { limit: 1 });
    checks.check(!error && listed(text).length === 1, `after the errors: ${text}`);
  } finally {
    await client.close();
  }
  return Object.assign(summary, { checks: checks.made, failed: checks.failed });
}

const sess = process.argv[2] ?? process.env.SESS_BIN;
const home = process.argv[3] ?? process.env.SESS_MCP_HOME;
if (!sess || !home) {
  process.stderr.write("usage: node client.mjs SESS HOME (or SESS_BIN and SESS_MCP_HOME)\n");
  process.exit(2);
}
const summary = await drive(sess, home);
process.stdout.write(`${JSON.stringify(summary)}\n`);
process.exit(summary.failed.length > 0 ? 1 : 0);
