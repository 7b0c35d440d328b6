// Drives the real Claude Code CLI with `sess mcp` configured as an MCP server,
// against the fake Messages API: a first session says a distinctive thing;
// in a second one the fake model calls `search_sessions` for it, Claude Code
// runs the tool through `sess mcp`, and the model's next request carries the
// tool's answer back.
//
//   node mcp-driver.mjs ROOT SESS   runs it under ROOT with the sess binary SESS,
//                                   and prints JSON
//
// The JSON: the CLI's version, both sessions' ids and files, the tool call's
// name and input, and the tool result as the CLI sent it to the model.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { claudeBinary, claudeEnv } from "./claude.mjs";
import { startFakeApi } from "./fake-api.mjs";
import { runProgram } from "../lib/run.mjs";

function fail(message) {
  console.error(`mcp-driver: ${message}`);
  process.exit(1);
}


const claude = claudeBinary();
const version = execFileSync(claude, ["--version"], { encoding: "utf8" }).trim().split(" ")[0];
const usage = "usage: node mcp-driver.mjs ROOT SESS";
const root = path.resolve(process.argv[2] ?? fail(usage));
const sess = path.resolve(process.argv[3] ?? fail(usage));
const home = path.join(root, "home");
const configDir = path.join(root, "claude-config");
const tmp = path.join(root, "tmp");
const cwd = path.join(root, "x", "shop");
for (const dir of [home, configDir, tmp, cwd]) fs.mkdirSync(dir, { recursive: true });

const WORDS = "quokka migration";
const TOOL = "mcp__sess__search_sessions";
const text = (text) => ({ type: "text", text });
const tool = (name, input) => ({ type: "tool_use", name, input });
const script = {
  "Note this: the quokka migration failed on the orders table.": [[text("Noted: the quokka migration failed on the orders table.")]],
  "Which session was about the quokka migration?": [
    [tool(TOOL, { query: WORDS, cwd: "*", limit: 3 })],
    [text("Found it.")],
  ],
};

const api = await startFakeApi(script);
const env = { ...claudeEnv({ home, configDir, tmp, port: api.port }), MCP_TIMEOUT: "30000" };
const mcpConfig = JSON.stringify({ mcpServers: { sess: { type: "stdio", command: sess, args: ["mcp", "--all-projects"] } } });

async function runClaude(prompt, extra) {
  const argv = ["-p", prompt, "--output-format", "json", ...extra];
  const { code, stdout, stderr } = await runProgram(claude, argv, { cwd, env, timeoutMs: 90_000 });
  let result = null;
  try {
    result = JSON.parse(stdout);
  } catch {
    result = null;
  }
  if (code !== 0 || !result || result.is_error) fail(`claude -p ${JSON.stringify(prompt)}: exit ${code}\n${stdout}\n${stderr}`);
  return result;
}

let first;
let second;
try {
  first = await runClaude("Note this: the quokka migration failed on the orders table.", []);
  second = await runClaude("Which session was about the quokka migration?", [
    "--mcp-config",
    mcpConfig,
    "--strict-mcp-config",
    "--allowedTools",
    TOOL,
  ]);
} finally {
  await api.close();
}

const call = api.requests.flatMap((r) => r.answer?.content ?? r.answer ?? []).find((b) => b?.type === "tool_use" && b.name === TOOL) ?? null;
const results = api.requests.flatMap((r) => r.toolResults ?? []);
const projects = path.join(configDir, "projects");
const fileOf = (id) => {
  for (const dir of fs.readdirSync(projects)) {
    const file = path.join(projects, dir, `${id}.jsonl`);
    if (fs.existsSync(file)) return file;
  }
  return null;
};
console.log(
  JSON.stringify(
    {
      claudeCode: version,
      node: process.version,
      configDir,
      noted: { id: first.session_id, path: fileOf(first.session_id) },
      asked: { id: second.session_id, path: fileOf(second.session_id) },
      tool: TOOL,
      call,
      toolResults: results,
    },
    null,
    2,
  ),
);
