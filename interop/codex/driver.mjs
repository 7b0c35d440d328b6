// Runs the real Codex CLI (`codex exec`, from the pinned npm package) against
// the fake Responses API in fake-api.mjs, and prints JSON describing what it
// made: the Codex home, each session (id, cwd, rollout path, and its turns:
// the prompts and what the model answered, reasoning summaries and tool calls
// with whether each should fail), every run and every API request.
//
//   node driver.mjs WORKDIR
//
// WORKDIR gets `.codex/` (the Codex home, as `$HOME/.codex`) and the projects
// the sessions run in. Run it with HOME=WORKDIR so Codex and sess agree on the
// home. Nothing leaves the machine: the model provider is the fake API on
// 127.0.0.1, and update checks, analytics and feedback are off.

import fs from 'node:fs';
import path from 'node:path';

import { writeConfig } from './config.mjs';
import { startFakeApi } from './fake-api.mjs';
import { agentEnv, DOT_PNG, filesUnder, installed, jsonLines, printReport, runProgram } from '../lib/run.mjs';

const { require, version: codexVersion } = installed(import.meta.url, '@openai/codex');
const codexJs = require.resolve('@openai/codex/bin/codex.js');

const workdir = path.resolve(process.argv[2] ?? fs.mkdtempSync('/tmp/sess-codex-'));
const codexHome = path.join(workdir, '.codex');
const projects = { alpha: path.join(workdir, 'projects', 'alpha'), beta: path.join(workdir, 'projects', 'beta') };
for (const dir of [codexHome, ...Object.values(projects)]) fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(projects.beta, 'README.md'), '# beta\n');
// Project instructions, which Codex injects into the conversation.
fs.writeFileSync(path.join(projects.beta, 'AGENTS.md'), '# Beta rules\n\nAlways answer in one line.\n');
// A 1×1 PNG to attach to a prompt.
const image = path.join(projects.alpha, 'dot.png');
fs.writeFileSync(image, DOT_PNG);

// ---- The script: what the fake model answers to each prompt, step by step.

const text = (t) => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: t, annotations: [] }] });
const reasoning = (...parts) => ({ type: 'reasoning', summary: parts.map((t) => ({ type: 'summary_text', text: t })), encrypted_content: null });
// A tool call also says what its output should contain and whether it should
// fail (`expect`, which the fake API does not send).
const exec = (callId, cmd, expect) => ({ type: 'function_call', call_id: callId, name: 'exec_command', arguments: JSON.stringify({ cmd, yield_time_ms: 5000 }), expect });
const patch = (callId, input, expect) => ({ type: 'custom_tool_call', call_id: callId, name: 'apply_patch', input, status: 'completed', expect });

const P = {
  hello: 'Say hello in one short sentence.',
  french: 'Now say it in French.',
  work: 'Check the workspace: echo hi, read a file that is missing, then write notes.txt.',
  summary: 'Summarize what you did in one line.',
  fork: 'Take another path: say goodbye instead.',
  image: 'What is in this picture?',
  down: 'Describe it in more detail.',
};
const addNotes = '*** Begin Patch\n*** Add File: notes.txt\n+first note\n+second note\n*** End Patch\n';
const updateAbsent = '*** Begin Patch\n*** Update File: absent.txt\n@@\n-old\n+new\n*** End Patch\n';
const A = {
  hello: 'Hello from the fake model!',
  french: 'Bonjour de la part du faux modèle !',
  work: 'Done: `echo hi` printed hi, missing.txt does not exist, and notes.txt now has two notes.',
  summary: 'Ran two commands (one failed), added notes.txt, and a patch to absent.txt failed.',
  fork: 'Goodbye from the fork.',
  image: 'A single dot.',
};
// What Codex asks the model for when it compacts the conversation.
const COMPACTION = 'You are performing a CONTEXT CHECKPOINT COMPACTION.…';
const handoff = 'Handoff: ran echo hi, cat missing.txt (failed) and printf; added notes.txt; the patch to absent.txt failed.';
const script = {
  [COMPACTION]: [[text(handoff)]],
  [P.hello]: [[reasoning('**Greeting**\n\nA short hello will do.'), text(A.hello)]],
  [P.french]: [[text(A.french)]],
  [P.work]: [
    [reasoning('**Looking around**\n\nStart with a harmless command.', '**Plan**\n\nThen the missing file, then the notes.'), exec('call_echo', 'echo hi', { output: 'hi\n', fails: false })],
    // Two calls in one response: their outputs come back by call_id.
    [
      exec('call_missing', 'cat missing.txt', { output: 'missing.txt: No such file or directory', fails: true }),
      exec('call_printf', "printf 'a\\nb\\n'", { output: 'a\nb\n', fails: false }),
    ],
    [patch('call_patch_add', addNotes, { output: 'A notes.txt', fails: false })],
    [patch('call_patch_bad', updateAbsent, { output: 'apply_patch verification failed', fails: true })],
    [text(A.work)],
  ],
  [P.summary]: [[reasoning('**Summing up**\n\nOne line.'), text(A.summary)]],
  [P.fork]: [[text(A.fork)]],
  [P.image]: [[text(A.image)]],
  // The model fails: Codex ends the turn with the error.
  [P.down]: [[{ type: 'failure', code: 'server_error', message: 'The fake model is down.' }]],
};

// ---- Running Codex.

const api = await startFakeApi(script);
writeConfig(codexHome, api.port, 'model_reasoning_summary = "auto"\n');

const env = agentEnv({
  HOME: workdir,
  CODEX_HOME: codexHome,
  SESS_FAKE_OPENAI_API_KEY: 'fake-key',
});

const runs = [];
async function codex(cwd, args, { fails = false } = {}) {
  const argv = ['exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', ...args];
  const { code, stdout, stderr } = await runProgram(process.execPath, [codexJs, ...argv], { cwd, env, timeoutMs: 60_000 });
  const events = jsonLines(stdout);
  const threadId = events.find((e) => e.type === 'thread.started')?.thread_id;
  const record = { cwd, args: argv, exitCode: code, threadId, events: events.map((e) => e.item?.type ? `${e.type}:${e.item.type}` : e.type) };
  runs.push(record);
  if ((code !== 0) !== fails || !threadId) throw new Error(`codex ${argv.join(' ')} exited ${code}\n${stderr}\n${stdout}`);
  return threadId;
}

// Each session: its id, cwd and turns. A turn is the prompt (with the images
// attached to it) and what the model answered, in order: `thinking` for each
// reasoning summary part, `tool_call` for each call (its id, tool, input, what
// its output should contain and whether it should fail), `text` for a
// message, `error` for a failed request. A fork also has the turns it
// inherited.
const sessions = new Map();
function session(id, cwd, extra = {}) {
  if (!sessions.has(id)) sessions.set(id, { id, cwd, forkedFrom: null, inherited: [], turns: [], ...extra });
  return sessions.get(id);
}
function turn(s, prompt, images = [], compactedBefore = null) {
  const blocks = [];
  for (const item of script[prompt].flat()) {
    if (item.type === 'message') blocks.push({ type: 'text', text: item.content[0].text });
    if (item.type === 'failure') blocks.push({ type: 'error', contains: item.message });
    if (item.type === 'reasoning') blocks.push(...item.summary.map((part) => ({ type: 'thinking', text: part.text })));
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      const input = item.type === 'function_call' ? JSON.parse(item.arguments) : item.input;
      blocks.push({ type: 'tool_call', id: item.call_id, name: item.name, input, ...item.expect });
    }
  }
  // `compactedBefore`: the summary of a compaction Codex made before the prompt.
  s.turns.push({ prompt, images, compactedBefore, blocks });
}

try {
  // A text answer, in project alpha.
  const alpha = await codex(projects.alpha, [P.hello]);
  turn(session(alpha, projects.alpha), P.hello);

  // Shell commands (one failing, two in one response) and patches (one
  // failing), in project beta.
  const beta = await codex(projects.beta, [P.work]);
  turn(session(beta, projects.beta), P.work);

  // Resumed by id: the same rollout grows.
  const resumed = await codex(projects.alpha, ['resume', alpha, P.french]);
  if (resumed !== alpha) throw new Error(`resume ${alpha} started thread ${resumed}`);
  turn(session(alpha), P.french);

  // Resumed with --last, from beta's folder, with a token limit the last turn
  // went past: Codex compacts the conversation before the prompt.
  const last = await codex(projects.beta, ['resume', '--last', '-c', 'model_auto_compact_token_limit=100', P.summary]);
  turn(session(last), P.summary, [], handoff);

  // Forked: a new thread that starts with a copy of alpha's history.
  const forked = await codex(projects.alpha, ['fork', alpha, P.fork]);
  const fork = session(forked, projects.alpha, { forkedFrom: alpha, inherited: structuredClone(session(alpha).turns) });
  turn(fork, P.fork);

  // A prompt with an image attached.
  const pictured = await codex(projects.alpha, [P.image, '--image', image]);
  turn(session(pictured, projects.alpha), P.image, [image]);

  // Resumed, and the model request fails (codex exits 1).
  await codex(projects.alpha, ['resume', pictured, P.down], { fails: true });
  turn(session(pictured), P.down);
} finally {
  await api.close();
}

// ---- What was made.

const rollouts = filesUnder(path.join(codexHome, 'sessions'), (p) => path.basename(p).startsWith('rollout-'));

for (const s of sessions.values()) {
  s.path = rollouts.find((p) => p.includes(s.id)) ?? null;
}

printReport({
  codexVersion,
  home: workdir,
  codexHome,
  projects,
  sessions: [...sessions.values()],
  rollouts: rollouts.sort(),
}, runs, api.requests);
