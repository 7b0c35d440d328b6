// Resumes a session `sess handoff` wrote, in the real target agent, against
// that agent's fake model API, with one more prompt, and prints what the
// first request to the model held.
//
//   node driver.mjs claude HOME CWD ID PROMPT
//   node driver.mjs codex HOME CWD ID PROMPT
//   node driver.mjs qwen HOME CWD ID PROMPT
//   node driver.mjs gemini HOME CWD ID PROMPT
//   node driver.mjs gemini-init HOME CWD
//   node driver.mjs pi HOME CWD FILE PROMPT
//
// HOME is the home `sess handoff` wrote in (Claude Code's config folder is
// HOME/.claude, the Codex home HOME/.codex). The agent runs in CWD, the
// session's directory, with nothing from the caller's environment but PATH.
// The Gemini CLI 0.61.0 runs `-o json --resume ID PROMPT` against its fake
// Gemini API (`HOME/.gemini/settings.json` as its own driver writes it);
// `gemini-init` runs it once in CWD first, so that it names the folder it
// keeps for CWD (a handoff to it needs that). Qwen Code 0.24.4 runs `--resume ID -p PROMPT` against its fake
// chat-completions API (`HOME/.qwen/settings.json` as its own driver writes
// it). pi is pi-mono 0.73.1's CLI (`pi -p --session FILE`), its model a provider
// of `~/.pi/agent/models.json` that speaks the Messages API to Claude Code's
// fake API. It prints JSON: the agent's version and exit code, and the
// conversation of its first request: Claude Code's and pi's `messages`
// (Messages API), Qwen Code's `messages` (chat completions), the Gemini
// CLI's `contents` (Gemini API) or Codex's `input` (Responses API).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { claudeBinary, claudeEnv } from '../claude-code/claude.mjs';
import { startFakeApi as fakeMessagesApi } from '../claude-code/fake-api.mjs';
import { writeConfig } from '../codex/config.mjs';
import { startFakeApi as fakeResponsesApi } from '../codex/fake-api.mjs';
import { startFakeApi as fakeCompletionsApi } from '../qwen-code/fake-api.mjs';
import { geminiEnv, geminiJs, geminiVersion, writeSettings } from '../gemini/cli.mjs';
import { startFakeApi as fakeGeminiApi } from '../gemini/fake-api.mjs';
import { agentEnv, installed, runProgram } from '../lib/run.mjs';

const [target, home, cwd, id, prompt] = process.argv.slice(2);
if (!prompt && target !== 'gemini-init') {
  console.error('usage: node driver.mjs claude|codex|qwen|gemini|pi HOME CWD ID PROMPT, or gemini-init HOME CWD');
  process.exit(2);
}
/** What the fake model answers the new prompt. */
const ANSWER = 'Picking up where the other agent left off.';

async function claude() {
  const binary = claudeBinary();
  const api = await fakeMessagesApi({ [prompt]: [[{ type: 'text', text: ANSWER }]] }, { keepMessages: true });
  const tmp = path.join(home, 'tmp');
  fs.mkdirSync(tmp, { recursive: true });
  const env = claudeEnv({ home, configDir: path.join(home, '.claude'), tmp, port: api.port });
  try {
    const version = (await runProgram(binary, ['--version'], { cwd, env, timeoutMs: 60_000 })).stdout.trim().split(' ')[0];
    const args = ['-p', prompt, '--resume', id, '--output-format', 'json'];
    const run = await runProgram(binary, args, { cwd, env, timeoutMs: 120_000 });
    const first = api.requests.find((r) => r.path === '/v1/messages' && r.messages);
    return { version, exitCode: run.code, stderr: run.stderr, stdout: run.stdout, messages: first?.messages ?? null };
  } finally {
    await api.close();
  }
}

async function codex() {
  const codexDir = new URL('../codex/driver.mjs', import.meta.url).href;
  const { require, version } = installed(codexDir, '@openai/codex');
  const codexJs = require.resolve('@openai/codex/bin/codex.js');
  const api = await fakeResponsesApi({ [prompt]: [[{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: ANSWER, annotations: [] }] }]] }, { keepInput: true });
  const codexHome = path.join(home, '.codex');
  fs.mkdirSync(codexHome, { recursive: true });
  writeConfig(codexHome, api.port);
  const env = agentEnv({ HOME: home, CODEX_HOME: codexHome, SESS_FAKE_OPENAI_API_KEY: 'fake-key' });
  try {
    const args = ['exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', 'resume', id, prompt];
    const run = await runProgram(process.execPath, [codexJs, ...args], { cwd, env, timeoutMs: 120_000 });
    const first = api.requests.find((r) => r.input);
    return { version, exitCode: run.code, stderr: run.stderr, stdout: run.stdout, input: first?.input ?? null };
  } finally {
    await api.close();
  }
}

async function qwen() {
  const qwenDir = new URL('../qwen-code/driver.mjs', import.meta.url).href;
  const { require, version } = installed(qwenDir, '@qwen-code/qwen-code');
  const qwenJs = require.resolve('@qwen-code/qwen-code/cli-entry.js');
  const api = await fakeCompletionsApi({ [prompt]: [[{ text: ANSWER }]] }, { keepMessages: true });
  const qwenHome = path.join(home, '.qwen');
  fs.mkdirSync(qwenHome, { recursive: true });
  const settings = {
    security: { auth: { selectedType: 'openai' } },
    model: { name: 'qwen3.5-plus' },
    memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { enableAutoUpdate: false },
    ui: { enableFollowupSuggestions: false },
  };
  fs.writeFileSync(path.join(qwenHome, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  const tmp = path.join(home, 'tmp');
  fs.mkdirSync(tmp, { recursive: true });
  const env = agentEnv({
    HOME: home,
    TMPDIR: tmp,
    OPENAI_MODEL: 'qwen3.5-plus',
    OPENAI_BASE_URL: `http://127.0.0.1:${api.port}/v1`,
    OPENAI_API_KEY: 'fake-key',
    QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
  });
  try {
    const args = [qwenJs, '--yolo', '--output-format', 'json', '--resume', id, prompt];
    const run = await runProgram(process.execPath, args, { cwd, env, timeoutMs: 120_000 });
    const first = api.requests.find((r) => r.messages);
    return { version, exitCode: run.code, stderr: run.stderr, stdout: run.stdout, messages: first?.messages ?? null };
  } finally {
    await api.close();
  }
}

/** Runs the Gemini CLI in CWD with `args` against a fake API answering PROMPT; resolves to its report. */
async function runGemini(args) {
  const api = await fakeGeminiApi({ [prompt]: [{ parts: [{ text: ANSWER }] }] }, { keepContents: true });
  const geminiHome = path.join(home, '.gemini');
  const tmp = path.join(home, 'tmp');
  for (const dir of [geminiHome, tmp]) fs.mkdirSync(dir, { recursive: true });
  writeSettings(geminiHome);
  const env = geminiEnv({ workdir: home, tmp, port: api.port });
  try {
    const run = await runProgram(process.execPath, [geminiJs, '-m', 'gemini-2.5-flash', '-o', 'json', ...args], { cwd, env, timeoutMs: 120_000 });
    // The first request whose last content holds the prompt (after a turn
    // that ends with the user's, the CLI sends both in one content).
    const first = api.requests.find((r) => r.contents?.at(-1)?.parts?.some((p) => p.text === prompt));
    return { version: geminiVersion, exitCode: run.code, stderr: run.stderr, stdout: run.stdout, contents: first?.contents ?? null };
  } finally {
    await api.close();
  }
}

const gemini = () => runGemini(['--resume', id, prompt]);
// Once in CWD, so that the CLI names its folder for it (the prompt is the third argument).
const geminiInit = () => runGemini([id ?? 'Hello.']);

async function pi() {
  // The package exports no `package.json`: it is found by its folder.
  const pkg = fileURLToPath(new URL('../peers/pi-mono/node_modules/@mariozechner/pi-coding-agent/', import.meta.url));
  const { version } = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8'));
  const cli = path.join(pkg, 'dist', 'cli.js');
  const api = await fakeMessagesApi({ [prompt]: [[{ type: 'text', text: ANSWER }]] }, { keepMessages: true });
  const agentDir = path.join(home, '.pi', 'agent');
  fs.mkdirSync(agentDir, { recursive: true });
  const models = {
    providers: {
      fake: {
        baseUrl: `http://127.0.0.1:${api.port}`,
        api: 'anthropic-messages',
        apiKey: 'fake-key',
        models: [{ id: 'claude-sonnet-4-5', input: ['text', 'image'], reasoning: false }],
      },
    },
  };
  fs.writeFileSync(path.join(agentDir, 'models.json'), JSON.stringify(models, null, 2));
  const env = agentEnv({ HOME: home });
  try {
    const args = [cli, '-p', '--provider', 'fake', '--model', 'claude-sonnet-4-5', '--session', id, prompt];
    const run = await runProgram(process.execPath, args, { cwd, env, timeoutMs: 120_000 });
    const first = api.requests.find((r) => r.path === '/v1/messages' && r.messages);
    return { version, exitCode: run.code, stderr: run.stderr, stdout: run.stdout, messages: first?.messages ?? null };
  } finally {
    await api.close();
  }
}

const runs = { claude, codex, qwen, gemini, 'gemini-init': geminiInit, pi };
const report = Object.hasOwn(runs, target) ? await runs[target]() : null;
if (!report) {
  console.error(`driver: no target ${target}`);
  process.exit(2);
}
console.log(JSON.stringify(report, null, 2));
