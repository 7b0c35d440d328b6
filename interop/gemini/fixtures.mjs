// Turns one driver run into the fixtures `fixtures/gemini/real-<version>/`:
// what the Gemini CLI keeps of its sessions, laid out as a home folder
// (`home/.gemini/projects.json`, `home/.gemini/tmp/<project>/.project_root`
// and `home/.gemini/tmp/<project>/chats/…`), and `scenario.json`, the driver's
// report, with the run's folder replaced by /home/dev everywhere. A session's
// `projectHash` is the SHA-256 of its project's path, so it is recomputed for
// the replaced path.
//
//   node driver.mjs "$work" > run.json && node fixtures.mjs run.json OUT

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const [report, out] = process.argv.slice(2);
const run = JSON.parse(fs.readFileSync(report, 'utf8'));
const home = '/home/dev';
const sha256 = (text) => crypto.createHash('sha256').update(text).digest('hex');
const hashes = Object.values(run.projects).map((p) => [sha256(p), sha256(p.split(run.home).join(home))]);
const scrub = (text) => {
  let scrubbed = text.split(run.home).join(home);
  for (const [before, after] of hashes) scrubbed = scrubbed.split(before).join(after);
  return scrubbed;
};

const target = path.join(out, 'home', '.gemini');
fs.rmSync(path.join(out, 'home'), { recursive: true, force: true });
const copy = (file) => {
  const to = path.join(target, path.relative(run.geminiHome, file));
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.writeFileSync(to, scrub(fs.readFileSync(file, 'utf8')));
};
copy(path.join(run.geminiHome, 'projects.json'));
for (const project of fs.readdirSync(path.join(run.geminiHome, 'tmp'))) {
  const marker = path.join(run.geminiHome, 'tmp', project, '.project_root');
  if (fs.existsSync(marker)) copy(marker);
}
for (const file of run.files) copy(file);

const { runs, requests, ...scenario } = run;
fs.writeFileSync(path.join(out, 'scenario.json'), `${scrub(JSON.stringify(scenario, null, 2))}\n`);
console.log(`${run.files.length} session files of Gemini CLI ${run.geminiVersion} in ${out}`);
