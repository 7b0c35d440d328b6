// Drives the real pi-mono 0.73.1 SessionManager for sess's differential tests.
//
//   node driver.mjs generate SEED COUNT DIR   sessions, damaged and legacy copies, and the peer's view of each
//   node driver.mjs inspect FILE...           how the peer reads files sess wrote
//   node driver.mjs migrate FILE...           let the peer migrate legacy files (it rewrites them on open)
//   node driver.mjs branch DIR FILE ID...     the entries of createBranchedSession(ID) of each FILE (new files in DIR)
//
// Output is JSON on stdout.
import fs from "node:fs";
import path from "node:path";
import { SessionManager, buildSessionContext } from "@mariozechner/pi-coding-agent";
import { damaged, generate, legacy, treeJson } from "../scenario.mjs";

const api = {
  modelChange: (sm, provider, model) => sm.appendModelChange(provider, model),
  compaction: (sm, summary, kept, tokens, details) => sm.appendCompaction(summary, kept, tokens, details, details ? false : undefined),
  sessionName: (sm, name) => sm.appendSessionInfo(name),
  extra: (sm, r, n) => sm.appendMessage({ role: "user", content: [{ type: "text", text: `extra ${n}` }], timestamp: 1_767_225_600_000 + n }),
};

/** Everything the peer computes from a file: contexts at every leaf, the tree, labels. */
function view(file) {
  const sm = SessionManager.open(file);
  const entries = sm.getEntries();
  const contexts = {};
  for (const entry of entries) contexts[entry.id] = buildSessionContext(entries, entry.id);
  const labels = {};
  for (const entry of entries) {
    const label = sm.getLabel(entry.id);
    if (label !== undefined) labels[entry.id] = label;
  }
  return {
    file,
    entryCount: entries.length,
    leafId: sm.getLeafId(),
    last: sm.buildSessionContext(),
    contexts,
    tree: treeJson(sm.getTree(), sm.getLeafId()),
    labels,
    name: sm.getSessionName() ?? null,
  };
}

const [command, ...args] = process.argv.slice(2);
if (command === "generate") {
  const [seed0, count, dir] = [Number(args[0]), Number(args[1]), args[2]];
  const out = [];
  for (let seed = seed0; seed < seed0 + count; seed++) {
    const sessionDir = path.join(dir, `seed-${seed}`);
    const sm = SessionManager.create("/home/dev/project", sessionDir);
    generate(sm, seed, api);
    const file = sm.getSessionFile();
    const text = fs.readFileSync(file, "utf8");
    const copies = {};
    for (const [kind, damagedText] of Object.entries(damaged(text, seed))) {
      const copy = path.join(sessionDir, `${kind}.jsonl`);
      fs.writeFileSync(copy, damagedText);
      copies[kind] = view(copy);
    }
    const lines = text.split("\n").filter(Boolean).map((l) => JSON.parse(l));
    const header = lines[0];
    const entries = lines.slice(1);
    const leafPath = SessionManager.open(file).getBranch();
    const { v1, v2 } = legacy(header, entries, leafPath);
    const legacyFiles = {};
    for (const [kind, body] of Object.entries({ v1, v2 })) {
      const original = path.join(sessionDir, `${kind}.jsonl`);
      fs.writeFileSync(original, body);
      legacyFiles[kind] = original;
    }
    out.push({ seed, session: view(file), damaged: copies, legacy: legacyFiles });
  }
  process.stdout.write(JSON.stringify(out));
} else if (command === "inspect") {
  process.stdout.write(JSON.stringify(args.map(view)));
} else if (command === "migrate") {
  for (const file of args) SessionManager.open(file);
  process.stdout.write("[]");
} else if (command === "branch") {
  const [dir, ...pairs] = args;
  const out = [];
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    const sm = SessionManager.open(pairs[i], dir);
    sm.createBranchedSession(pairs[i + 1]);
    out.push(sm.getEntries());
  }
  process.stdout.write(JSON.stringify(out));
} else {
  console.error("usage: driver.mjs generate SEED COUNT DIR | inspect FILE... | migrate FILE... | branch DIR FILE ID...");
  process.exit(2);
}
