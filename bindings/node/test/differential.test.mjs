// The binding beside the real pi-mono 0.73.1 (installed by interop/setup):
// the same seeded scenarios (interop/peers/scenario.mjs) written by one and
// read by the other, in both directions, with their damaged copies; the
// views compared are every entry, the context at every entry as the leaf,
// the tree, the labels and the name. Skipped without pi-mono, unless
// SESS_INTEROP_REQUIRED=1.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..", "..");
const piDriver = join(repo, "interop", "peers", "pi-mono", "driver.mjs");
const ourDriver = join(here, "driver.mjs");
const piInstalled = existsSync(join(repo, "interop", "peers", "pi-mono", "node_modules", "@mariozechner", "pi-coding-agent"));
if (!piInstalled && process.env.SESS_INTEROP_REQUIRED === "1") {
  throw new Error("pi-mono is not installed (run interop/setup)");
}
const skip = piInstalled ? false : "pi-mono is not installed (interop/setup installs it)";
// pi 1.6.0, the same agent under its new npm name, writes entries pi-mono 0.73.1 has not.
const pi16Driver = join(repo, "interop", "peers", "pi", "driver.mjs");
const pi16Installed = existsSync(join(repo, "interop", "peers", "pi", "node_modules", "@earendil-works", "pi-coding-agent"));
if (!pi16Installed && process.env.SESS_INTEROP_REQUIRED === "1") {
  throw new Error("pi 1.6.0 is not installed (run interop/setup)");
}

const SEEDS = [1, 8];
const home = mkdtempSync(join(tmpdir(), "sess-node-differential-"));
after(() => rmSync(home, { recursive: true, force: true }));

function drive(driver, ...args) {
  return JSON.parse(execFileSync(process.execPath, [driver, ...args], { maxBuffer: 1 << 28, encoding: "utf8" }));
}

/** Each generated session and damaged copy: its view, and the file with the bytes it was made from. */
function views(generated) {
  return generated.flatMap((scenario) => [
    { file: scenario.session.file, view: scenario.session },
    ...Object.values(scenario.damaged).map((view) => ({ file: view.untouched ?? view.file, view })),
  ]);
}

/** A view without where its file is. */
function seen(view) {
  const { file, untouched, ...rest } = view;
  return rest;
}

function compare(written, readBack) {
  assert.equal(readBack.length, written.length);
  written.forEach(({ file, view }, at) => {
    assert.deepEqual(seen(readBack[at]), seen(view), `${file}: the views differ`);
  });
}

test("what pi-mono writes, the binding reads as pi-mono does", { skip }, async () => {
  const written = views(drive(piDriver, "generate", String(SEEDS[0]), String(SEEDS[1]), join(home, "pi")));
  assert.equal(written.length, SEEDS[1] * 4);
  compare(written, drive(ourDriver, "inspect", ...written.map((w) => w.file)));
  // Before any entry is an object (the native session answers): the same context, name and labels.
  const { SessionManager } = await import("../index.js");
  for (const { file, view } of written) {
    const sm = SessionManager.open(file);
    assert.deepEqual(JSON.parse(JSON.stringify(sm.buildSessionContext())), view.last, `${file}: the context differs`);
    assert.equal(sm.getSessionName() ?? null, view.name, file);
    for (const [id, label] of Object.entries(view.labels)) assert.equal(sm.getLabel(id), label, file);
  }
  // The context's messages are the entries' own objects, the same from call to
  // call, before and after the entries are made, as pi-mono's are.
  const pi = await import(join(repo, "interop", "peers", "pi-mono", "node_modules", "@mariozechner", "pi-coding-agent", "dist", "index.js"));
  const identities = (Manager, file) => {
    const sm = Manager.open(file);
    const first = sm.buildSessionContext().messages;
    const second = sm.buildSessionContext().messages;
    const own = new Set(sm.getEntries().filter((e) => e.type === "message").map((e) => e.message));
    const after = sm.buildSessionContext().messages;
    return {
      messages: first.length,
      sameAgain: first.filter((m, at) => m === second[at]).length,
      entriesOwn: first.filter((m) => own.has(m)).length,
      sameAfter: first.filter((m, at) => m === after[at]).length,
    };
  };
  let shared = 0;
  for (const { file, view } of written.filter(({ view }) => !view.refused)) {
    const theirs = identities(pi.SessionManager, file);
    assert.deepEqual(identities(SessionManager, file), theirs, `${file}: ${JSON.stringify(view.id)}`);
    shared += theirs.entriesOwn;
  }
  assert.ok(shared > 0, "some context messages are entries' own");
});

test("what the binding writes, pi-mono reads as the binding does, line for line as pi writes it", { skip }, () => {
  const generated = drive(ourDriver, "generate", String(SEEDS[0]), String(SEEDS[1]), join(home, "sess"));
  const written = views(generated);
  compare(written, drive(piDriver, "inspect", ...written.map((w) => w.file)));
  // Every line is what JSON.stringify gives of the object it holds, as pi writes each entry.
  for (const scenario of generated) {
    const lines = readFileSync(scenario.session.file, "utf8").split("\n");
    assert.equal(lines.pop(), "", "the file ends with a newline");
    for (const line of lines) assert.equal(JSON.stringify(JSON.parse(line)), line);
  }
});

test("a branched session holds what pi-mono's holds, save where pi leaves a dropped label named", { skip }, () => {
  const [scenario] = drive(piDriver, "generate", "3", "1", join(home, "branch"));
  // The session's entries in file order (its first line is the header).
  const original = readFileSync(scenario.session.file, "utf8").split("\n").filter(Boolean).slice(1).map((line) => JSON.parse(line));
  const byId = new Map(original.map((e) => [e.id, e]));
  const afterLabel = original.find((e) => e.type !== "label" && byId.get(e.parentId)?.type === "label");
  assert.ok(afterLabel, "the scenario has an entry whose parent is a label");
  const ids = original.filter((e) => e.type !== "label").map((e) => e.id);
  const picks = [ids[0], ids[Math.floor(ids.length / 2)], afterLabel.id, ids[ids.length - 1]];
  const pairs = picks.flatMap((id) => [scenario.session.file, id]);
  const theirs = drive(piDriver, "branch", join(home, "branch-pi"), ...pairs);
  const ours = drive(ourDriver, "branch", join(home, "branch-sess"), ...pairs);
  // pi-mono drops the path's labels but leaves a `parentId` or a compaction's
  // `firstKeptEntryId` naming one; the binding names the nearest entry it kept
  // before the label, or for `firstKeptEntryId` the first after it (README:
  // what differs). pi's are mended that way before they are compared.
  const mended = (list) => {
    const kept = new Set(list.map((e) => e.id));
    const nearestKept = (id) => {
      while (id != null && !kept.has(id)) id = byId.get(id)?.parentId ?? null;
      return id;
    };
    const firstKeptAfter = new Map();
    for (const entry of list) {
      for (let id = byId.get(entry.id)?.parentId; id != null && !kept.has(id); id = byId.get(id)?.parentId ?? null) {
        firstKeptAfter.set(id, entry.id);
      }
    }
    return list.map((e) => {
      if (e.type === "label") return e;
      const out = { ...e, parentId: nearestKept(e.parentId) };
      if (e.type === "compaction" && firstKeptAfter.has(e.firstKeptEntryId)) out.firstKeptEntryId = firstKeptAfter.get(e.firstKeptEntryId);
      return out;
    });
  };
  // The labels carried over are new entries with new ids: compared without them.
  const anonymous = (list) => list.map((e) => (e.type === "label" ? { ...e, id: "*", parentId: "*" } : e));
  assert.equal(theirs.length, picks.length);
  assert.ok(theirs.every((list) => list.length > 0));
  assert.notDeepEqual(mended(theirs[2]), theirs[2], "pi-mono leaves the dropped label named");
  assert.deepEqual(ours.map(anonymous), theirs.map(mended).map(anonymous));
});

test("list and listAll give pi-mono's SessionInfo of each session, in pi-mono's order", { skip }, () => {
  const listHome = join(home, "list");
  const generated = drive(piDriver, "generate", "1", "4", listHome);
  const agentDir = join(listHome, ".pi", "agent");
  const env = { ...process.env, PI_CODING_AGENT_DIR: agentDir };
  const listed = (driver, ...args) =>
    JSON.parse(execFileSync(process.execPath, [driver, "list", ...args], { env, maxBuffer: 1 << 28, encoding: "utf8" }));
  const all = listed(piDriver);
  assert.ok(all.length >= generated.length, `pi-mono listed ${all.length} sessions`);
  assert.deepEqual(listed(ourDriver), all);
  const one = dirname(generated[0].session.file);
  const inOne = listed(piDriver, one);
  assert.ok(inOne.length > 0);
  assert.deepEqual(listed(ourDriver, one), inOne);
});

test("pi 1.6's sessions open through the binding with pi 1.6's tree of entries, leaf, labels and name", {
  skip: pi16Installed ? false : "pi 1.6.0 is not installed (interop/setup installs it)",
}, () => {
  // pi 1.6 refuses a damaged copy that pi-mono 0.73.1 reads (one that begins with a byte
  // order mark); the binding reads as pi-mono does, so those are left out.
  const written = views(drive(pi16Driver, "generate", "1", "4", join(home, "pi-1.6"))).filter(({ view }) => !view.refused);
  assert.ok(written.length >= 4 * 3, `pi 1.6 opened ${written.length} files`);
  const ours = drive(ourDriver, "inspect", ...written.map((w) => w.file));
  // The context is pi-mono 0.73.1's here, which does not know pi 1.6's newer entries.
  const shown = ({ id, entryCount, leafId, tree, labels, name, refused }) => ({ id, entryCount, leafId, tree, labels, name, refused });
  assert.equal(ours.length, written.length);
  written.forEach(({ file, view }, at) => assert.deepEqual(shown(ours[at]), shown(view), `${file}: the views differ`));
  assert.ok(written.some(({ view }) => view.entryCount > 10), "the sessions hold entries");
});
