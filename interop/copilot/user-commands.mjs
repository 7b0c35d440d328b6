// Runs the real GitHub Copilot CLI for what a user types as a `!command`: the
// interactive CLI runs it as a user-requested shell command and records
// `tool.user_requested`, then the call and its `tool.execution_complete` with
// `isUserRequested: true`. The SDK bundled in the package (`copilot-sdk/`,
// the same binary as a JSON-RPC server) does the same with
// `shell.executeUserRequested`, which is what this driver calls, between two
// prompts answered by the fake API in fake-api.mjs.
//
//   node user-commands.mjs ROOT      runs the scenario under ROOT and prints JSON
//
// The report has the shape of driver.mjs's (so fixtures.mjs turns it into
// fixtures): the home, the session (id, cwd, title, events file, turns) and
// `userCommands`, each command the user ran with the result Copilot returned
// (its tool call id, success, output and exit code).

import fs from 'node:fs';
import path from 'node:path';

import { binary, copilotEnv, sdk, version } from './cli.mjs';
import { startFakeApi } from './fake-api.mjs';
import { printReport } from '../lib/run.mjs';

const root = path.resolve(process.argv[2] ?? fs.mkdtempSync('/tmp/sess-copilot-'));
const copilotHome = path.join(root, '.copilot');
const tmp = path.join(root, 'tmp');
const project = path.join(root, 'projects', 'gamma');
for (const dir of [tmp, project]) fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(project, 'README.md'), '# gamma\n');

const P = { look: 'Look at this project, please.', after: 'What did my commands show?' };
const A = { look: 'I will wait for your commands.', after: 'The README says gamma, and missing.txt does not exist.' };
const script = { [P.look]: [{ text: A.look }], [P.after]: [{ text: A.after }] };
// What the user types after `!`: one command that succeeds, one that exits 1.
const COMMANDS = [
  { requestId: 'user-cmd-1', command: 'cat README.md', expect: { success: true, exitCode: 0 } },
  { requestId: 'user-cmd-2', command: 'cat missing.txt', expect: { success: false, exitCode: 1 } },
];

const api = await startFakeApi(script);
const baseUrl = `http://127.0.0.1:${api.port}/v1`;
const apiKey = 'sess-fake-provider-key';
const env = copilotEnv({ root, tmp, baseUrl, apiKey });

const turns = [];
const userCommands = [];
let id;
try {
  const { CopilotClient, RuntimeConnection, approveAll } = await sdk();
  const client = new CopilotClient({ connection: RuntimeConnection.forStdio({ path: binary, env }), cwd: project });
  try {
    const live = await client.createSession({
      onPermissionRequest: approveAll,
      workingDirectory: project,
      model: 'gpt-4o',
      provider: { type: 'openai', baseUrl, apiKey },
    });
    id = live.sessionId;
    await live.sendAndWait({ prompt: P.look });
    turns.push({ prompt: P.look, model: 'gpt-4o', attachments: [], compactedBefore: null, blocks: [{ type: 'text', text: A.look }] });
    for (const { requestId, command, expect } of COMMANDS) {
      const result = await live.rpc.shell.executeUserRequested({ requestId, command });
      userCommands.push({ command, ...expect, result });
    }
    await live.sendAndWait({ prompt: P.after });
    turns.push({ prompt: P.after, model: 'gpt-4o', attachments: [], compactedBefore: null, blocks: [{ type: 'text', text: A.after }] });
    await live.disconnect();
  } finally {
    await client.stop();
  }
} finally {
  await api.close();
}

const dir = path.join(copilotHome, 'session-state', id);
const file = (name) => (fs.existsSync(path.join(dir, name)) ? path.join(dir, name) : null);
printReport({
  copilotVersion: version,
  home: root,
  copilotHome,
  projects: { gamma: project },
  sessions: [{ id, cwd: project, title: P.look, named: false, turns, rewound: [], path: file('events.jsonl'), workspace: file('workspace.yaml') }],
  userCommands,
}, [], api.requests);
