// oh-my-pi's sessions through the binding under Bun (which loads N-API
// addons): the real oh-my-pi (18.2.3 and 17.3.5, installed with their Bun by
// interop/setup) writes seeded sessions, and the binding, loaded by that Bun,
// opens each with the same entries, leaf, tree and labels as oh-my-pi's own
// SessionManager. Skipped without them, unless SESS_INTEROP_REQUIRED=1.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const peers = join(here, "..", "..", "..", "interop", "peers");
const home = mkdtempSync(join(tmpdir(), "sess-node-omp-"));
after(() => rmSync(home, { recursive: true, force: true }));

for (const [folder, version] of [["oh-my-pi", "18.2.3"], ["oh-my-pi-17", "17.3.5"]]) {
  const peer = join(peers, folder);
  const bun = join(peer, "node_modules", "@oven", "bun-linux-x64-baseline", "bin", "bun");
  const installed = existsSync(bun) && existsSync(join(peer, "node_modules", "@oh-my-pi", "pi-coding-agent"));
  if (!installed && process.env.SESS_INTEROP_REQUIRED === "1") throw new Error(`${folder} is not installed (run interop/setup)`);
  const skip = installed ? false : `${folder} is not installed (interop/setup installs it)`;

  test(`oh-my-pi ${version}'s sessions open through the binding under Bun as oh-my-pi reads them`, { skip }, () => {
    const run = (args, cwd) => JSON.parse(execFileSync(bun, args, { cwd, maxBuffer: 1 << 28, encoding: "utf8" }));
    const generated = run(["driver.ts", "generate", "1", "4", join(home, folder)], peer);
    const written = generated.flatMap((s) => [s.session, ...Object.values(s.damaged)]);
    const files = written.map((view) => view.untouched ?? view.file);
    const ours = run([join(here, "open-view.mjs"), ...files], here);
    const shown = (view) => ({ id: view.id, entryCount: view.entryCount, leafId: view.leafId, tree: view.tree, labels: view.labels });
    assert.equal(ours.length, written.length);
    written.forEach((view, at) => assert.deepEqual(shown(ours[at]), shown(view), `${files[at]}: the views differ`));
    assert.ok(written.some((view) => view.entryCount > 10), "the sessions hold entries");
  });
}
