// Turns one driver run into the fixtures `fixtures/codex/real-<version>/`:
// the rollouts Codex wrote, laid out as a Codex home (`codex-home/sessions/…`),
// and `scenario.json`, the driver's report, with the run's folder replaced by
// /home/dev everywhere. A fork's `history_base.end_byte_offset` is recomputed,
// since the replacement changes its base rollout's length.
//
//   node driver.mjs "$work" > run.json && node fixtures.mjs run.json OUT

import fs from 'node:fs';
import path from 'node:path';

const [report, out] = process.argv.slice(2);
const run = JSON.parse(fs.readFileSync(report, 'utf8'));
const home = '/home/dev';
const scrub = (text) => text.split(run.home).join(home);

// Rollouts by the id in their file names, scrubbed.
const rollouts = new Map();
for (const file of run.rollouts) {
  const id = path.basename(file).match(/([0-9a-f-]{36})\.jsonl$/)[1];
  rollouts.set(id, { file, text: scrub(fs.readFileSync(file, 'utf8')) });
}
for (const rollout of rollouts.values()) {
  const [first, ...rest] = rollout.text.split('\n');
  const base = JSON.parse(first).payload?.history_base;
  if (!base) continue;
  const parent = rollouts.get(base.thread_id).text;
  const kept = parent.split('\n').filter((line) => line && JSON.parse(line).ordinal < base.end_ordinal_exclusive);
  const offset = Buffer.byteLength(kept.map((line) => `${line}\n`).join(''));
  rollout.text = [first.replace(/"end_byte_offset":\d+/, `"end_byte_offset":${offset}`), ...rest].join('\n');
}

fs.rmSync(path.join(out, 'codex-home'), { recursive: true, force: true });
for (const { file, text } of rollouts.values()) {
  const target = path.join(out, 'codex-home', path.relative(run.codexHome, file));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, text);
}
const { runs, requests, ...scenario } = run;
fs.writeFileSync(path.join(out, 'scenario.json'), `${scrub(JSON.stringify(scenario, null, 2))}\n`);
console.log(`${rollouts.size} rollouts of Codex ${run.codexVersion} in ${out}`);
