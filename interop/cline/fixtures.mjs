// Turns one driver run into the fixtures `fixtures/cline/real-<version>/`:
// the files the Cline CLI wrote under `~/.cline/data/sessions/`, laid out as a
// home (`home/.cline/data/sessions/…`), and `scenario.json`, the driver's
// report, with the run's folder replaced by /home/dev everywhere and the fake
// API's port by 8080.
//
//   node driver.mjs "$work" > run.json && node fixtures.mjs run.json OUT

import fs from 'node:fs';
import path from 'node:path';

const [report, out] = process.argv.slice(2);
const run = JSON.parse(fs.readFileSync(report, 'utf8'));
const home = '/home/dev';
const api = 'http://127.0.0.1:8080/v1';
const scrub = (text) => text.split(run.home).join(home).split(run.api).join(api);

const sessions = path.join(run.clineDir, 'data', 'sessions');
fs.rmSync(path.join(out, 'home'), { recursive: true, force: true });
for (const file of run.files) {
  const target = path.join(out, 'home', '.cline', 'data', 'sessions', path.relative(sessions, file));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, scrub(fs.readFileSync(file, 'utf8')));
}
const { runs, requests, ...scenario } = run;
fs.writeFileSync(path.join(out, 'scenario.json'), `${scrub(JSON.stringify(scenario, null, 2))}\n`);
console.log(`${run.files.length} files of the Cline CLI ${run.clineVersion} in ${out}`);
