// Runs the real Gemini CLI for two prompts that are not what the user typed:
// a slash command (`gemini -p /init`, whose expansion is what the CLI sends,
// with `/init` as the turn's `displayContent`), and the CLI's own "Please
// continue.", which it sends when its next-speaker check (on here:
// `model.skipNextSpeakerCheck: false`; 0.61.0 skips it by default) has the
// model say that it speaks next. The fake API in fake-api.mjs answers the
// expansion with a function call and then a text that says what the model
// does next; the check with `next_speaker: "model"` until the conversation
// holds a "Please continue.", then `"user"`. It runs `gemini -p /init` in
// project gamma, and `/init` typed into the interactive UI (interactive.mjs)
// in project delta: the two record the continuation differently.
//
//   node commands.mjs WORKDIR      runs the scenario under WORKDIR (as HOME) and prints JSON
//
// The report has the shape of driver.mjs's, so fixtures.mjs turns it into
// fixtures.

import fs from 'node:fs';
import path from 'node:path';

import { startFakeApi } from './fake-api.mjs';
import { filesUnder, printReport, runProgram } from '../lib/run.mjs';
import { geminiEnv, geminiJs, geminiVersion, writeSettings } from './cli.mjs';
import { interactive } from './interactive.mjs';


const workdir = path.resolve(process.argv[2] ?? fs.mkdtempSync('/tmp/sess-gemini-'));
const geminiHome = path.join(workdir, '.gemini');
const tmp = path.join(workdir, 'tmp');
const projects = { gamma: path.join(workdir, 'projects', 'gamma'), delta: path.join(workdir, 'projects', 'delta') };
for (const dir of [geminiHome, tmp, ...Object.values(projects)]) fs.mkdirSync(dir, { recursive: true });
for (const [name, dir] of Object.entries(projects)) fs.writeFileSync(path.join(dir, 'README.md'), `# ${name}\n`);

/** The start of what `/init` expands to (the CLI's `performInit`). */
const INIT = '\nYou are an AI agent that brings the power of Gemini directly into the terminal.';
/** What the CLI sends on its own after the check. */
const CONTINUE = 'Please continue.';
const A = {
  next: 'I listed the folder: README.md. Next, I will write GEMINI.md from it.',
  done: (project) => `GEMINI.md now describes the ${project} project.`,
};
const text = (t) => ({ text: t });
const verdict = (speaker) => [{ parts: [text(JSON.stringify({ reasoning: `The ${speaker} speaks next.`, next_speaker: speaker }))] }];
const script = {
  [`${INIT}…`]: [
    { parts: [{ functionCall: { id: 'call_init_ls', name: 'list_directory', args: { dir_path: '.' } } }] },
    { parts: [text(A.next)] },
  ],
  // The project is the one the session context names.
  [CONTINUE]: (_prompt, contents) => {
    const project = JSON.stringify(contents).includes(projects.delta) ? 'delta' : 'gamma';
    return [{ parts: [text(A.done(project))] }];
  },
  // The next-speaker check: the model goes on once, then it is the user's turn.
  'Analyze *only* the content and structure of your immediately preceding response…': (_prompt, contents) => {
    const continued = contents.some((c) => c.role === 'user' && (c.parts ?? []).some((p) => p.text === CONTINUE));
    return verdict(continued ? 'user' : 'model');
  },
};

const MODEL = 'gemini-2.5-flash';
const api = await startFakeApi(script);
// The next-speaker check on.
writeSettings(geminiHome, { skipNextSpeakerCheck: false });
const env = geminiEnv({ workdir, tmp, port: api.port });

const runs = [];
const ids = {};
try {
  // `-p /init`: the tool's turn is sent without a `displayContent`, and so
  // is the "Please continue." after it.
  const argv = ['-m', MODEL, '-o', 'json', '--yolo', '-p', '/init'];
  const { code, stdout, stderr } = await runProgram(process.execPath, [geminiJs, ...argv], { cwd: projects.gamma, env, timeoutMs: 120_000 });
  let output = null;
  try { output = JSON.parse(stdout.slice(stdout.indexOf('{'))); } catch { output = null; }
  runs.push({ cwd: projects.gamma, args: argv, exitCode: code, sessionId: output?.session_id ?? null });
  if (code !== 0 || !output) throw new Error(`gemini ${argv.join(' ')} exited ${code}\n${stderr}\n${stdout}`);
  ids.gamma = output.session_id;

  // `/init` typed into the interactive UI (in a pseudo-terminal): the UI sends
  // the tool's turn with the function responses as its `displayContent`,
  // which the "Please continue." after it keeps.
  const uiArgv = ['-m', MODEL, '--yolo'];
  const ui = interactive({ geminiJs, argv: uiArgv, cwd: projects.delta, env });
  await ui.waitFor(/Type your message/);
  // The UI loads its slash commands after it draws the input box; a command
  // typed before they are loaded is sent to the model as text.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  await ui.prompt('/init');
  await ui.waitFor(/GEMINI\.md now describes the delta project/);
  const uiExit = await ui.close();
  ids.delta = /gemini --resume ([0-9a-f-]{36})/.exec(ui.screen())?.[1];
  runs.push({ cwd: projects.delta, args: uiArgv, interactive: true, exitCode: uiExit, sessionId: ids.delta ?? null });
  if (!ids.delta) throw new Error(`the UI did not say which session it was:\n${ui.screen().slice(-2000)}`);
} finally {
  await api.close();
}

const files = filesUnder(path.join(geminiHome, 'tmp'), (p) => /\.jsonl?$/.test(p) && p.includes(`${path.sep}chats${path.sep}`));
const session = (name) => {
  const id = ids[name];
  return {
    id,
    cwd: projects[name],
    path: files.find((p) => p.endsWith(`-${id.slice(0, 8)}.jsonl`)) ?? null,
    turns: [
      {
        prompt: '/init',
        expandsTo: INIT,
        blocks: [
          { type: 'tool_call', step: 0, id: 'call_init_ls', name: 'list_directory', args: { dir_path: '.' }, fails: false, output: 'README.md' },
          { type: 'text', step: 1, text: A.next },
        ],
      },
      { prompt: CONTINUE, sentBy: 'the CLI', blocks: [{ type: 'text', step: 0, text: A.done(name) }] },
    ],
  };
};
printReport({
  geminiVersion,
  model: MODEL,
  home: workdir,
  geminiHome,
  projects,
  sessions: [session('gamma'), session('delta')],
  files: files.sort(),
}, runs, api.requests);
