// Runs the real GitHub Copilot CLI (`copilot -p`, from the pinned npm package)
// against the fake Chat Completions API in fake-api.mjs, and prints JSON
// describing what it made: each session (id, cwd, title, events file, and its
// turns: the prompts and what the model answered, reasoning and tool calls
// with whether each should fail), what was rewound, every run and every API
// request.
//
//   node driver.mjs ROOT      runs every scenario under ROOT and prints JSON
//   node driver.mjs version   prints the CLI's version
//
// ROOT is $HOME (so the sessions are in ROOT/.copilot/session-state/), ROOT/tmp
// is $TMPDIR and the projects are in ROOT/projects/. Nothing else comes from
// the caller's environment but PATH. Copilot runs as a "bring your own key"
// client of the fake API in offline mode (COPILOT_OFFLINE: no GitHub sign-in,
// telemetry, GitHub MCP server or update checks). Its bundled files, which the
// binary unpacks into $XDG_CACHE_HOME/copilot/ on its first run, are kept in
// the installed node_modules, so they are unpacked once, not once per ROOT.
//
// Compaction and rewind are commands of the interactive CLI, so the driver does
// them through the SDK that ships in the same package (`copilot-sdk/`, which
// runs the same binary as a JSON-RPC server on stdio): it resumes the session,
// compacts it, sends two prompts, rewinds the second and renames the session.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { binary, cacheHome, copilotEnv, launcher, sdk, version } from './cli.mjs';
import { startFakeApi } from './fake-api.mjs';
import { DOT_PNG, jsonLines, printReport, runProgram } from '../lib/run.mjs';

if (process.argv[2] === 'version') {
  // Also unpacks the bundled files into the cache, once.
  const out = execFileSync(process.execPath, [launcher, '--version'], { env: { PATH: process.env.PATH, HOME: process.env.HOME, XDG_CACHE_HOME: cacheHome }, encoding: 'utf8' });
  console.log(out.match(/\d+\.\d+\.\d+\S*?(?=\.?\s)/)?.[0] ?? version);
  process.exit(0);
}

const root = path.resolve(process.argv[2] ?? fs.mkdtempSync('/tmp/sess-copilot-'));
const copilotHome = path.join(root, '.copilot');
const tmp = path.join(root, 'tmp');
const projects = { alpha: path.join(root, 'projects', 'alpha'), beta: path.join(root, 'projects', 'beta') };
for (const dir of [tmp, ...Object.values(projects)]) fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(projects.beta, 'README.md'), '# beta\n');
// A 1×1 PNG to attach to a prompt.
const image = path.join(projects.beta, 'dot.png');
fs.writeFileSync(image, DOT_PNG);

// ---- The script: what the fake model answers to each prompt, step by step.

// A tool call also says whether it should fail (`fails`) and, for a shell
// command, the exit code it should have; the fake API sends neither.
const bash = (id, command, expect) => ({ id, name: 'bash', args: { command, description: `Run ${command}` }, ...expect });
const view = (id, file, expect) => ({ id, name: 'view', args: { path: file }, ...expect });
const patch = (id, input, expect) => ({ id, name: 'apply_patch', input, ...expect });

const P = {
  hello: 'Say hello in one short sentence.',
  french: 'Now say it in French.',
  work: 'Check the workspace: echo hi, read two missing files, then write notes.txt.',
  summary: 'Summarize what you did in one line.',
  oops: 'Oops, wrong question: forget it.',
  image: 'What is in this picture?',
  explore: 'Ask a helper to list the files.',
  sub: 'List the files in the project.',
  down: 'Describe it in more detail.',
};
const A = {
  hello: 'Hello from the fake model!',
  french: 'Bonjour de la part du faux modèle !',
  work: 'Done: `echo hi` printed hi, missing.txt and absent.txt do not exist, and notes.txt has two notes.',
  summary: 'Ran three commands (one exited 1), read a missing file, added notes.txt, and a patch to absent.txt failed.',
  oops: 'No problem, forgotten.',
  image: 'A single dot.',
  sub: 'There are README.md and dot.png.',
  explore: 'The helper found README.md and dot.png.',
};
const addNotes = '*** Begin Patch\n*** Add File: notes.txt\n+first note\n+second note\n*** End Patch\n';
const updateAbsent = '*** Begin Patch\n*** Update File: absent.txt\n@@\n-old\n+new\n*** End Patch\n';
const handoff = 'Handoff: said hello in English and French; ran echo hi and cat missing.txt (exit 1); missing.txt could not be read; added notes.txt; the patch to absent.txt failed.';
const task = { id: 'call_task', name: 'task', args: { agent_type: 'explore', name: 'lister', description: 'List the files', prompt: P.sub }, fails: false };
const script = {
  // What Copilot asks the model for when it compacts the conversation.
  'Please create a detailed summary of the conversation so far.…': [{ text: handoff }],
  [P.hello]: [{ reasoning: 'A short hello will do.', text: A.hello }],
  [P.french]: [{ text: A.french }],
  [P.work]: [
    { reasoning: 'Start with a harmless command.', calls: [bash('call_echo', 'echo hi', { fails: false, exitCode: 0 })] },
    // Two calls in one response: a command that exits 1 (which Copilot counts
    // as a success: the command ran) and a read of a missing file.
    { calls: [bash('call_cat', 'cat missing.txt', { fails: false, exitCode: 1 }), view('call_view', path.join(projects.alpha, 'missing.txt'), { fails: true })] },
    { calls: [patch('call_patch_add', addNotes, { fails: false })] },
    { calls: [patch('call_patch_bad', updateAbsent, { fails: true })] },
    { text: A.work },
  ],
  [P.summary]: [{ reasoning: 'One line.', text: A.summary }],
  [P.oops]: [{ text: A.oops }],
  // Copilot appends the path of an attachment the model cannot see.
  [`${P.image}…`]: [{ text: A.image }],
  [P.explore]: [{ calls: [task] }, { text: A.explore }],
  // The subagent's own conversation.
  [P.sub]: [{ calls: [bash('call_ls', 'ls', { fails: false, exitCode: 0 })] }, { text: A.sub }],
  // The model fails with a status Copilot does not retry.
  [P.down]: [{ fail: { status: 400, message: 'The fake model is down.' } }],
};

// ---- Running Copilot.

const api = await startFakeApi(script);
const baseUrl = `http://127.0.0.1:${api.port}/v1`;
const apiKey = 'sess-fake-provider-key';
const env = copilotEnv({ root, tmp, baseUrl, apiKey });

const runs = [];
async function copilot(cwd, args, { fails = false } = {}) {
  const argv = ['--allow-all-tools', '--output-format', 'json', ...args];
  const { code, stdout, stderr } = await runProgram(process.execPath, [launcher, ...argv], { cwd, env, timeoutMs: 90_000 });
  const events = jsonLines(stdout);
  const sessionId = events.find((e) => e.type === 'result')?.sessionId;
  runs.push({ cwd, args: argv, exitCode: code, sessionId, events: events.filter((e) => !e.ephemeral).map((e) => e.type) });
  if ((code !== 0) !== fails || !sessionId) throw new Error(`copilot ${argv.join(' ')} exited ${code}\n${stderr}\n${stdout}`);
  return sessionId;
}

// Each session: its id, cwd, title and turns. A turn is the prompt (with the
// files attached to it), the model it ran on and what the model answered, in
// order: `thinking`, `tool_call` (id, tool, input, whether it should fail and
// a shell command's exit code), `text`, or `error` for a failed request.
// `compactedBefore` is the summary of a compaction made before the prompt; a
// tool call that ran a subagent has the subagent's `turns`. `rewound` are the
// prompts whose turns were rewound (they are not in the file).
const sessions = new Map();
function session(id, cwd, extra = {}) {
  if (!sessions.has(id)) sessions.set(id, { id, cwd, title: null, named: false, turns: [], rewound: [], ...extra });
  return sessions.get(id);
}
function blocksOf(prompt) {
  const blocks = [];
  for (const step of script[prompt] ?? script[`${prompt}…`]) {
    if (step.reasoning) blocks.push({ type: 'thinking', text: step.reasoning });
    if (step.text) blocks.push({ type: 'text', text: step.text });
    if (step.fail) blocks.push({ type: 'error', contains: step.fail.message });
    for (const call of step.calls ?? []) {
      const block = { type: 'tool_call', id: call.id, name: call.name, input: call.args ?? call.input, fails: call.fails };
      if (call.exitCode !== undefined) block.exitCode = call.exitCode;
      if (call === task) block.turns = [{ prompt: P.sub, model: 'gpt-4o', blocks: blocksOf(P.sub) }];
      blocks.push(block);
    }
  }
  return blocks;
}
function turn(s, prompt, model, { attachments = [], compactedBefore = null } = {}) {
  s.turns.push({ prompt, attachments, model, compactedBefore, blocks: blocksOf(prompt) });
}

try {
  // Alpha: reasoning and a text answer; resumed on another model; resumed
  // again for shell commands, a file read and patches (some failing).
  const alpha = await copilot(projects.alpha, ['-p', P.hello]);
  const a = session(alpha, projects.alpha, { title: P.hello });
  turn(a, P.hello, 'gpt-4o');
  await copilot(projects.alpha, ['--resume', alpha, '--model', 'gpt-4.1', '-p', P.french]);
  turn(a, P.french, 'gpt-4.1');
  await copilot(projects.alpha, ['--resume', alpha, '--model', 'gpt-4o', '-p', P.work]);
  turn(a, P.work, 'gpt-4o');

  // Alpha through the SDK: compacted, then a prompt, then one more that is
  // rewound, then renamed.
  const { CopilotClient, RuntimeConnection, approveAll } = await sdk();
  const client = new CopilotClient({ connection: RuntimeConnection.forStdio({ path: binary, env }), cwd: projects.alpha });
  try {
    const live = await client.resumeSession(alpha, {
      onPermissionRequest: approveAll,
      workingDirectory: projects.alpha,
      model: 'gpt-4o',
      provider: { type: 'openai', baseUrl, apiKey },
    });
    const compacted = await live.rpc.history.compact({});
    if (!compacted.success) throw new Error(`compaction failed: ${JSON.stringify(compacted)}`);
    await live.sendAndWait({ prompt: P.summary });
    turn(a, P.summary, 'gpt-4o', { compactedBefore: handoff });
    await live.sendAndWait({ prompt: P.oops });
    const points = await live.rpc.history.listRewindPoints();
    const point = points.points.findLast((p) => p.userMessage === P.oops);
    const rewound = await live.rpc.history.rewind({ eventId: point.eventId, mode: 'conversation' });
    if (rewound.outcome !== 'success') throw new Error(`rewind failed: ${JSON.stringify(rewound)}`);
    a.rewound.push(P.oops);
    // Renamed, as `/rename NAME` does.
    await live.rpc.name.set({ name: 'Greetings and checks' });
    a.title = 'Greetings and checks';
    a.named = true;
    await live.disconnect();
  } finally {
    await client.stop();
  }

  // Beta, named with -n: an attached image; resumed for a subagent; resumed
  // again, and the model request fails (copilot exits 1).
  const beta = await copilot(projects.beta, ['-n', 'Picture questions', '--attachment', image, '-p', P.image]);
  const b = session(beta, projects.beta, { title: 'Picture questions', named: true });
  turn(b, P.image, 'gpt-4o', { attachments: [image] });
  await copilot(projects.beta, ['--resume', beta, '-p', P.explore]);
  turn(b, P.explore, 'gpt-4o');
  await copilot(projects.beta, ['--resume', beta, '-p', P.down], { fails: true });
  turn(b, P.down, 'gpt-4o');
} finally {
  await api.close();
}

// ---- What was made.

const stateDir = path.join(copilotHome, 'session-state');
for (const s of sessions.values()) {
  const dir = path.join(stateDir, s.id);
  s.path = fs.existsSync(path.join(dir, 'events.jsonl')) ? path.join(dir, 'events.jsonl') : null;
  s.workspace = fs.existsSync(path.join(dir, 'workspace.yaml')) ? path.join(dir, 'workspace.yaml') : null;
}
// What each tool call gave back to the model, by call id.
const toolResults = {};
for (const request of api.requests) for (const output of request.outputs ?? []) toolResults[output.id] = output.output;

printReport({
  copilotVersion: version,
  home: root,
  copilotHome,
  projects,
  sessions: [...sessions.values()],
  toolResults,
}, runs, api.requests);
