// The command line of every pi-family driver: each peer's driver names its
// package and passes a `peer` adapter to `run`; the rest is here.
//
//   generate SEED COUNT HOME   sessions (under the peer's folder in HOME), their damaged
//                              and legacy copies (under HOME/copies), and the peer's view of each
//   inspect FILE...            how the peer reads files sess wrote
//   migrate FILE...            let the peer migrate legacy files (where it rewrites them on open)
//   branch DIR FILE ID...      the entries of createBranchedSession(ID) of each FILE (new files in DIR)
//
// Output is JSON on stdout. A file the peer refuses to open is reported as
// `{file, refused}` (the peer's error), not as a failure of the driver.
//
// The adapter:
//   scenario                   the `api` of scenario.mjs's generate
//   sessionDir(home, seed)     where a generated session is written
//   create(cwd, dir)           a new SessionManager
//   open(file)                 the SessionManager of a file (may be async)
//   finish(sm)                 after generating (flush and close, where the peer needs it)
//   close(sm)                  after viewing
//   contexts(sm, entries)      the context at every entry as the leaf
//   extra(sm, entries)         what else the view carries (name, usage, ...)
//   legacy                     whether to write v1 and v2 copies (the peer migrates them on open)
//   branch(sm, id)             createBranchedSession's entries (where the peer has it)
import fs from "node:fs";
import path from "node:path";
import { damaged, generate, legacy, treeJson } from "./scenario.mjs";

/** Everything the peer computes from a file: contexts at every leaf, the tree, labels, name. */
async function view(peer, file) {
  let sm;
  try {
    sm = await peer.open(file);
  } catch (error) {
    return { file, refused: String(error?.message ?? error) };
  }
  const entries = sm.getEntries();
  const leafId = sm.getLeafId();
  const last = sm.buildSessionContext();
  const contexts = await peer.contexts(sm, entries);
  const labels = {};
  for (const entry of entries) {
    const label = sm.getLabel(entry.id);
    if (label !== undefined) labels[entry.id] = label;
  }
  const result = {
    file,
    id: sm.getSessionId(),
    entryCount: entries.length,
    leafId,
    last,
    contexts,
    tree: treeJson(sm.getTree(), leafId),
    labels,
    ...(await peer.extra(sm, entries)),
  };
  await peer.close(sm);
  return result;
}

/**
 * The view of a damaged copy. Opening may change it (pi adds the newline a cut
 * last line lacks): the bytes as written are kept in `untouched/`, named in the
 * view, so sess can be checked on both.
 */
async function damagedView(peer, copy, text) {
  const seen = await view(peer, copy);
  if (fs.readFileSync(copy, "utf8") !== text) {
    const untouched = path.join(path.dirname(copy), "untouched", path.basename(copy));
    fs.mkdirSync(path.dirname(untouched), { recursive: true });
    fs.writeFileSync(untouched, text);
    seen.untouched = untouched;
  }
  return seen;
}

async function generateAll(peer, seed0, count, home) {
  const out = [];
  for (let seed = seed0; seed < seed0 + count; seed++) {
    const sm = await peer.create("/home/dev/project", peer.sessionDir(home, seed));
    await generate(sm, seed, peer.scenario);
    await peer.finish(sm);
    const file = sm.getSessionFile();
    const text = fs.readFileSync(file, "utf8");
    // Beside the agent's folders, so only the sessions themselves are listed.
    const copiesDir = path.join(home, "copies", `seed-${seed}`);
    fs.mkdirSync(copiesDir, { recursive: true });
    const copies = {};
    for (const [kind, damagedText] of Object.entries(damaged(text, seed))) {
      const copy = path.join(copiesDir, `${kind}.jsonl`);
      fs.writeFileSync(copy, damagedText);
      copies[kind] = await damagedView(peer, copy, damagedText);
    }
    const scenario = { seed, session: await view(peer, file), damaged: copies };
    if (peer.legacy) {
      const lines = text.split("\n").filter(Boolean).map((l) => JSON.parse(l));
      const opened = await peer.open(file);
      const { v1, v2 } = legacy(lines[0], lines.slice(1), opened.getBranch());
      await peer.close(opened);
      scenario.legacy = {};
      for (const [kind, body] of Object.entries({ v1, v2 })) {
        const original = path.join(copiesDir, `${kind}.jsonl`);
        fs.writeFileSync(original, body);
        scenario.legacy[kind] = original;
      }
    }
    out.push(scenario);
  }
  return out;
}

/** Runs the command of `process.argv` with `peer`, printing its JSON. */
export async function run(peer) {
  const [command, ...args] = process.argv.slice(2);
  let out;
  if (command === "generate") {
    out = await generateAll(peer, Number(args[0]), Number(args[1]), args[2]);
  } else if (command === "inspect") {
    out = [];
    for (const file of args) out.push(await view(peer, file));
  } else if (command === "migrate" && peer.legacy) {
    for (const file of args) await peer.close(await peer.open(file));
    out = [];
  } else if (command === "branch" && peer.branch) {
    const [dir, ...pairs] = args;
    out = [];
    for (let i = 0; i + 1 < pairs.length; i += 2) out.push(await peer.branch(pairs[i], dir, pairs[i + 1]));
  } else if (command === "list" && peer.list) {
    out = await peer.list(args[0]);
  } else {
    console.error(`usage: driver generate SEED COUNT HOME | inspect FILE...${peer.legacy ? " | migrate FILE..." : ""}${peer.branch ? " | branch DIR FILE ID..." : ""}${peer.list ? " | list [DIR]" : ""}`);
    process.exit(2);
  }
  process.stdout.write(JSON.stringify(out));
}
