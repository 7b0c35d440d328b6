// Runs the real Aider (the pinned `aider-chat` in its venv, made by `setup`)
// against the fake chat-completions API in fake-api.mjs, and prints JSON
// describing what it made: every run (its folder, arguments, prompts, exit
// code), the files Aider wrote beside the projects, and every API request.
//
//   node driver.mjs ROOT
//   node driver.mjs version      prints the installed version
//
// ROOT is HOME (Aider keeps `~/.aider/` there) and gets `repo/` (a git
// repository with a commit, whose runs start in its subfolder `repo/sub/`),
// `plain/` (not a repository) and `moved/` (where the last run is told to
// keep its history). Aider runs with no variable from the environment but
// PATH. Nothing leaves the machine but
// Aider's own look-up of litellm's model prices on GitHub, which fails (no
// network) and which Aider then does without; update checks and analytics
// are off.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { startFakeApi } from './fake-api.mjs';
import { agentEnv, filesUnder, printReport, runProgram } from '../lib/run.mjs';

// The venv `setup` made, linked next to this driver (the driver may run with
// another HOME than the one it was installed under).
const venv = path.join(path.dirname(fileURLToPath(import.meta.url)), 'venv');
const aider = path.join(venv, 'bin', 'aider');
if (!fs.existsSync(aider)) {
  console.error(`interop/aider/driver.mjs: no Aider in ${venv} (run interop/aider/setup)`);
  process.exit(1);
}
const pinned = fs.readFileSync(path.join(venv, '.pinned'), 'utf8').trim();
const printed = spawnSync(aider, ['--version'], { encoding: 'utf8', env: { PATH: process.env.PATH } }).stdout.trim();
const aiderVersion = printed.replace(/^aider /, '');
if (aiderVersion !== pinned) {
  console.error(`interop/aider/driver.mjs: Aider says ${JSON.stringify(printed)}, setup pinned ${pinned}`);
  process.exit(1);
}
if (process.argv[2] === 'version') {
  console.log(aiderVersion);
  process.exit(0);
}

const root = path.resolve(process.argv[2] ?? fs.mkdtempSync('/tmp/sess-aider-'));
const home = root;
const repo = path.join(root, 'repo');
const sub = path.join(repo, 'sub');
const plain = path.join(root, 'plain');
const moved = path.join(root, 'moved');
for (const dir of [sub, plain, moved]) fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(repo, 'greet.txt'), 'hello world\n');
const gitRun = (...args) => spawnSync('git', ['-c', 'user.name=dev', '-c', 'user.email=dev@example.com', ...args], { cwd: repo, env: { PATH: process.env.PATH, HOME: home } }).status === 0;
if (!(gitRun('init', '-q', '-b', 'main') && gitRun('add', 'greet.txt') && gitRun('commit', '-q', '-m', 'start'))) throw new Error('git init failed');

// ---- The script: what the fake model answers to each prompt.

const P = {
  hello: 'Say hello in one short sentence.',
  edit: 'Change hello to goodbye in greet.txt.',
  badEdit: 'Now change the word moon to sun in greet.txt.',
  propose: 'Which command lists the files?',
  summary: 'Summarize what you did in one line.',
  plain: 'Say hello from a folder without git.',
  moved: 'Say hello with the history moved.',
};
const fence = '```';
const A = {
  hello: 'Hello from the fake model!',
  edit: `I will change the greeting.\n\ngreet.txt\n${fence}\n<<<<<<< SEARCH\nhello world\n=======\ngoodbye world\n>>>>>>> REPLACE\n${fence}\n`,
  badEdit: `Changing moon to sun.\n\ngreet.txt\n${fence}\n<<<<<<< SEARCH\nhello moon\n=======\nhello sun\n>>>>>>> REPLACE\n${fence}\n`,
  // Aider's answer to its own report of the failed block (a reflection).
  reflected: 'There is no moon in greet.txt, so there is nothing to change.',
  propose: `This lists them:\n\n${fence}bash\nls -a\n${fence}\n`,
  summary: 'Said hello, ran two commands (one failed), changed the greeting, and one edit did not match.',
  // The chat history's summary (Aider's compaction), asked for on resume.
  compacted: 'I greeted you, ran `echo hi` and `cat missing.txt` (which failed), and changed hello to goodbye in greet.txt.',
  plain: 'Hello from a plain folder!',
  moved: 'Hello from the moved history!',
};
const script = {
  [P.hello]: A.hello,
  [P.edit]: A.edit,
  [P.badEdit]: A.badEdit,
  '# 1 SEARCH/REPLACE block failed to match!…': A.reflected,
  [P.propose]: A.propose,
  [P.summary]: A.summary,
  '# USER\n…': A.compacted,
  '# ASSISTANT\n…': A.compacted,
  [P.plain]: A.plain,
  [P.moved]: A.moved,
};

// ---- Running Aider.

const api = await startFakeApi(script);
const base = `http://127.0.0.1:${api.port}/v1`;
const env = agentEnv({ HOME: home, OPENAI_API_KEY: 'fake-key', OPENAI_API_BASE: base });
const common = [
  '--model', 'openai/fake-model',
  '--edit-format', 'diff',
  '--yes-always',
  '--no-check-update', '--no-show-release-notes', '--analytics-disable', '--no-show-model-warnings',
  '--no-gitignore', '--no-auto-commits', '--map-tokens', '0',
  '--no-fancy-input', '--no-pretty',
];

const runs = [];

/**
 * Runs `aider COMMON… ARGS…` in `cwd` with `input` lines on its stdin (the
 * chat, one prompt or command a line; Aider exits at its end), and `vars`
 * added to the environment.
 */
async function run(name, cwd, args, input = [], vars = {}) {
  const argv = [...common, ...args];
  const started = Date.now();
  const { code, stdout, stderr } = await runStdin(aider, argv, { cwd, env: { ...env, ...vars }, input: input.map((l) => `${l}\n`).join('') });
  runs.push({ name, cwd, args, env: vars, input, exitCode: code, ms: Date.now() - started });
  if (code !== 0) throw new Error(`aider ${argv.join(' ')} exited ${code}\n${stderr}\n${stdout.slice(-3000)}`);
  return stdout;
}

/** `runProgram`, but with `input` written to the program's stdin. */
function runStdin(command, args, { cwd, env: vars, input }) {
  return runProgram('/bin/sh', ['-c', 'printf %s "$AIDER_DRIVER_INPUT" | "$0" "$@"', command, ...args], { cwd, env: { ...vars, AIDER_DRIVER_INPUT: input }, timeoutMs: 180_000 });
}

const outputs = {};
try {
  // 1. A chat of several turns in the repository's subfolder, with greet.txt
  // in the chat: a text answer, a command that works and one that fails
  // (both outputs added to the chat), an edit that applies, one whose SEARCH
  // does not match (Aider reports it to the model, which answers), and a
  // shell command the model proposes (not run: --yes-always declines them).
  outputs.chat = await run('chat', sub, ['--llm-history-file', path.join(repo, '.aider.llm.history'), path.join('..', 'greet.txt')], [
    P.hello,
    '/run echo hi',
    '/run cat missing.txt',
    P.edit,
    P.badEdit,
    P.propose,
  ]);
  // 2. Resumed: the history restored from the markdown file, summarized
  // first because it is over the (lowered) limit of the chat history, then a
  // prompt given with --message.
  outputs.resumed = await run('resumed', sub, ['--llm-history-file', path.join(repo, '.aider.llm.history'), '--restore-chat-history', '--max-chat-history-tokens', '200', '--message', P.summary]);
  // 3. A folder that is not a git repository.
  outputs.plain = await run('plain', plain, ['--no-git', '--message', P.plain]);
  // 4. The same folder, the chat history moved by flag and the input
  // history by environment variable.
  outputs.moved = await run('moved', plain, ['--no-git', '--chat-history-file', path.join(moved, 'chat.md'), '--message', P.moved], [], {
    AIDER_INPUT_HISTORY_FILE: path.join(moved, 'input.txt'),
  });
} finally {
  await api.close();
}

// ---- What was made.

const files = filesUnder(root, (p) => !p.includes(`${path.sep}.git${path.sep}`)).sort();

printReport({
  aiderVersion,
  // Each run is a session of its chat history.
  sessions: runs.map((r) => ({ name: r.name, cwd: r.cwd })),
  aider,
  home,
  api: base,
  folders: { repo, sub, plain, moved },
  script,
  greetAfter: fs.readFileSync(path.join(repo, 'greet.txt'), 'utf8'),
  files,
  outputs,
}, runs, api.requests);
