// Runs an agent of OpenCode's family — OpenCode itself, or Kilo, its fork —
// (`<agent> run` and `<agent> serve`, the native binary of the pinned npm
// package) against the fake Chat Completions API in fake-api.mjs, and prints
// JSON describing what it made: the data folder and its database, each
// session (id, cwd, title, parent, and its turns: the prompts and what the
// model answered, reasoning and tool calls with whether each should fail),
// every run and every API request. The drivers (`opencode/driver.mjs`,
// `kilo/driver.mjs`) name the agent: what differs between the two is below
// in `Agent`.
//
// The root is the home (`HOME=ROOT`; the agent keeps its data in
// ROOT/.local/share/<name> and reads ROOT/.config/<name>/<name>.json) and
// holds the projects the sessions run in. Only PATH comes from the
// environment. Nothing leaves the machine: the model provider is the fake API
// on 127.0.0.1, the models.dev catalog fetch, auto-update and sharing are off,
// and the config folder is laid out as the agent leaves it after installing
// its plugin package, so it does not install one from npm.

import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { startFakeApi } from './fake-api.mjs';
import { agentEnv, DOT_PNG, filesUnder, installed, jsonLines, printReport, runProgram } from '../lib/run.mjs';

/**
 * @typedef {object} Agent
 * @property {string} name      its command, data and config folder name (`opencode`, `kilo`)
 * @property {string} package   the npm package of its linux-x64 binary
 * @property {string} plugin    the plugin package it installs into its config folder
 * @property {string} env       the prefix of its environment variables (`OPENCODE`, `KILO`)
 * @property {string} database  its database's name in the data folder
 * @property {boolean} [untitledRuns]  whether a session that only `run` wrote may keep its
 *   placeholder title (Kilo asks for a title from its server alone, after a turn there)
 * @property {number} [timeoutMs]  how long one run may take (90 s; a server's start, 60 s)
 */

/**
 * Runs `agent`, installed next to the module at `moduleUrl` (in its folder
 * `subdir`), in the home `rootArg` (a new temporary folder when missing),
 * and prints the report.
 */
export async function drive(agent, moduleUrl, { subdir = '.', rootArg } = {}) {
const { require, version } = installed(moduleUrl, agent.package, subdir);
// The native binary of the platform package (see setup).
const binary = path.join(path.dirname(require.resolve(`${agent.package}/package.json`)), 'bin', agent.name);

const root = path.resolve(rootArg ?? fs.mkdtempSync(`/tmp/sess-${agent.name}-`));
const configDir = path.join(root, '.config', agent.name);
const dataDir = path.join(root, '.local', 'share', agent.name);
const projects = { alpha: path.join(root, 'projects', 'alpha'), beta: path.join(root, 'projects', 'beta') };
for (const dir of [configDir, ...Object.values(projects)]) fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(projects.beta, 'README.md'), '# beta\n');
// Project instructions, which the agent adds to the system prompt.
fs.writeFileSync(path.join(projects.beta, 'AGENTS.md'), '# Beta rules\n\nAlways answer in one line.\n');
// A 1×1 PNG to attach to a prompt.
const image = path.join(projects.alpha, 'dot.png');
fs.writeFileSync(image, DOT_PNG);
// Alpha is a git repository (the agent names its project by the first
// commit); beta is a plain folder (the `global` project).
const git = (...args) => execFileSync('git', args, {
  cwd: projects.alpha,
  env: { PATH: process.env.PATH, HOME: root, GIT_AUTHOR_NAME: 'Dev', GIT_AUTHOR_EMAIL: 'dev@example.com', GIT_COMMITTER_NAME: 'Dev', GIT_COMMITTER_EMAIL: 'dev@example.com', GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' },
  stdio: 'ignore',
});
git('init', '-q', '-b', 'main');
git('add', 'dot.png');
git('commit', '-q', '-m', 'init');

// ---- The script: what the fake model answers to each prompt, step by step.

const P = {
  hello: 'Say hello in one short sentence.',
  french: 'Now say it in French.',
  work: 'Check the workspace: echo hi, read a file that is missing, print two lines, write notes.txt, then fix absent.txt.',
  summary: 'Summarize what you did in one line.',
  resume: 'Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.',
  fork: 'Take another path: say goodbye instead.',
  image: 'What is in this picture?',
  down: 'Describe it in more detail.',
  delegate: 'Ask a helper to count the files here.',
  helper: 'Count the files in the current folder and report the number.',
  undo: 'Write a haiku about rain.',
  compact: 'Say one more thing before we compact.',
};
const A = {
  hello: 'Hello from the fake model!',
  french: 'Bonjour de la part du faux modèle !',
  work: 'Done: echo printed hi, missing.txt does not exist, printf printed two lines, notes.txt has two notes, and absent.txt could not be edited.',
  summary: 'Ran two commands, read a missing file (failed), wrote notes.txt and failed to edit absent.txt.',
  resume: 'Nothing left to do.',
  fork: 'Goodbye from the fork.',
  image: 'A single dot.',
  delegate: 'The helper counted 3 files.',
  helper: 'There are 3 files.',
  undo: 'Rain on the tin roof / a kettle starts to whistle / the cat does not move',
  compact: 'One more thing: the sky is blue.',
};
const titles = {
  [P.hello]: 'Greeting the fake model',
  [P.work]: 'Workspace check',
  [P.image]: 'A picture of a dot',
  [P.delegate]: 'Counting files with a helper',
  [P.undo]: 'Rain haiku',
};
const compaction = '## Goal\nCheck the workspace.\n\n## Done\nRan echo hi and printf, read missing.txt (failed), wrote notes.txt, failed to edit absent.txt.';
const notes = path.join(projects.beta, 'notes.txt');
const missing = path.join(projects.beta, 'missing.txt');
const absent = path.join(projects.beta, 'absent.txt');
// A tool call also says what its output should contain and whether it should
// fail (`expect`, which the fake API does not send).
const call = (id, name, input, expect) => ({ type: 'tool_call', id, name, input, expect });
const turns = {
  [P.hello]: [[{ type: 'reasoning', text: 'A short hello will do.' }, { type: 'text', text: A.hello }]],
  [P.french]: [[{ type: 'text', text: A.french }]],
  [P.work]: [
    [{ type: 'reasoning', text: 'Start with a harmless command.' }, call('call_echo', 'bash', { command: 'echo hi', description: 'Print hi' }, { output: 'hi', fails: false })],
    // Two calls in one response: their results come back by id.
    [
      call('call_missing', 'read', { filePath: missing }, { output: 'File not found', fails: true }),
      call('call_printf', 'bash', { command: "printf 'a\\nb\\n'", description: 'Print two lines' }, { output: 'a\nb', fails: false }),
    ],
    [call('call_write', 'write', { filePath: notes, content: 'first note\nsecond note\n' }, { output: 'Wrote file successfully', fails: false })],
    [call('call_edit', 'edit', { filePath: absent, oldString: 'old', newString: 'new' }, { output: 'not found', fails: true })],
    [{ type: 'text', text: A.work }],
  ],
  // The answer reports a prompt bigger than the model's context: OpenCode
  // compacts the session after the turn and goes on with a synthetic prompt.
  [P.summary]: [[{ type: 'text', text: A.summary }, { type: 'usage', prompt_tokens: 30000 }]],
  [P.resume]: [[{ type: 'text', text: A.resume }]],
  [P.fork]: [[{ type: 'text', text: A.fork }]],
  [P.image]: [[{ type: 'text', text: A.image }]],
  // The model fails: OpenCode ends the turn with the error.
  [P.down]: [[{ type: 'failure', status: 400, message: 'The fake model is down.' }]],
  [P.delegate]: [
    [call('call_task', 'task', { description: 'Count files', prompt: P.helper, subagent_type: 'general' }, { output: A.helper, fails: false })],
    [{ type: 'text', text: A.delegate }],
  ],
  [P.helper]: [[{ type: 'text', text: A.helper }]],
  [P.undo]: [[{ type: 'text', text: A.undo }]],
  [P.compact]: [[{ type: 'text', text: A.compact }]],
};

// ---- Running the agent.

const api = await startFakeApi({ titles, compaction, turns });
const model = 'fake/fake-model';
fs.writeFileSync(path.join(configDir, `${agent.name}.json`), JSON.stringify({
  $schema: 'https://opencode.ai/config.json',
  autoupdate: false,
  share: 'disabled',
  model,
  small_model: model,
  provider: {
    fake: {
      npm: '@ai-sdk/openai-compatible',
      name: 'Fake Chat Completions API',
      options: { baseURL: `http://127.0.0.1:${api.port}/v1`, apiKey: 'fake-key' },
      // A small context, so that one answer can report going past it.
      models: { 'fake-model': { name: 'Fake Model', reasoning: true, attachment: true, tool_call: true, limit: { context: 20000, output: 4000 } } },
    },
  },
}, null, 2));
// The agent installs its plugin package (OpenCode's `@opencode-ai/plugin`)
// into each config folder with npm unless the folder has a node_modules and
// a package.json and lock that already list it.
const pluginDeps = { dependencies: { [agent.plugin]: version } };
fs.writeFileSync(path.join(configDir, 'package.json'), JSON.stringify(pluginDeps, null, 2));
fs.writeFileSync(path.join(configDir, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { '': pluginDeps } }, null, 2));
fs.mkdirSync(path.join(configDir, 'node_modules'), { recursive: true });

const env = agentEnv({
  HOME: root,
  [`${agent.env}_DISABLE_MODELS_FETCH`]: '1',
  [`${agent.env}_DISABLE_AUTOUPDATE`]: '1',
  [`${agent.env}_DISABLE_SHARE`]: '1',
  // Before 1.2, the default plugins (provider logins) install from npm.
  [`${agent.env}_DISABLE_DEFAULT_PLUGINS`]: '1',
  // Kilo's usage statistics (PostHog), which it would send on exit.
  [`${agent.env}_TELEMETRY_LEVEL`]: 'off',
  // Should OpenCode still reach for npm, it reaches the fake API, which
  // records the request as unexpected.
  npm_config_registry: `http://127.0.0.1:${api.port}/npm/`,
});

const runs = [];
/** `<agent> run` in `cwd`; resolves to the session id of its events. */
async function runAgent(cwd, prompt, args = [], { fails = false } = {}) {
  // `run` joins its words with spaces and quotes a word that has one, so
  // the prompt goes word by word to arrive as written.
  const argv = ['run', '--format', 'json', ...args, '--', ...prompt.split(' ')];
  const { code, stdout, stderr } = await runProgram(binary, argv, { cwd, env, timeoutMs: agent.timeoutMs ?? 90_000 });
  const events = jsonLines(stdout);
  const sessionId = events.find((e) => e.sessionID)?.sessionID;
  const failed = code !== 0 || events.some((e) => e.type === 'error');
  runs.push({ cwd, args: argv, exitCode: code, sessionId, events: events.map((e) => e.type) });
  if (failed !== fails || !sessionId) throw new Error(`${agent.name} ${argv.join(' ')} exited ${code}\n${stderr}\n${stdout}`);
  return sessionId;
}

/** `<agent> serve` in `cwd`; resolves to `{url, close}`. */
function serve(cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['serve', '--hostname', '127.0.0.1', '--port', '0'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${agent.name} serve did not start: ${out}`)); }, agent.timeoutMs ?? 60_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1],
          close: () => new Promise((done) => { child.on('close', done); child.kill('SIGTERM'); }),
        });
      }
    });
    child.stderr.on('data', (d) => { out += d; });
    child.on('error', reject);
  });
}

async function post(server, route, body) {
  const res = await fetch(`${server.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${route}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}
async function get(server, route) {
  const res = await fetch(`${server.url}${route}`);
  if (!res.ok) throw new Error(`GET ${route}: ${res.status} ${await res.text()}`);
  return res.json();
}

// Each session: its id, cwd, title, parent (of a subagent's session), the
// session it was forked from (whose turns it inherited), its compactions
// (`auto` or asked for, the summary, and how many turns came before), the
// prompt it was reverted to before (/undo), and its turns. A turn is the
// prompt (with the images attached to it; `synthetic` when OpenCode wrote it)
// and what the model answered, in order: `thinking`, `tool_call` (its id,
// tool, input, what its output should contain and whether it should fail),
// `text`, `error` for a failed request.
const sessions = new Map();
function session(id, cwd, extra = {}) {
  if (!sessions.has(id)) sessions.set(id, { id, cwd, title: null, parentId: null, forkedFrom: null, inherited: [], compactions: [], revertedFrom: null, turns: [], ...extra });
  return sessions.get(id);
}
function turn(s, prompt, { images = [], synthetic = false } = {}) {
  const blocks = [];
  for (const item of turns[prompt].flat()) {
    if (item.type === 'text') blocks.push({ type: 'text', text: item.text });
    if (item.type === 'reasoning') blocks.push({ type: 'thinking', text: item.text });
    if (item.type === 'failure') blocks.push({ type: 'error', contains: item.message });
    if (item.type === 'tool_call') blocks.push({ type: 'tool_call', id: item.id, name: item.name, input: item.input, ...item.expect });
  }
  s.turns.push({ prompt, images, synthetic, blocks });
}

try {
  // A reasoning answer, in project alpha (a git repository).
  const alpha = await runAgent(projects.alpha, P.hello);
  turn(session(alpha, projects.alpha), P.hello);

  // Resumed by id: the same session grows.
  const resumed = await runAgent(projects.alpha, P.french, ['--session', alpha]);
  if (resumed !== alpha) throw new Error(`--session ${alpha} ran session ${resumed}`);
  turn(session(alpha), P.french);

  // Tool calls (two in one response; a read and an edit that fail), in
  // project beta.
  const beta = await runAgent(projects.beta, P.work);
  turn(session(beta, projects.beta), P.work);

  // Continued with --continue from beta's folder. The answer reports a prompt
  // past the model's context: OpenCode compacts the session (a user message
  // with a compaction part, then the summary) and goes on by itself with a
  // synthetic prompt.
  const last = await runAgent(projects.beta, P.summary, ['--continue']);
  if (last !== beta) throw new Error(`--continue ran session ${last}, not ${beta}`);
  turn(session(beta), P.summary);
  session(beta).compactions.push({ auto: true, summary: compaction, afterTurns: session(beta).turns.length });
  turn(session(beta), P.resume, { synthetic: true });

  // Forked: a new session that starts with a copy of alpha's messages.
  const forked = await runAgent(projects.alpha, P.fork, ['--session', alpha, '--fork']);
  if (forked === alpha) throw new Error('--fork continued the session itself');
  const fork = session(forked, projects.alpha, { forkedFrom: alpha, inherited: structuredClone(session(alpha).turns) });
  turn(fork, P.fork);

  // A prompt with an image attached.
  const pictured = await runAgent(projects.alpha, P.image, ['--file', image]);
  turn(session(pictured, projects.alpha), P.image, { images: [image] });

  // Resumed, and the model request fails.
  await runAgent(projects.alpha, P.down, ['--session', pictured], { fails: true });
  turn(session(pictured), P.down);

  // A subagent: the task tool runs a child session of its own.
  const delegating = await runAgent(projects.beta, P.delegate);
  turn(session(delegating, projects.beta), P.delegate);

  // The rest goes through the server the TUI talks to: /compact, and /undo.
  const server = await serve(projects.alpha);
  try {
    const q = `?directory=${encodeURIComponent(projects.alpha)}`;
    // Whether the agent compacted beta after the turn past the context, as
    // its own server shows the session (Kilo does not: it would compact
    // before the session's next prompt, and there is none).
    const betaMessages = await get(server, `/session/${beta}/message?directory=${encodeURIComponent(projects.beta)}`);
    if (!betaMessages.some((m) => (m.parts ?? []).some((p) => p.type === 'compaction'))) {
      session(beta).compactions = session(beta).compactions.filter((c) => !c.auto);
      session(beta).turns = session(beta).turns.filter((t) => !t.synthetic);
      session(beta).autoCompacted = false;
    }

    const children = await get(server, `/session/${delegating}/children?directory=${encodeURIComponent(projects.beta)}`);
    if (children.length !== 1) throw new Error(`${delegating} has ${children.length} child sessions`);
    const child = session(children[0].id, projects.beta, { parentId: delegating });
    turn(child, P.helper);

    // /compact on alpha after one more turn: a compaction the user asked for.
    await post(server, `/session/${alpha}/message${q}`, { parts: [{ type: 'text', text: P.compact }] });
    turn(session(alpha), P.compact);
    await post(server, `/session/${alpha}/summarize${q}`, { providerID: 'fake', modelID: 'fake-model', auto: false });
    session(alpha).compactions.push({ auto: false, summary: compaction, afterTurns: session(alpha).turns.length });

    // /undo: the last prompt is reverted. The messages stay in the database,
    // and the session's `revert` names the first one undone.
    const undone = (await post(server, `/session${q}`, {})).id;
    await post(server, `/session/${undone}/message${q}`, { parts: [{ type: 'text', text: P.hello }] });
    const reply = await post(server, `/session/${undone}/message${q}`, { parts: [{ type: 'text', text: P.undo }] });
    const s = session(undone, projects.alpha);
    turn(s, P.hello);
    turn(s, P.undo);
    await post(server, `/session/${undone}/revert${q}`, { messageID: reply.info.parentID });
    s.revertedFrom = { messageId: reply.info.parentID, prompt: P.undo };

    // The titles OpenCode gave the sessions: the fake model's for a new
    // session, the subagent's task description, the parent's for a fork.
    for (const s of sessions.values()) {
      const info = await get(server, `/session/${s.id}?directory=${encodeURIComponent(s.cwd)}`);
      const scripted = s.forkedFrom || s.parentId ? null : titles[s.turns[0].prompt];
      const untitled = agent.untitledRuns && info.title.startsWith('New session - ');
      if (scripted && info.title !== scripted && !untitled) throw new Error(`${s.id} is titled ${JSON.stringify(info.title)}, not ${JSON.stringify(scripted)}`);
      s.title = info.title;
    }
  } finally {
    await server.close();
  }
} finally {
  await api.close();
}

// ---- What was made.

const files = filesUnder(dataDir);

printReport({
  [`${agent.name}Version`]: version,
  home: root,
  dataDir,
  database: path.join(dataDir, agent.database),
  projects,
  sessions: [...sessions.values()],
  files: files.sort(),
}, runs, api.requests);
}
