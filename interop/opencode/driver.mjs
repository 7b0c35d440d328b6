// Runs the real OpenCode against the fake Chat Completions API and prints
// what it made (scenario.mjs says what is run and reported).
//
//   node driver.mjs [--legacy] ROOT
//
// ROOT is the home (`HOME=ROOT`; OpenCode keeps its data in
// ROOT/.local/share/opencode and reads ROOT/.config/opencode/opencode.json).
// `--legacy` runs OpenCode 1.1 (legacy/), which keeps sessions as JSON files
// under storage/ instead of the opencode.db of 1.2 and later.

import { drive } from './scenario.mjs';

const legacy = process.argv[2] === '--legacy';
const args = process.argv.slice(legacy ? 3 : 2);
await drive(
  { name: 'opencode', package: 'opencode-linux-x64', plugin: '@opencode-ai/plugin', env: 'OPENCODE', database: 'opencode.db' },
  import.meta.url,
  { subdir: legacy ? 'legacy' : '.', rootArg: args[0] },
);
