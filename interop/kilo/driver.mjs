// Runs the real Kilo CLI against the fake Chat Completions API of OpenCode's
// interop and prints what it made: Kilo is a fork of OpenCode, and the same
// scenario runs it (../opencode/scenario.mjs says what is run and reported).
//
//   node driver.mjs ROOT
//
// ROOT is the home (`HOME=ROOT`; Kilo keeps its data in
// ROOT/.local/share/kilo and reads ROOT/.config/kilo/kilo.json).

import { drive } from '../opencode/scenario.mjs';

await drive(
  {
    name: 'kilo',
    package: '@kilocode/cli-linux-x64',
    plugin: '@kilocode/plugin',
    env: 'KILO',
    database: 'kilo.db',
    // `kilo run` leaves its sessions untitled, and takes 10 to 30 seconds
    // (minutes on a busy machine).
    untitledRuns: true,
    timeoutMs: 300_000,
  },
  import.meta.url,
  { rootArg: process.argv[2] },
);
