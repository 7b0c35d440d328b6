// Opens each session file named on the command line through the binding and
// prints what it holds: its id, entries, leaf, tree and labels (as
// interop/peers/driver.mjs views them). Run under Bun by oh-my-pi.test.mjs.
import { treeJson } from "../../../interop/peers/scenario.mjs";
import { SessionManager } from "../index.js";

const views = process.argv.slice(2).map((file) => {
  const sm = SessionManager.open(file);
  const entries = sm.getEntries();
  const leafId = sm.getLeafId();
  const labels = {};
  for (const entry of entries) {
    const label = sm.getLabel(entry.id);
    if (label !== undefined) labels[entry.id] = label;
  }
  sm.buildSessionContext();
  return { file, id: sm.getSessionId(), entryCount: entries.length, leafId, tree: treeJson(sm.getTree(), leafId), labels };
});
process.stdout.write(JSON.stringify(views));
