// Runs the real Cline CLI (from the pinned npm package) against the fake
// chat-completions API of ../qwen-code/fake-api.mjs, and prints JSON
// describing what it made: the Cline home, each session (id, cwd, file and
// its turns: the prompts and what the model answered, thinking and tool calls
// with whether each should fail), every run and every API request.
//
//   node driver.mjs ROOT
//   node driver.mjs version      prints the pinned version
//
// ROOT gets `.cline/` (the CLI's folder, as `$HOME/.cline`), `tmp/` and the
// projects the sessions run in. The CLI runs with HOME=ROOT, its sessions
// backend local (no hub daemon left running), and no other variable from the
// environment but PATH. Nothing leaves the machine: the provider is
// `openai-compatible` with the fake API on 127.0.0.1 as its base URL.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { startFakeApi } from '../qwen-code/fake-api.mjs';
import { agentEnv, filesUnder, installed, jsonLines, printReport, runProgram } from '../lib/run.mjs';

const { require, version: clineVersion } = installed(import.meta.url, 'cline');
// The package's launcher finds the platform binary (a registry package of
// its own, `@cline/cli-<platform>`) and runs it.
const clineBin = path.join(path.dirname(require.resolve('cline/package.json')), 'bin', 'cline');

if (process.argv[2] === 'version') {
  console.log(clineVersion);
  process.exit(0);
}

const root = path.resolve(process.argv[2] ?? fs.mkdtempSync('/tmp/sess-cline-'));
const clineDir = path.join(root, '.cline');
const tmp = path.join(root, 'tmp');
const projects = { alpha: path.join(root, 'projects', 'alpha'), beta: path.join(root, 'projects', 'beta') };
for (const dir of [clineDir, tmp, ...Object.values(projects)]) fs.mkdirSync(dir, { recursive: true });

// ---- The script: what the fake model answers to each prompt, step by step.

const text = (t) => ({ text: t });
const thinking = (t) => ({ thinking: t });
const call = (id, tool, args, expect) => ({ tool, id, args, expect });

const notes = path.join(projects.alpha, 'notes.txt');
const absent = path.join(projects.alpha, 'absent.txt');
const P = {
  hello: 'Say hello in one short sentence.',
  work: 'Check the workspace: echo hi, cat missing.txt, read absent.txt, then write notes.txt and edit it.',
  summary: 'Summarize what you did in one line.',
  down: 'Describe it in more detail.',
  beta: 'What is two plus two?',
  long: 'Run a long check: echo one, then report.',
  bye: 'Now say goodbye.',
};
const A = {
  hello: 'Hello from the fake model!',
  work: 'Done: echo printed hi, missing.txt and absent.txt do not exist, and notes.txt has two notes.',
  summary: 'Ran two commands (one failed), a read failed, and notes.txt was written and edited.',
  beta: 'Four.',
  long: 'The check printed one.',
  bye: 'Goodbye from the fake model.',
};
// What the CLI asks the model when it compacts the conversation, the summary
// the fake model gives, and the prompt the conversation then starts with.
const SUMMARY = '## Goal\nRun a long check.\n\n## State\n- Done: echo one printed one.';
const script = {
  [P.hello]: [[thinking('A short hello will do.'), text(A.hello)]],
  [P.work]: [
    [
      thinking('Start with the commands.'),
      call('call_echo', 'run_commands', { commands: ['echo hi'] }, { output: 'hi', fails: false }),
      call('call_cat', 'run_commands', { commands: ['cat missing.txt'] }, { output: 'missing.txt', fails: true }),
    ],
    [call('call_read', 'read_files', { files: [{ path: absent }] }, { output: 'absent.txt', fails: true })],
    [call('call_write', 'editor', { path: notes, new_text: 'first note\nsecond note\n' }, { output: 'notes.txt', fails: false })],
    [call('call_edit', 'editor', { path: notes, old_text: 'second note', new_text: 'second note, edited' }, { output: 'notes.txt', fails: false })],
    [text(A.work)],
  ],
  [P.summary]: [[text(A.summary)]],
  [P.down]: [[{ status: 400, message: 'The fake model is down.' }]],
  [P.beta]: [[text(A.beta)]],
  [P.bye]: [[text(A.bye)]],
  [P.long]: [[call('call_one', 'run_commands', { commands: ['echo one'] }, { output: 'one', fails: false })], [text(A.long)]],
  'Summarize this session for continuation…': [[text(SUMMARY)]],
  // After the compaction the summary leads the conversation: the check's
  // answer, at whichever step the compaction came.
  'Context summary:…': [0, 1, 2, 3].map(() => [text(A.long)]),
};

// ---- Running the CLI.

const api = await startFakeApi(script);
const baseUrl = `http://127.0.0.1:${api.port}/v1`;
const env = agentEnv({ HOME: root, TMPDIR: tmp, CLINE_SESSION_BACKEND_MODE: 'local' });
// The provider, as `cline auth` configures it (in `~/.cline/data/settings/`).
const auth = await runProgram(clineBin, ['auth', '-p', 'openai-compatible', '-k', 'fake-key', '-m', 'fake-model', '-b', baseUrl], { cwd: root, env, timeoutMs: 60_000 });
if (auth.code !== 0) throw new Error(`cline auth exited ${auth.code}\n${auth.stderr}`);
const runs = [];

/** Runs `cline --json ARGS…` in `cwd`; resolves to the session id of its run. */
async function cline(cwd, args, { fails = false } = {}) {
  const argv = ['--json', ...args];
  const { code, stdout, stderr } = await runProgram(clineBin, argv, { cwd, env, timeoutMs: 120_000 });
  const events = jsonLines(stdout);
  const sessionId = events.map((e) => e.sessionId ?? e.session_id).find(Boolean) ?? newestSession();
  const result = events.find((e) => e.type === 'run_result');
  runs.push({ cwd, args: argv, exitCode: code, sessionId, finishReason: result?.finishReason ?? null });
  if ((code !== 0) !== fails || !sessionId) throw new Error(`cline ${argv.join(' ')} exited ${code}\n${stderr.slice(-3000)}\n${stdout.slice(-3000)}`);
  return sessionId;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until `ready()` holds, checking every 250 ms, for at most `ms`; the
 * error says what `state()` shows then.
 */
async function until(ready, ms, what, state = () => '') {
  const end = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}:\n${state()}`);
    await sleep(250);
  }
}

/**
 * Resumes the session `id` in `cwd` with `prompt` the only way the CLI
 * resumes one: `cline --id ID` in its terminal UI (the JSON mode refuses
 * `--id`), run in a detached tmux session of a socket of its own. Waits for
 * `answer` in the session's conversation file, quits the UI, and stops the
 * hub daemon the UI starts. `false` when tmux is not installed.
 */
async function resumeInTui(cwd, id, prompt, answer) {
  const socket = path.join(tmp, 'tmux.sock');
  const tmux = (...args) => spawnSync('tmux', ['-S', socket, ...args], { env, encoding: 'utf8' });
  if (spawnSync('tmux', ['-V'], { env }).status !== 0) return false;
  const messages = path.join(clineDir, 'data', 'sessions', id, `${id}.messages.json`);
  const started = tmux('new-session', '-d', '-s', 'resume', '-x', '160', '-y', '40', '-c', cwd, `${clineBin} --id ${id}`);
  if (started.status !== 0) throw new Error(`tmux: ${started.stderr}`);
  try {
    const screen = () => tmux('capture-pane', '-p', '-t', 'resume').stdout ?? '';
    await until(() => screen().includes('Ask anything'), 90_000, 'the terminal UI', screen);
    tmux('send-keys', '-t', 'resume', '-l', prompt);
    await sleep(500);
    tmux('send-keys', '-t', 'resume', 'Enter');
    await until(() => fs.existsSync(messages) && fs.readFileSync(messages, 'utf8').includes(answer), 90_000, 'the answer', screen);
    tmux('send-keys', '-t', 'resume', 'C-c');
    await sleep(500);
    tmux('send-keys', '-t', 'resume', 'C-c');
    await sleep(1000);
  } finally {
    tmux('kill-server');
    await runProgram(clineBin, ['hub', 'stop'], { cwd: root, env, timeoutMs: 30_000 });
  }
  runs.push({ cwd, args: ['--id', id], tui: true, sessionId: id });
  return true;
}

/** The session folder written last. */
function newestSession() {
  const dir = path.join(clineDir, 'data', 'sessions');
  if (!fs.existsSync(dir)) return null;
  const names = fs.readdirSync(dir).map((n) => [n, fs.statSync(path.join(dir, n)).mtimeMs]);
  names.sort((a, b) => b[1] - a[1]);
  return names[0]?.[0] ?? null;
}

const sessions = new Map();
function session(id, cwd) {
  if (!sessions.has(id)) sessions.set(id, { id, cwd, compaction: null, turns: [] });
  return sessions.get(id);
}
// A turn is the prompt and what the model answered, one list of blocks per
// model call (each an assistant message of its own): `thinking`, `tool_call`
// (its id, tool, input, what its result should contain and whether it should
// fail), `text`, `error` (a failed request).
function turn(s, prompt) {
  const steps = script[prompt].map((step) => step.map((part) => {
    if (part.thinking !== undefined) return { type: 'thinking', text: part.thinking };
    if (part.text !== undefined) return { type: 'text', text: part.text };
    if (part.status !== undefined) return { type: 'error', contains: part.message };
    return { type: 'tool_call', id: part.id, name: part.tool, input: part.args, ...part.expect };
  }));
  s.turns.push({ prompt, steps });
}

try {
  // Thinking, commands (one failing), a read that fails, a file written and
  // edited, then the answer.
  const alpha = await cline(projects.alpha, [P.work]);
  turn(session(alpha, projects.alpha), P.work);
  // The model request fails: the CLI exits 1.
  const down = await cline(projects.alpha, [P.down], { fails: true });
  turn(session(down, projects.alpha), P.down);
  const beta = await cline(projects.beta, [P.hello]);
  turn(session(beta, projects.beta), P.hello);
  // Resumed in the terminal UI: a second prompt in the same session.
  if (await resumeInTui(projects.beta, beta, P.bye, A.bye)) turn(session(beta), P.bye);
  // A context window small enough that the conversation is compacted once
  // the command's result is in (the CLI's default, agentic compaction: the
  // model writes the summary).
  const providers = path.join(clineDir, 'data', 'settings', 'providers.json');
  const settings = JSON.parse(fs.readFileSync(providers, 'utf8'));
  settings.providers['openai-compatible'].settings.contextWindow = 6500;
  fs.writeFileSync(providers, `${JSON.stringify(settings, null, 2)}\n`);
  const long = await cline(projects.beta, [P.long]);
  const compacted = session(long, projects.beta);
  turn(compacted, P.long);
  // The summary stands after the first call's result.
  compacted.compaction = { afterStep: 0, summary: SUMMARY };
} finally {
  await api.close();
}

const files = filesUnder(path.join(clineDir, 'data', 'sessions'));
for (const s of sessions.values()) {
  s.path = files.find((p) => p.endsWith(path.join(s.id, `${s.id}.messages.json`))) ?? null;
  s.compactionPath = files.find((p) => p.endsWith(path.join(s.id, `${s.id}.compaction.json`))) ?? null;
}

printReport({
  clineVersion,
  home: root,
  clineDir,
  api: baseUrl,
  projects,
  notes: fs.existsSync(notes) ? fs.readFileSync(notes, 'utf8') : null,
  sessions: [...sessions.values()],
  files: files.sort(),
}, runs, api.requests);
