// Turns one driver run into the fixtures `fixtures/droid/real-<version>/`:
// every file Droid wrote under `~/.factory/sessions/`, laid out as a Factory
// home (`factory-home/sessions/…`), and `scenario.json`, the driver's report,
// with the run's folder replaced by /home/dev everywhere (in the project
// folders' names too, which spell the cwd with `/` as `-`) and the kernel
// version Droid puts in its context reminder by `6.0.0`.
//
//   node driver.mjs "$work" > run.json && node fixtures.mjs run.json OUT

import fs from 'node:fs';
import path from 'node:path';

import { filesUnder } from '../lib/run.mjs';

const [report, out] = process.argv.slice(2);
const run = JSON.parse(fs.readFileSync(report, 'utf8'));
const root = path.dirname(run.home);
const home = '/home/dev';
const slug = (p) => p.replace(/\//g, '-');
const scrub = (text) =>
  text.split(root).join(home).split(slug(root)).join(slug(home)).replace(/User system info \(linux [^)\\]*\)/g, 'User system info (linux 6.0.0)');

const sessions = path.join(run.home, 'sessions');
const files = filesUnder(sessions);
fs.rmSync(path.join(out, 'factory-home'), { recursive: true, force: true });
for (const file of files) {
  const target = path.join(out, 'factory-home', 'sessions', scrub(path.relative(sessions, file)));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, scrub(fs.readFileSync(file, 'utf8')));
}
const { runs, requests, ...scenario } = run;
fs.writeFileSync(path.join(out, 'scenario.json'), `${scrub(JSON.stringify(scenario, null, 2))}\n`);
console.log(`${files.length} files of Factory Droid ${run.version} in ${out}`);
