// Runs the real Gemini CLI (from the pinned npm package: `gemini -p`, and its
// interactive UI in a pseudo-terminal for `/rewind`) against the fake Gemini
// API in fake-api.mjs, and prints JSON describing what it made:
// the Gemini home, each session (id, project, file and turns: the prompts and
// what the model answered, thoughts and tool calls with whether each should
// fail), every run and every API request.
//
//   node driver.mjs WORKDIR
//
// WORKDIR gets `.gemini/` (the Gemini home, as `$HOME/.gemini`), a `tmp/` for
// the CLI's temporary files and the projects the sessions run in. Run it with
// HOME=WORKDIR so the CLI and sess agree on the home. Nothing leaves the
// machine: the API is the fake one on 127.0.0.1, usage statistics, telemetry
// and update checks are off, and any other connection goes to a proxy that
// refuses it (and is reported).

import fs from 'node:fs';
import path from 'node:path';

import { startFakeApi } from './fake-api.mjs';
import { DOT_PNG, filesUnder, printReport, runProgram } from '../lib/run.mjs';
import { geminiEnv, geminiJs, geminiVersion, writeSettings } from './cli.mjs';
import { interactive, KEY } from './interactive.mjs';
import { script, P, A, SUB, SUMMARY, TITLE, calls } from './script.mjs';

const workdir = path.resolve(process.argv[2] ?? fs.mkdtempSync('/tmp/sess-gemini-'));
const geminiHome = path.join(workdir, '.gemini');
const tmp = path.join(workdir, 'tmp');
const projects = { alpha: path.join(workdir, 'projects', 'alpha'), beta: path.join(workdir, 'projects', 'beta') };
for (const dir of [geminiHome, tmp, ...Object.values(projects)]) fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(projects.beta, 'README.md'), '# beta\n');
// A 1×1 PNG to attach to a prompt with `@dot.png`.
fs.writeFileSync(path.join(projects.beta, 'dot.png'), DOT_PNG);

const MODEL = 'gemini-2.5-flash';
const api = await startFakeApi(script);
writeSettings(geminiHome);
const env = geminiEnv({ workdir, tmp, port: api.port });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** The current minute, as the CLI names session files. */
const minute = () => new Date().toISOString().slice(0, 16);
/** A pattern matching `text` as it is. */
const literal = (text) => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

const runs = [];
/** Runs `gemini ARGS` in `cwd`; resolves to its parsed `-o json` output (or stdout). */
async function gemini(cwd, args, { fails = false, json = true } = {}) {
  const argv = ['-m', MODEL, ...(json ? ['-o', 'json'] : []), ...args];
  const { code, stdout, stderr } = await runProgram(process.execPath, [geminiJs, ...argv], { cwd, env, timeoutMs: 120_000 });
  let output = stdout;
  if (json) {
    // A failed run prints its JSON (the session id and the error) on stderr.
    const printed = stdout.includes('{') ? stdout : stderr.slice(stderr.lastIndexOf('\n{\n') + 1);
    try { output = JSON.parse(printed.slice(printed.indexOf('{'))); } catch { output = null; }
  }
  runs.push({ cwd, args: argv, exitCode: code, sessionId: output?.session_id ?? null, error: output?.error?.message ?? null });
  if ((code !== 0) !== fails || (json && !output)) throw new Error(`gemini ${argv.join(' ')} exited ${code}\n${stderr}\n${stdout}`);
  return output;
}

// Each session: its id, project, the title `--list-sessions` should give it,
// and its turns. A turn is the prompt and what the model answered, in order,
// each block with the step (the model request) that gave it: `thinking` for
// each thought, `tool_call` for each call (its id, tool, arguments, what its
// result should hold and whether it should fail), `text`, and `error` for a
// request that failed. Besides, a turn may say: `images` attached to the prompt,
// `compressedBefore` (the step before which the CLI compressed the history,
// and the `summary` it kept), `rewound` (taken back with `/rewind`),
// `withdrawn` (its failed request made the CLI take the prompt out of the
// conversation; `errorRecorded` when the CLI also wrote the error into the
// file, as the UI does) and `subagent` (the subagent a call started: its
// agent, prompt, result and turns).
const sessions = new Map();
function session(id, cwd) {
  if (!sessions.has(id)) sessions.set(id, { id, cwd, expectedTitle: null, title: null, turns: [] });
  return sessions.get(id);
}
function blocksOf(prompt) {
  const blocks = [];
  script[prompt].forEach((answer, step) => {
    if (answer.error) blocks.push({ type: 'error', step, contains: answer.error.message });
    for (const part of answer.parts ?? []) {
      if (part.thought) blocks.push({ type: 'thinking', step, text: part.text });
      else if (part.text !== undefined) blocks.push({ type: 'text', step, text: part.text });
      else if (part.functionCall) {
        const { id, name, args } = part.functionCall;
        blocks.push({ type: 'tool_call', step, id, name, args, ...calls[id] });
      }
    }
  });
  return blocks;
}
function turn(s, prompt, extra = {}) {
  s.turns.push({ prompt, ...extra, blocks: blocksOf(prompt) });
  if (TITLE[prompt]) s.expectedTitle = TITLE[prompt];
}

try {
  // Tools, in project beta: a shell command and a missing file in one
  // response (the second fails), then a file written.
  const b = (await gemini(projects.beta, ['--yolo', '-p', P.work])).session_id;
  turn(session(b, projects.beta), P.work);
  const bMinute = minute();

  // A thought and an answer, in project alpha.
  const a = (await gemini(projects.alpha, ['-p', P.hello])).session_id;
  turn(session(a, projects.alpha), P.hello);

  // Resumed by id: the same file grows.
  const a2 = (await gemini(projects.alpha, ['--resume', a, '-p', P.french])).session_id;
  if (a2 !== a) throw new Error(`--resume ${a} ran session ${a2}`);
  turn(session(a), P.french);

  // A subagent: the model invokes `generalist`, which lists the folder and
  // completes its task in a session file of its own.
  const c = (await gemini(projects.alpha, ['--yolo', '-p', P.delegate])).session_id;
  turn(session(c, projects.alpha), P.delegate, { subagent: { ...SUB, turns: [{ prompt: SUB.prompt, blocks: blocksOf(SUB.prompt) }] } });

  // Resumed with `latest`, in a later minute than the session's file was
  // named for (the runs above take most of one): the CLI also leaves a file
  // named for this minute that holds no conversation. The prompt attaches an
  // image and a text file with `@dot.png` and `@README.md`.
  while (minute() === bMinute) await sleep(1000);
  const b2 = (await gemini(projects.beta, ['--resume', 'latest', '-p', P.image])).session_id;
  if (b2 !== b) throw new Error(`--resume latest ran session ${b2}, not ${b}`);
  turn(session(b), P.image, { images: ['dot.png'], files: { 'README.md': '# beta' } });

  // Resumed, and the model request fails: the CLI exits with the error.
  await gemini(projects.beta, ['--resume', b, '-p', P.down], { fails: true });
  turn(session(b), P.down, { withdrawn: true, errorRecorded: false });

  // Resumed in alpha: the model's first answer reports a prompt past the
  // compression threshold, so the CLI compresses the history first.
  await gemini(projects.alpha, ['--resume', a, '--yolo', '-p', P.compress]);
  turn(session(a), P.compress, { compressedBefore: 1, summary: SUMMARY });

  // The interactive UI: two prompts, `/rewind` to before the second one
  // (the rewound prompt comes back in the input box; it is replaced by
  // another), and a request that fails, which the UI records as an error.
  const ui = interactive({ geminiJs, argv: ['-m', MODEL], cwd: projects.alpha, env });
  await ui.waitFor(/Type your message/);
  for (const [prompt, answer] of [[P.count, A.count], [P.five, A.five]]) {
    await ui.prompt(prompt);
    await ui.waitFor(literal(answer));
  }
  await ui.prompt('/rewind');
  await ui.waitFor(/Stay at current position/);
  await ui.type(KEY.up);
  await ui.type(KEY.enter);
  await ui.waitFor(/Confirm Rewind/);
  await ui.type(KEY.enter, 1000);
  await ui.type(KEY.clearLine);
  await ui.prompt(P.german);
  await ui.waitFor(literal(A.german));
  await ui.prompt(P.ten);
  await ui.waitFor(/cannot count that far/);
  const uiExit = await ui.close();
  const d = /gemini --resume ([0-9a-f-]{36})/.exec(ui.screen())?.[1];
  runs.push({ cwd: projects.alpha, args: ['-m', MODEL], interactive: true, exitCode: uiExit, sessionId: d ?? null });
  if (!d) throw new Error(`the UI did not say which session it was:\n${ui.screen().slice(-2000)}`);
  const dSession = session(d, projects.alpha);
  turn(dSession, P.count);
  turn(dSession, P.five, { rewound: true });
  turn(dSession, P.german);
  turn(dSession, P.ten, { withdrawn: true, errorRecorded: true });

  // Titles: `--list-sessions` has the model title the newest session that
  // has none yet, one per run.
  for (let i = 0; i < 3; i++) await gemini(projects.alpha, ['--list-sessions'], { json: false });
  await gemini(projects.beta, ['--list-sessions'], { json: false });
} finally {
  await api.close();
}

// ---- What was made.

const files = filesUnder(path.join(geminiHome, 'tmp'), (p) => /\.jsonl?$/.test(p) && p.includes(`${path.sep}chats${path.sep}`));

const records = (file) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
for (const s of sessions.values()) {
  // A session's files are named for its id's first 8 characters. A resume in
  // a later minute than the file's also leaves a file of that minute that
  // holds no conversation (`strays`).
  const named = files.filter((p) => path.basename(p).startsWith('session-') && p.endsWith(`-${s.id.slice(0, 8)}.jsonl`));
  const prompt = JSON.stringify(s.turns[0].prompt);
  s.path = named.find((p) => fs.readFileSync(p, 'utf8').includes(prompt)) ?? null;
  s.strays = named.filter((p) => p !== s.path);
  const summary = s.path ? records(s.path).reverse().find((r) => r.$set?.summary !== undefined) : null;
  s.title = summary ? summary.$set.summary : null;
  for (const t of s.turns.filter((t) => t.subagent)) {
    const call = s.path ? records(s.path).flatMap((r) => r.toolCalls ?? []).find((c) => c.agentId) : null;
    t.subagent.id = call?.agentId ?? null;
    t.subagent.path = files.find((p) => call && p.endsWith(`${path.sep}${call.agentId}.jsonl`)) ?? null;
  }
}

printReport({
  geminiVersion,
  model: MODEL,
  home: workdir,
  geminiHome,
  projects,
  sessions: [...sessions.values()],
  files: files.sort(),
}, runs, api.requests);
