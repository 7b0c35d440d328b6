// Runs the real Factory Droid CLI (the pinned native binary from the npm
// registry) against the fake chat-completions API of ../qwen-code/fake-api.mjs,
// as a custom model (Droid's "bring your own key": no Factory account), and
// prints JSON describing what it made: the Factory home, each session (id,
// cwd, file, its prompts and what the model answered, tool calls and whether
// each should fail, the files it edited), every run and every API request.
//
//   node driver.mjs ROOT
//   node driver.mjs version      prints the pinned version
//
// ROOT gets `.factory/` (the Factory home, as `$HOME/.factory`) and the
// projects the sessions run in. The CLI runs with HOME=ROOT and no other
// variable from the environment but PATH. Nothing leaves the machine: the
// model is the fake API on 127.0.0.1.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { startFakeApi } from '../qwen-code/fake-api.mjs';
import { agentEnv, filesUnder, installed, printReport } from '../lib/run.mjs';

const { require, version } = installed(import.meta.url, '@factory/cli-linux-x64');
const droid = path.join(path.dirname(require.resolve('@factory/cli-linux-x64/package.json')), 'bin', 'droid');

if (process.argv[2] === 'version') {
  console.log(version);
  process.exit(0);
}

const root = path.resolve(process.argv[2] ?? fs.mkdtempSync('/tmp/sess-droid-'));
const home = path.join(root, '.factory');
const projects = { alpha: path.join(root, 'projects', 'alpha'), beta: path.join(root, 'projects', 'beta') };
for (const dir of [home, ...Object.values(projects)]) fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(projects.alpha, 'notes.txt'), 'alpha\nbeta\n');

// ---- The script: what the fake model answers to each prompt, step by step.

const text = (t) => ({ text: t });
const thinking = (t) => ({ thinking: t });
// A tool call also says whether it should fail (`expect`, not sent).
const call = (id, tool, args, expect = 'ok') => ({ tool, id, args, expect });

const notes = path.join(projects.alpha, 'notes.txt');
const absent = path.join(projects.alpha, 'absent.txt');
const todo = path.join(projects.alpha, 'todo.md');
const P = {
  work: 'Tidy the notes: print them, read absent.txt, rename beta to gamma, add a todo file, and ask a helper to count the notes.',
  count: 'Count the lines of notes.txt and answer with the number only.',
  summary: 'Summarize what you did in one line.',
  hello: 'Say hello in one short sentence.',
};
const A = {
  work: 'Done: notes.txt now says gamma, todo.md is new, and absent.txt does not exist.',
  summary: 'Printed and edited notes.txt, created todo.md; the helper could not start.',
  hello: 'Hello from the fake model!',
};
const script = {
  [P.work]: [
    [thinking('I should look at the notes first.'), text('Checking the notes.'),
      call('call_exec_1', 'Execute', { summary: 'Print the notes file', command: 'cat notes.txt', riskLevel: 'low', riskLevelReason: 'It only reads a file' }),
      call('call_read_1', 'Read', { file_path: absent }, 'fail')],
    [call('call_edit_1', 'Edit', { file_path: notes, old_str: 'beta', new_str: 'gamma' }),
      call('call_create_1', 'Create', { file_path: todo, content: '- ship it\n' })],
    // `droid exec` has no daemon to run a subagent in: the call fails.
    [call('call_task_1', 'Task', { subagent_type: 'explorer', description: 'Count the notes', prompt: P.count }, 'fail')],
    [text(A.work)],
  ],
  [P.summary]: [[text(A.summary)]],
  [P.hello]: [[thinking('A greeting.'), text(A.hello)]],
};

const api = await startFakeApi(script);
fs.writeFileSync(path.join(home, 'settings.json'), JSON.stringify({
  customModels: [{ model: 'fake-model', displayName: 'Fake', baseUrl: `http://127.0.0.1:${api.port}/v1`, apiKey: 'fake-key', provider: 'generic-chat-completion-api', maxOutputTokens: 4096 }],
}, null, 2));

const runs = [];
// One `droid exec` with `prompts` as its turns: the first as the argument, or,
// for more than one, each a JSON line on stdin (`--input-format stream-json`,
// the CLI's multi-turn mode; resuming a saved session with `-s` asks Factory's
// servers for the session and fails without an account).
function exec(project, prompts) {
  const args = ['exec', '--auto', 'high', '-m', 'custom:fake-model'];
  if (prompts.length > 1) args.push('--input-format', 'stream-json', '-o', 'stream-json');
  else args.push('-o', 'json', prompts[0]);
  return new Promise((resolve, reject) => {
    const child = spawn(droid, args, { cwd: project, env: agentEnv({ HOME: root }), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const ids = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => { try { return JSON.parse(l).session_id; } catch { return undefined; } });
      const sessionId = ids.find((id) => id) ?? null;
      runs.push({ prompts, code, sessionId, stderr: stderr.slice(-2000) });
      resolve(sessionId);
    });
    if (prompts.length > 1) for (const prompt of prompts) child.stdin.write(`${JSON.stringify({ role: 'user', content: prompt })}\n`);
    child.stdin.end();
  });
}

const work = await exec(projects.alpha, [P.work, P.summary]);
const hello = await exec(projects.beta, [P.hello]);
await api.close();

const sessionsDir = path.join(home, 'sessions');
const files = filesUnder(sessionsDir, (p) => p.endsWith('.jsonl'));
const fileOf = (id) => files.find((f) => path.basename(f) === `${id}.jsonl`) ?? null;
const sessions = [
  { id: work, cwd: projects.alpha, file: fileOf(work), turns: [
    { prompt: P.work, answer: A.work, thinking: ['I should look at the notes first.'], tools: script[P.work].flat().filter((p) => p.tool).map(({ tool, id, expect }) => ({ tool, id, expect })) },
    { prompt: P.summary, answer: A.summary, thinking: [], tools: [] },
  ], edits: [notes, todo] },
  { id: hello, cwd: projects.beta, file: fileOf(hello), turns: [{ prompt: P.hello, answer: A.hello, thinking: ['A greeting.'], tools: [] }] },
];
printReport({ version, home, projects, files: files.map((f) => path.relative(root, f)), sessions }, runs, api.requests);
