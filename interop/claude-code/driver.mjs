// Drives the real Claude Code CLI (pinned in package.json) against the fake
// Messages API in fake-api.mjs, so that it writes real session files.
//
//   node driver.mjs ROOT      runs every scenario under ROOT and prints JSON
//   node driver.mjs version   prints the CLI's version
//
// Under ROOT: `home/` is $HOME, `claude-config/` is $CLAUDE_CONFIG_DIR,
// `tmp/` is $TMPDIR and the projects are in `x/`. The CLI runs with
// `-p PROMPT --output-format json --allowedTools Bash Read Agent` (so a Write
// is refused), no network but the fake API, and no variables from the caller
// but PATH. Some runs ask for `--model claude-sonnet-4-5` (a model the usage
// tools price), the others take the CLI's default.
//
// The JSON tells what the CLI did, as seen from outside its files: for each
// session its id (from the CLI's own output), cwd, file and project folder,
// the name given with `-n`, and its runs: the prompt of each, and every
// request the CLI made to the model in it (the turn, the text the CLI put in
// as a user turn itself, and the answer given); a fork starts with copies of
// its parent's runs (`copied`). `toolResults` has every
// tool call's outcome as the CLI sent it back to the model, by call id;
// `subagents` the requests of subagents, by their prompt; `files` every file
// under `projects/`.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { claudeBinary, claudeEnv } from "./claude.mjs";
import { startFakeApi } from "./fake-api.mjs";
import { filesUnder, runProgram } from "../lib/run.mjs";

const claude = claudeBinary();
const version = execFileSync(claude, ["--version"], { encoding: "utf8" }).trim().split(" ")[0];
if (process.argv[2] === "version") {
  console.log(version);
  process.exit(0);
}

const root = path.resolve(process.argv[2] ?? fail("usage: node driver.mjs ROOT"));
const home = path.join(root, "home");
const configDir = path.join(root, "claude-config");
const tmp = path.join(root, "tmp");
for (const dir of [home, configDir, tmp]) fs.mkdirSync(dir, { recursive: true });

function fail(message) {
  console.error(`driver: ${message}`);
  process.exit(1);
}

// The projects: ASCII with `_` and `.`, CJK (one `-` per character), an emoji
// (two), and two paths over 200 UTF-16 units that share their first 200
// (an emoji early on, so units and characters differ).
const longBase = path.join(root, "x", "長い-🚀", ...[1, 2, 3, 4].map((n) => `a-rather-long-folder-name-for-the-claude-code-interop-test-${n}`));
const cwds = {
  ascii: path.join(root, "x", "demo_app.v2"),
  cjk: path.join(root, "x", "プロジェクト"),
  emoji: path.join(root, "x", "app-🚀"),
  longOne: path.join(longBase, "one"),
  longTwo: path.join(longBase, "two"),
};
for (const cwd of Object.values(cwds)) fs.mkdirSync(cwd, { recursive: true });
fs.writeFileSync(path.join(cwds.ascii, "notes.txt"), "first note\nsecond note\n");
fs.writeFileSync(path.join(cwds.cjk, "メモ.txt"), "買い物\n洗濯\n");
fs.writeFileSync(path.join(cwds.emoji, "a.txt"), "a\n");
fs.writeFileSync(path.join(cwds.emoji, "b.txt"), "b\n");

const release = path.join(tmp, "release-the-build");
const text = (text) => ({ type: "text", text });
const thinking = (thinking) => ({ type: "thinking", thinking });
const tool = (name, input) => ({ type: "tool_use", name, input });

const SUMMARY = "The user said hello and ran three checks: an echo, a read and a listing that failed.";
const script = {
  "Say hello.": [[text("Hello! What shall we work on?")]],
  "Now run the checks.": [
    [
      thinking("Start with a quick echo, then read the notes."),
      text("Running the checks."),
      tool("Bash", { command: "echo hi", description: "Print hi" }),
      tool("Read", { file_path: path.join(cwds.ascii, "notes.txt") }),
    ],
    [tool("Bash", { command: "ls does-not-exist", description: "List a missing file" })],
    [text("The echo and the read worked; the listing failed.")],
  ],
  "メモを読んで要約して。": [
    [thinking("メモは日本語です。"), tool("Read", { file_path: path.join(cwds.cjk, "メモ.txt") })],
    [text("メモには二行あります：買い物と洗濯。")],
  ],
  "Delegate the file count 🚀": [
    [
      text("Delegating to a subagent."),
      tool("Agent", {
        description: "Count files",
        prompt: "Count the files in the project.",
        subagent_type: "general-purpose",
        run_in_background: false,
      }),
    ],
    [text("The subagent counted 2 files.")],
  ],
  "Count the files in the project.": [
    [tool("Bash", { command: "ls | wc -l", description: "Count files" })],
    [text("There are 2 files.")],
  ],
  // The build ends once the turn has ended (see `onAnswer`), so that the CLI
  // writes its notification as a new turn.
  "Start the slow build in the background.": [
    [tool("Bash", { command: `until [ -e ${JSON.stringify(release)} ]; do sleep 0.05; done; echo built`, description: "Slow build", run_in_background: true })],
    [text("The build is running.")],
  ],
  "Try to write a file.": [
    [
      tool("Write", { file_path: path.join(cwds.longOne, "out.txt"), content: "x\n" }),
      tool("Read", { file_path: path.join(cwds.longOne, "missing.txt") }),
    ],
    [text("Neither worked.")],
  ],
  "Hello from the second long path.": [[text("Hello, second path.")]],
  "Trigger an API error.": [[{ type: "error", status: 400, errorType: "invalid_request_error", message: "The fake API rejected this request." }]],
  "続けてください。": [[text("フォークで続けます。")]],
  // What the CLI sends by itself: the notice that a background command ended,
  // and the instruction of `/compact` (whose answer becomes the summary).
  "~<task-notification>": [[text("The background build finished.")]],
  "~CRITICAL: Respond with TEXT ONLY": [[text(`<summary>${SUMMARY}</summary>`)]],
};
const subagentPrompts = new Set(["Count the files in the project."]);

const api = await startFakeApi(script, {
  // Half a second after the last answer of its turn, the background build may end.
  onAnswer: (r) => r.prompt === "Start the slow build in the background." && r.turn === 1 && setTimeout(() => fs.writeFileSync(release, ""), 500),
});
const env = claudeEnv({ home, configDir, tmp, port: api.port });

/** Runs the CLI once in `cwd`; resolves to its JSON result, which must report an error when `failing`. */
async function runClaude(cwd, args, failing) {
  const argv = [...args, "--output-format", "json", "--allowedTools", "Bash", "Read", "Agent"];
  const { code, stdout: out, stderr: err } = await runProgram(claude, argv, { cwd, env, timeoutMs: 60_000 });
  let result = null;
  try {
    result = JSON.parse(out);
  } catch {
    result = null;
  }
  if (!result || result.is_error !== !!failing || (code !== 0) !== !!failing) {
    throw new Error(`claude ${args.join(" ")} in ${cwd}: exit ${code}\n${out}\n${err}`);
  }
  return result;
}

const sessions = new Map();

/**
 * One run: a new session (named with `-n` when `name` is given), or `resume`
 * an existing one (a new session copying its history with `fork`). `failing`:
 * the CLI reports an error (the fake API fails the request). `model`: the
 * model to ask for (`--model`), else the CLI's default.
 */
async function run({ scenario, cwd, prompt, name, resume, fork, failing, model }) {
  const first = api.requests.length;
  const args = ["-p", prompt];
  if (resume) args.push("--resume", sessions.get(resume).id);
  if (fork) args.push("--fork-session");
  if (name) args.push("-n", name);
  if (model) args.push("--model", model);
  const result = await runClaude(cwd, args, failing);
  const id = result.session_id;
  const requests = api.requests
    .slice(first)
    .filter((r) => r.path === "/v1/messages" && !subagentPrompts.has(r.prompt))
    .map(({ session, turn, injected, injectedText, answer }) => ({ session, turn, injected, injectedText, answer }));
  if (requests.some((r) => r.session !== id)) fail(`requests of another session during ${scenario}`);
  const parent = resume ? sessions.get(resume) : null;
  if (parent && (parent.id === id) === !!fork) fail(`--resume ${resume}${fork ? " --fork-session" : ""} gave session ${id}`);
  const key = parent && !fork ? resume : scenario;
  const session = sessions.get(key) ?? {
    scenario,
    id,
    cwd,
    name: name ?? null,
    forkedFrom: fork ? parent.id : null,
    // A fork starts with a copy of its parent's history.
    runs: fork ? parent.runs.map((r) => ({ ...r, copied: true })) : [],
  };
  session.runs.push({ prompt, resumed: !!resume, copied: false, failed: !!failing, requests: requests.map(({ session, ...r }) => r) });
  sessions.set(key, session);
}

// A model the usage tools price (`sess usage`, ccusage), for the runs that
// make no tool call: with it the CLI appends a `<system-reminder>` of the
// tokens left to each tool result it sends, which its transcript does not
// hold. The others use the CLI's default model.
const PRICED = "claude-sonnet-4-5";

try {
  await run({ scenario: "ascii", cwd: cwds.ascii, prompt: "Say hello.", model: PRICED });
  await run({ scenario: "ascii", cwd: cwds.ascii, prompt: "Now run the checks.", resume: "ascii" });
  await run({ scenario: "ascii", cwd: cwds.ascii, prompt: "/compact", resume: "ascii", model: PRICED });
  await run({ scenario: "ascii-api-error", cwd: cwds.ascii, prompt: "Trigger an API error.", failing: true });
  await run({ scenario: "cjk", cwd: cwds.cjk, prompt: "メモを読んで要約して。" });
  await run({ scenario: "cjk-fork", cwd: cwds.cjk, prompt: "続けてください。", resume: "cjk", fork: true, model: PRICED });
  await run({ scenario: "emoji-subagent", cwd: cwds.emoji, prompt: "Delegate the file count 🚀", name: "Rocket 🚀 launch" });
  await run({ scenario: "emoji-background", cwd: cwds.emoji, prompt: "Start the slow build in the background." });
  await run({ scenario: "long-one", cwd: cwds.longOne, prompt: "Try to write a file." });
  await run({ scenario: "long-two", cwd: cwds.longTwo, prompt: "Hello from the second long path.", model: PRICED });
} catch (error) {
  await api.close();
  fail(error.message);
}
await api.close();

/** Every file under `dir`, relative to it, with `/` separators. */
function walk(dir) {
  return filesUnder(dir)
    .map((p) => path.relative(dir, p).split(path.sep).join("/"))
    .sort();
}

const projects = path.join(configDir, "projects");
const files = walk(projects);
const report = [...sessions.values()].map((session) => {
  const file = files.find((f) => f.endsWith(`/${session.id}.jsonl`) && f.split("/").length === 2);
  if (!file) fail(`no file for session ${session.id}`);
  return { ...session, projectDir: file.split("/")[0], path: path.join(projects, file) };
});
const toolResults = {};
const subagents = {};
for (const request of api.requests) {
  for (const result of request.toolResults ?? []) toolResults[result.id] = { isError: result.isError, content: result.content };
  if (subagentPrompts.has(request.prompt)) {
    (subagents[request.prompt] ??= []).push({ session: request.session, turn: request.turn, answer: request.answer });
  }
}
console.log(
  JSON.stringify(
    { claudeCode: version, node: process.version, root, home, configDir, cwds, summary: SUMMARY, sessions: report, toolResults, subagents, files },
    null,
    2,
  ),
);
