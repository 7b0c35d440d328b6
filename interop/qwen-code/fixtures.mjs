// Turns one driver run into the fixtures `fixtures/qwen-code/real-<version>/`:
// the files Qwen Code wrote under `~/.qwen/projects/`, laid out as a Qwen home
// (`qwen-home/projects/…`), and `scenario.json`, the driver's report, with the
// run's folder replaced by /home/dev everywhere (in the project folders' names
// too, which spell the cwd) and the fake API's port by 8080.
//
//   node driver.mjs "$work" > run.json && node fixtures.mjs run.json OUT

import fs from 'node:fs';
import path from 'node:path';

const [report, out] = process.argv.slice(2);
const run = JSON.parse(fs.readFileSync(report, 'utf8'));
const home = '/home/dev';
// Qwen Code's project folder name: every UTF-16 unit outside [A-Za-z0-9] is `-`.
const slug = (p) => p.replace(/[^a-zA-Z0-9]/g, '-');
const api = 'http://127.0.0.1:8080/v1';
const scrub = (text) => text.split(run.home).join(home).split(slug(run.home)).join(slug(home)).split(run.api).join(api);

const projects = path.join(run.qwenHome, 'projects');
fs.rmSync(path.join(out, 'qwen-home'), { recursive: true, force: true });
for (const file of run.files) {
  const target = path.join(out, 'qwen-home', 'projects', scrub(path.relative(projects, file)));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, scrub(fs.readFileSync(file, 'utf8')));
}
const { runs, requests, ...scenario } = run;
fs.writeFileSync(path.join(out, 'scenario.json'), `${scrub(JSON.stringify(scenario, null, 2))}\n`);
console.log(`${run.files.length} files of Qwen Code ${run.qwenVersion} in ${out}`);
