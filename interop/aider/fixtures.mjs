// Turns one driver run into the fixtures `fixtures/aider/real-<version>/`:
// the history files Aider wrote (the chat, input and LLM histories of each
// folder, laid out by folder: `repo/`, `plain/`, `moved/`), and
// `scenario.json`, the driver's report without Aider's outputs, with the
// run's folder replaced by /home/dev, the venv's by /home/dev/.venv and the
// fake API's port by 8080 everywhere. The histories are text with no lengths
// or checksums, so the replacement loses nothing.
//
//   node driver.mjs "$work" > run.json && node fixtures.mjs run.json OUT

import fs from 'node:fs';
import path from 'node:path';

const [report, out] = process.argv.slice(2);
const run = JSON.parse(fs.readFileSync(report, 'utf8'));
const venv = path.dirname(path.dirname(run.aider));
const api = 'http://127.0.0.1:8080/v1';
const scrub = (text) => text.split(venv).join('/home/dev/.venv').split(run.home).join('/home/dev').split(run.api).join(api);

// The sessions: what Aider keeps beside a project (or where it was told),
// not its own state in ~/.aider/ nor the project's files.
const histories = run.files.filter((p) => !path.relative(run.home, p).startsWith('.aider/') && path.basename(p) !== 'greet.txt');
for (const dir of ['repo', 'plain', 'moved']) fs.rmSync(path.join(out, dir), { recursive: true, force: true });
for (const file of histories) {
  const target = path.join(out, path.relative(run.home, file));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, scrub(fs.readFileSync(file, 'utf8')));
}
const { runs, requests, outputs, ...scenario } = run;
fs.writeFileSync(path.join(out, 'scenario.json'), `${scrub(JSON.stringify({ ...scenario, runs, requests }, null, 2))}\n`);
console.log(`${histories.length} files of Aider ${run.aiderVersion} in ${out}`);
