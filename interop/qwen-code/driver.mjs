// Runs the real Qwen Code CLI (from the pinned npm package) against the fake
// chat-completions API in fake-api.mjs, and prints JSON describing what it
// made: the Qwen home, each session (id, cwd, file, title, and its turns: the
// prompts and what the model answered, thinking and tool calls with whether
// each should fail), every run and every API request.
//
//   node driver.mjs ROOT
//   node driver.mjs version      prints the pinned version
//
// ROOT gets `.qwen/` (the Qwen home, as `$HOME/.qwen`), `tmp/` and the
// projects the sessions run in. The CLI runs with HOME=ROOT and no other
// variable from the environment but PATH. Nothing leaves the machine: the
// model is the fake API on 127.0.0.1, and usage statistics, telemetry, update
// checks and background memory extraction are off.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';

import { startFakeApi } from './fake-api.mjs';
import { agentEnv, DOT_PNG, filesUnder, installed, printReport, runProgram } from '../lib/run.mjs';

const { require, version: qwenVersion } = installed(import.meta.url, '@qwen-code/qwen-code');
const qwenJs = require.resolve('@qwen-code/qwen-code/cli-entry.js');

if (process.argv[2] === 'version') {
  console.log(qwenVersion);
  process.exit(0);
}

const root = path.resolve(process.argv[2] ?? fs.mkdtempSync('/tmp/sess-qwen-'));
const qwenHome = path.join(root, '.qwen');
const tmp = path.join(root, 'tmp');
// Gamma's name is not ASCII: Qwen Code's project folder turns every UTF-16
// unit outside [A-Za-z0-9] into `-`.
const projects = {
  alpha: path.join(root, 'projects', 'alpha'),
  beta: path.join(root, 'projects', 'beta'),
  gamma: path.join(root, 'projects', 'Über 项目 🚀'),
};
for (const dir of [qwenHome, tmp, ...Object.values(projects)]) fs.mkdirSync(dir, { recursive: true });
// A 1×1 PNG to reference from a prompt (`@dot.png`).
fs.writeFileSync(path.join(projects.gamma, 'dot.png'), DOT_PNG);
// Beta is a git repository with a commit, so its records carry `gitBranch`.
const branch = 'feature/arith';
const gitRun = (...args) => spawnSync('git', ['-c', 'user.name=dev', '-c', 'user.email=dev@example.com', ...args], { cwd: projects.beta, env: { PATH: process.env.PATH, HOME: root } }).status === 0;
const gitBranch = gitRun('init', '-q', '-b', branch) && gitRun('commit', '-q', '--allow-empty', '-m', 'start') ? branch : null;

// ---- The script: what the fake model answers to each prompt, step by step.

const text = (t) => ({ text: t });
const thinking = (t) => ({ thinking: t });
// A tool call also says what its result should contain and whether it should
// fail (`expect`, which the fake API does not send).
const call = (id, tool, args, expect) => ({ tool, id, args, expect });

const absent = path.join(projects.alpha, 'absent.txt');
const P = {
  hello: 'Say hello in one short sentence.',
  fork: 'Take another path: say goodbye instead.',
  work: 'Check the workspace: echo hi, cat missing.txt, read absent.txt, then write notes.txt.',
  summary: 'Summarize what you did in one line.',
  down: 'Describe it in more detail.',
  image: 'What is in @dot.png ?',
  helper: 'Ask a helper to count the files.',
  count: 'Count the files in the current folder with ls.',
  first: 'First question: what is two plus two?',
  second: 'Second question: and three plus three?',
  instead: 'Instead: what is four plus four?',
};
const A = {
  hello: 'Hello from the fake model!',
  fork: 'Goodbye from the fork.',
  work: 'Done: echo printed hi, missing.txt and absent.txt do not exist, and notes.txt has two notes.',
  summary: 'Ran two commands (one failed), a read failed, and notes.txt was written.',
  image: 'A single dot.',
  helper: 'The helper counted the files.',
  count: 'There is 1 file.',
  first: 'Four.',
  second: 'Six.',
  instead: 'Eight.',
};
// What Qwen Code asks for when it compresses the conversation (the shared
// request and the dedicated summarizer), and what the fast model is asked for
// a title.
const snapshot = '<analysis>Short session.</analysis>\n<state_snapshot>\n<overall_goal>Say hello, then check the workspace.</overall_goal>\n<key_knowledge>notes.txt holds two notes; missing.txt and absent.txt do not exist.</key_knowledge>\n</state_snapshot>';
const autoTitle = 'Arithmetic practice';
const manualTitle = 'Arithmetic drill';
const script = {
  'You are the component that summarizes a conversation…': [[text(snapshot)]],
  'First, reason in your <analysis> block…': [[text(snapshot)]],
  'Conversation so far:…': [[call('call_title', 'respond_in_schema', { title: autoTitle })]],
  [P.hello]: [[thinking('A short hello will do.'), text(A.hello)]],
  [P.fork]: [[text(A.fork)]],
  [P.work]: [
    // Two calls in one response: their results come back by id.
    [
      thinking('Start with a harmless command, then the missing file.'),
      call('call_echo', 'run_shell_command', { command: 'echo hi', description: 'Print hi' }, { output: 'hi', fails: false }),
      call('call_cat', 'run_shell_command', { command: 'cat missing.txt', description: 'Read a missing file' }, { output: 'Exit Code: 1', fails: true }),
    ],
    [call('call_read', 'read_file', { file_path: absent }, { output: 'File not found', fails: true })],
    [call('call_write', 'write_file', { file_path: path.join(projects.alpha, 'notes.txt'), content: 'first note\nsecond note\n' }, { output: 'notes.txt', fails: false })],
    [text(A.work)],
  ],
  [P.summary]: [[text(A.summary)]],
  // The request fails with a client error (not retried): the CLI exits 1.
  [P.down]: [[{ status: 400, message: 'The fake model is down.' }]],
  [P.image]: [[text(A.image)]],
  [P.helper]: [
    [call('call_agent', 'agent', { description: 'Count files', prompt: P.count, subagent_type: 'general-purpose', run_in_background: false }, { output: A.count, fails: false })],
    [text(A.helper)],
  ],
  [P.count]: [
    [call('call_ls', 'run_shell_command', { command: 'ls | wc -l', description: 'Count files' }, { output: '1', fails: false })],
    [text(A.count)],
  ],
  [P.first]: [[thinking('Two and two.'), text(A.first)]],
  [P.second]: [[text(A.second)]],
  [P.instead]: [[text(A.instead)]],
};

// ---- Running Qwen Code.

const api = await startFakeApi(script);
fs.writeFileSync(
  path.join(qwenHome, 'settings.json'),
  `${JSON.stringify(
    {
      security: { auth: { selectedType: 'openai' } },
      model: { name: 'qwen3.5-plus' },
      // The fast model names sessions (in ACP and interactive mode only).
      fastModel: 'qwen3.5-plus',
      memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { enableAutoUpdate: false },
      ui: { enableFollowupSuggestions: false },
    },
    null,
    2,
  )}\n`,
);

const env = agentEnv({
  HOME: root,
  TMPDIR: tmp,
  // A model name the CLI knows takes images, so `@dot.png` is sent as one.
  OPENAI_MODEL: 'qwen3.5-plus',
  OPENAI_BASE_URL: `http://127.0.0.1:${api.port}/v1`,
  OPENAI_API_KEY: 'fake-key',
  QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
});

const runs = [];

/** Runs `qwen ARGS… PROMPT` in `cwd`; resolves to the session id it printed. */
async function qwen(cwd, args, { fails = false } = {}) {
  const argv = ['--yolo', '--output-format', 'json', ...args];
  const { code, stdout, stderr } = await runProgram(process.execPath, [qwenJs, ...argv], { cwd, env, timeoutMs: 120_000 });
  let events = [];
  try {
    events = JSON.parse(stdout);
  } catch {
    // Not JSON: reported below through the missing session id.
  }
  const sessionId = events.find((e) => e.session_id)?.session_id;
  const result = events.find((e) => e.type === 'result');
  runs.push({ cwd, args: argv, exitCode: code, sessionId, isError: result?.is_error ?? null });
  if ((code !== 0) !== fails || !sessionId) throw new Error(`qwen ${argv.join(' ')} exited ${code}\n${stderr}\n${stdout.slice(0, 2000)}`);
  return sessionId;
}

/** A JSON-RPC client of `qwen --acp` (the Agent Client Protocol on stdio). */
function acp(cwd) {
  const child = spawn(process.execPath, [qwenJs, '--acp', '--yolo'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let next = 1;
  const pending = new Map();
  const notices = [];
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    if (msg.id !== undefined && !msg.method && pending.has(msg.id)) {
      pending.get(msg.id)(msg);
      pending.delete(msg.id);
    } else if (msg.id !== undefined && msg.method) {
      // The agent asks the client something (a permission, a file): no.
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'not supported by the driver' } })}\n`);
    } else if (msg.method) {
      notices.push(msg.method === 'session/update' ? msg.params.update.sessionUpdate : msg.method);
    }
  });
  const request = (method, params) => new Promise((resolve, reject) => {
    const id = next++;
    const timer = setTimeout(() => reject(new Error(`acp ${method}: no answer\n${stderr}`)), 120_000);
    pending.set(id, (msg) => {
      clearTimeout(timer);
      runs.push({ cwd, acp: method, error: msg.error?.message ?? null });
      if (msg.error) reject(new Error(`acp ${method}: ${JSON.stringify(msg.error)}\n${stderr}`));
      else resolve(msg.result);
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  });
  const close = () => new Promise((resolve) => {
    child.on('close', resolve);
    child.stdin.end();
    child.kill('SIGTERM');
  });
  return { request, close, notices };
}

// Each session: its id, cwd and turns. A turn is the prompt (with the files
// it references that are images) and what the
// model answered, in order: `thinking`, `tool_call` (its id, tool, input, what
// its result should contain and whether it should fail), `text`, `error`
// (a failed request). `compactedBefore`: the summary of a compression made
// before the prompt. A turn a rewind removed stays, with `rewound: true`.
const sessions = new Map();
function session(id, cwd, extra = {}) {
  if (!sessions.has(id)) sessions.set(id, { id, cwd, gitBranch: null, title: null, forkedFrom: null, inherited: [], subagents: [], turns: [], ...extra });
  return sessions.get(id);
}
function turn(s, prompt, { compactedBefore = null, images = [] } = {}) {
  const blocks = [];
  for (const part of script[prompt].flat()) {
    if (part.thinking !== undefined) blocks.push({ type: 'thinking', text: part.thinking });
    if (part.text !== undefined) blocks.push({ type: 'text', text: part.text });
    if (part.status !== undefined) blocks.push({ type: 'error', contains: part.message });
    if (part.tool) blocks.push({ type: 'tool_call', id: part.id, name: part.tool, input: part.args, ...part.expect });
  }
  s.turns.push({ prompt, images, compactedBefore, rewound: false, blocks });
}

let compressed = null;
try {
  // A text answer with thinking, in project alpha.
  const alpha = await qwen(projects.alpha, [P.hello]);
  turn(session(alpha, projects.alpha), P.hello);

  // Forked: a new session that starts with a copy of alpha's records.
  const forked = await qwen(projects.alpha, ['--resume', alpha, '--fork-session', P.fork]);
  const fork = session(forked, projects.alpha, { forkedFrom: alpha, inherited: structuredClone(session(alpha).turns) });
  turn(fork, P.fork);

  // Resumed by id: shell commands (two in one response, one failing), a read
  // that fails and a write.
  const resumed = await qwen(projects.alpha, ['--resume', alpha, P.work]);
  if (resumed !== alpha) throw new Error(`--resume ${alpha} ran session ${resumed}`);
  turn(session(alpha), P.work);

  // Continued (the newest session of the folder): `/compress`, then a prompt.
  const continued = await qwen(projects.alpha, ['--continue', '/compress']);
  if (continued !== alpha) throw new Error(`--continue ran session ${continued}, not ${alpha}`);
  compressed = snapshot;
  await qwen(projects.alpha, ['--continue', P.summary]);
  turn(session(alpha), P.summary, { compactedBefore: compressed });

  // The model request fails: the CLI exits 1.
  await qwen(projects.alpha, ['--continue', P.down], { fails: true });
  turn(session(alpha), P.down);

  // An image referenced from the prompt.
  const pictured = await qwen(projects.gamma, [P.image]);
  turn(session(pictured, projects.gamma), P.image, { images: ['dot.png'] });

  // A subagent in the foreground: its transcript goes to subagents/.
  const helped = await qwen(projects.alpha, [P.helper]);
  const helper = session(helped, projects.alpha);
  turn(helper, P.helper);
  helper.subagents.push({ callId: 'call_agent', agentId: 'general-purpose-call_agent', prompt: P.count, turns: [] });
  turn(helper.subagents[0], P.count);

  // In beta, over ACP: a title from the fast model, a rewind and a rename.
  const client = acp(projects.beta);
  try {
    await client.request('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } } });
    const { sessionId } = await client.request('session/new', { cwd: projects.beta, mcpServers: [] });
    const beta = session(sessionId, projects.beta, { gitBranch });
    const prompt = (t) => client.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: t }] });
    await prompt(P.first);
    turn(beta, P.first);
    await prompt(P.second);
    turn(beta, P.second);
    // Back to before the second prompt: its turn is on a dead branch now.
    await client.request('rewindSession', { sessionId, targetTurnIndex: 1 });
    beta.turns[1].rewound = true;
    await prompt(P.instead);
    turn(beta, P.instead);
    beta.autoTitle = autoTitle;
    await client.request('renameSession', { sessionId, title: manualTitle });
    beta.title = manualTitle;
  } finally {
    await client.close();
  }
} finally {
  await api.close();
}

// ---- What was made.

const files = filesUnder(path.join(qwenHome, 'projects'));

for (const s of sessions.values()) {
  s.path = files.find((p) => p.endsWith(path.join('chats', `${s.id}.jsonl`))) ?? null;
  for (const sub of s.subagents) {
    sub.path = files.find((p) => p.endsWith(path.join('subagents', s.id, `agent-${sub.agentId}.jsonl`))) ?? null;
  }
}

printReport({
  qwenVersion,
  home: root,
  qwenHome,
  api: env.OPENAI_BASE_URL,
  projects,
  sessions: [...sessions.values()],
  files: files.sort(),
}, runs, api.requests);
