// Runs the real Continue CLI (`cn`, from the pinned npm package) headless
// against the fake chat-completions API in fake-api.mjs, copies the session
// files it wrote into ROOT/recorded/ (with `record`: into
// fixtures/continue/real-<version>/), and prints JSON describing the runs:
// where the sessions went, every run and every request, and what `sess`
// should find in the copies (`checks`).
//
//   node driver.mjs [ROOT]          ROOT is the HOME; it gets .continue/, moved/, tmp/, project/ and recorded/
//   node driver.mjs record [ROOT]   the same, the copies made in the repository's fixtures
//   node driver.mjs version         prints the pinned version
//
// `cn` runs with HOME=ROOT and no other variable from the environment
// but PATH; its config (ROOT/.continue/config.yaml, passed with
// --config) names one `provider: openai` model whose `apiBase` is the fake
// API on 127.0.0.1, with a dummy key. One more session runs with
// CONTINUE_GLOBAL_DIR=ROOT/moved, to see where that sends it. In the copies
// ROOT is replaced by /home/dev (the files are JSON and ROOT has no
// character JSON escapes, so nothing else changes).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { startFakeApi } from './fake-api.mjs';
import { agentEnv, filesUnder, installed, printReport, runProgram } from '../lib/run.mjs';

const { require, version } = installed(import.meta.url, '@continuedev/cli');
const cnJs = path.join(path.dirname(require.resolve('@continuedev/cli/package.json')), 'dist', 'cn.js');

if (process.argv[2] === 'version') {
  console.log(version);
  process.exit(0);
}

const record = process.argv[2] === 'record';
const rootArg = record ? process.argv[3] : process.argv[2];
const root = path.resolve(rootArg ?? fs.mkdtempSync('/tmp/sess-continue-'));
const home = root;
const moved = path.join(root, 'moved');
const tmp = path.join(root, 'tmp');
const project = path.join(root, 'project');
for (const dir of [path.join(home, '.continue'), moved, tmp, project]) fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(project, 'notes.txt'), 'first note\nsecond note\n');

const P = {
  edit: 'Read notes.txt, then change its second line to "edited note".',
  fail: 'Now cat missing.txt in the shell.',
  after: 'What did we do so far, in one line?',
  auto: 'One more thing: list the folder.',
  fork: 'On this branch: say goodbye.',
  moved: 'Say hello from the moved folder.',
};
const call = (id, tool, args) => ({ tool, id, args });
const notes = path.join(project, 'notes.txt');
const script = {
  [P.edit]: [
    [{ text: 'Reading it first.' }, call('call_read', 'Read', { filepath: notes })],
    // gpt-4o is offered MultiEdit, not Edit.
    [call('call_edit', 'MultiEdit', { file_path: notes, edits: [{ old_string: 'second note', new_string: 'edited note' }] })],
    [{ text: 'notes.txt now says "edited note" on its second line.' }],
  ],
  [P.fail]: [
    [call('call_cat', 'Bash', { command: 'cat missing.txt' })],
    [{ text: 'missing.txt does not exist.' }],
  ],
  'Please provide a concise summary of our conversation so far…': [
    [{ text: 'Summary: notes.txt was read and its second line edited; cat missing.txt failed.' }],
  ],
  [P.after]: [[{ text: 'We edited notes.txt and found that missing.txt is absent.' }]],
  // The request an automatic compaction is followed by holds no user
  // message; then the CLI adds its own "continue".
  '': [[{ text: 'Picking up after the summary.' }]],
  continue: [[{ text: 'Continuing from the summary.' }]],
  [P.auto]: [[{ text: 'The folder holds notes.txt.' }]],
  [P.fork]: [[{ text: 'Goodbye from the fork.' }]],
  [P.moved]: [[{ text: 'Hello from the moved folder.' }]],
};

const api = await startFakeApi(script);
// config.yaml names the model; config-small.yaml the same model with a
// context small enough (2500 tokens, 200 for the answer) that the next
// request of the session starts an automatic compaction.
const model = [
  'name: Local fake',
  'version: 1.0.0',
  'schema: v1',
  'models:',
  '  - name: Fake',
  '    provider: openai',
  '    model: gpt-4o',
  `    apiBase: http://127.0.0.1:${api.port}/v1`,
  '    apiKey: fake-key',
  '    roles: [chat, edit, apply, summarize]',
];
const config = path.join(home, '.continue', 'config.yaml');
const smallConfig = path.join(home, '.continue', 'config-small.yaml');
fs.writeFileSync(config, `${model.join('\n')}\n`);
fs.writeFileSync(smallConfig, `${[...model, '    defaultCompletionOptions:', '      contextLength: 2500', '      maxTokens: 200'].join('\n')}\n`);

const runs = [];
const sessionsDir = path.join(home, '.continue', 'sessions');
const movedDir = path.join(moved, 'sessions');
const sessionFiles = () => [...filesUnder(sessionsDir), ...filesUnder(movedDir)].sort();
const ids = (dir) => fs.readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'sessions.json').map((f) => f.slice(0, -5));
// The session files after each run, whole (`snapshots`), to see how a
// resume, a compaction and a fork rewrite them.
const snapshots = [];

/**
 * Runs `cn -p --auto --config CONFIG ARGS…` in the project (with `extraEnv`
 * added to its environment); `label` names its snapshot.
 */
async function cn(label, args, { extraEnv = {}, configFile = config } = {}) {
  const env = agentEnv({ HOME: home, TMPDIR: tmp, ...extraEnv });
  const argv = ['-p', '--auto', '--config', configFile, ...args];
  const { code, stdout, stderr } = await runProgram(process.execPath, [cnJs, ...argv], { cwd: project, env, timeoutMs: 120_000 });
  const files = sessionFiles();
  const shapes = files.filter((f) => !f.endsWith('sessions.json')).map((f) => {
    const s = JSON.parse(fs.readFileSync(f, 'utf8'));
    return {
      file: path.relative(root, f),
      title: s.title,
      history: s.history.map((h) => `${h.message.role}${h.conversationSummary !== undefined ? '+summary' : ''}${h.toolCallStates ? `[${h.toolCallStates.map((t) => `${t.toolCall.function.name}:${t.status}`).join(',')}]` : ''}`),
    };
  });
  runs.push({ label, args: argv, env: extraEnv, exitCode: code, stdout: stdout.trim().slice(0, 400), stderr: stderr.trim().slice(0, 400), sessions: shapes });
  snapshots.push({ label, files: files.map((f) => ({ file: f, text: fs.readFileSync(f, 'utf8') })) });
  if (code !== 0) throw new Error(`cn ${argv.join(' ')} exited ${code}\n${stderr}\n${stdout}`);
}

let first;
let forked;
try {
  await cn('1-new', [P.edit]);
  [first] = ids(sessionsDir);
  await cn('2-resume', ['--resume', P.fail]);
  await cn('3-compact', ['--resume', '/compact']);
  await cn('4-resume-after-compact', ['--resume', P.after]);
  await cn('5-auto-compact', ['--resume', P.auto], { configFile: smallConfig });
  await cn('6-fork', ['--fork', first, P.fork]);
  forked = ids(sessionsDir).find((id) => id !== first);
  await cn('7-moved', [P.moved], { extraEnv: { CONTINUE_GLOBAL_DIR: moved } });
} finally {
  await api.close();
}

// ---- What `sess` should find in the copies below: for each folder that
// CONTINUE_GLOBAL_DIR may name (relative to the copies), each session's id,
// cwd and messages (a tool call's result given by a part of it).
const text = (t) => ({ type: 'text', text: t });
const tool = (name, status, result) => ({ type: 'tool_call', name, status, result });
const say = (role, ...blocks) => ({ role, blocks });
const summary = script['Please provide a concise summary of our conversation so far…'][0][0].text;
const compacted = [
  say('system', { type: 'summary', text: summary }),
  say('assistant', text('Picking up after the summary.')),
  say('user', text('continue')),
  say('assistant', text('Continuing from the summary.')),
];
const cwd = '/home/dev/project';
const checks = [
  {
    dir: 'steps/2-resume/continue-home',
    sessions: [{ id: first, cwd, messages: [
      say('user', text(P.edit)),
      say('assistant', text('Reading it first.'), tool('Read', 'succeeded', 'second note')),
      say('assistant', tool('MultiEdit', 'succeeded', 'Successfully edited /home/dev/project/notes.txt')),
      say('assistant', text('notes.txt now says "edited note" on its second line.')),
      say('user', text(P.fail)),
      say('assistant', tool('Bash', 'failed', 'cat: missing.txt: No such file or directory')),
      say('assistant', text('missing.txt does not exist.')),
    ] }],
  },
  {
    dir: 'continue-home',
    sessions: [
      { id: first, cwd, messages: compacted },
      { id: forked, cwd, messages: [...compacted, say('user', text(P.fork)), say('assistant', text('Goodbye from the fork.'))] },
    ],
  },
  {
    dir: 'moved',
    sessions: [{ id: ids(movedDir)[0], cwd, messages: [say('user', text(P.moved)), say('assistant', text('Hello from the moved folder.'))] }],
  },
];

// ---- Copy what was written: the final files under continue-home/ (for
// ~/.continue) and moved/ (for CONTINUE_GLOBAL_DIR), the
// files each run changed under steps/<label>/, and this report (with the
// script) as scenario.json.
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = record ? path.join(repo, 'fixtures', 'continue', `real-${version}`) : path.join(root, 'recorded');
const scrub = (text) => text.split(root).join('/home/dev').split(`127.0.0.1:${api.port}`).join('127.0.0.1:8080');
const where = (file) => (file.startsWith(moved) ? path.join('moved', path.relative(moved, file)) : path.join('continue-home', path.relative(path.join(home, '.continue'), file)));
fs.rmSync(out, { recursive: true, force: true });
const copies = [];
const copy = (target, text) => {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, scrub(text));
  copies.push(path.relative(record ? repo : root, target));
};
const written = sessionFiles();
for (const file of written) copy(path.join(out, where(file)), fs.readFileSync(file, 'utf8'));
const seen = new Map();
for (const { label, files } of snapshots) {
  for (const { file, text } of files) {
    if (seen.get(file) !== text) copy(path.join(out, 'steps', label, where(file)), text);
    seen.set(file, text);
  }
}

const report = {
  version,
  root,
  sessionsWrittenTo: [...new Set(written.map((f) => path.dirname(f)))],
  otherFilesInContinueHomes: [...filesUnder(path.join(home, '.continue')), ...filesUnder(moved)].filter((f) => !written.includes(f)).map((f) => path.relative(root, f)),
  first,
  forked,
  copies,
  sessions: [...new Set(checks.flatMap((c) => c.sessions.map((s) => s.id)))],
  checks,
  prompts: P,
  script,
};
fs.writeFileSync(path.join(out, 'scenario.json'), `${scrub(JSON.stringify({ ...report, runs, requests: api.requests }, null, 2))}\n`);
printReport(report, runs, api.requests);
