// Turns one driver run into the fixtures `fixtures/copilot/real-<version>/`:
// each session's `events.jsonl` and `workspace.yaml`, laid out as a Copilot
// home (`copilot-home/session-state/<id>/…`), and `scenario.json`, the
// driver's report, with the run's folder replaced by /home/dev everywhere.
// The other files Copilot keeps in a session folder (checkpoints, its SQLite
// database, rewind snapshots) are left out: sess does not read them.
//
//   node driver.mjs "$work" > run.json && node fixtures.mjs run.json OUT

import fs from 'node:fs';
import path from 'node:path';

const [report, out] = process.argv.slice(2);
const run = JSON.parse(fs.readFileSync(report, 'utf8'));
const home = '/home/dev';
const scrub = (text) => text.split(run.home).join(home);

fs.rmSync(path.join(out, 'copilot-home'), { recursive: true, force: true });
for (const s of run.sessions) {
  for (const file of [s.path, s.workspace]) {
    const target = path.join(out, 'copilot-home', path.relative(run.copilotHome, file));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, scrub(fs.readFileSync(file, 'utf8')));
  }
}
const { runs, requests, ...scenario } = run;
fs.writeFileSync(path.join(out, 'scenario.json'), `${scrub(JSON.stringify(scenario, null, 2))}\n`);
console.log(`${run.sessions.length} sessions of Copilot CLI ${run.copilotVersion} in ${out}`);
