// Each method of the binding's SessionManager and each free function, on its
// own: what pi-mono 0.73.1 documents for it.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import {
  CURRENT_SESSION_VERSION,
  SessionManager,
  buildSessionContext,
  findMostRecentSession,
  getDefaultSessionDir,
  getLatestCompactionEntry,
  loadEntriesFromFile,
  migrateSessionEntries,
  parseSessionEntries,
} from "../index.js";

const scratch = mkdtempSync(join(tmpdir(), "sess-node-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
let folders = 0;
const folder = () => join(scratch, `d${folders++}`);

const user = (text) => ({ role: "user", content: [{ type: "text", text }], timestamp: 1_767_225_600_000 });
const assistant = (text, model = "m1") => ({
  role: "assistant",
  content: [{ type: "text", text }],
  provider: "p1",
  model,
  usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3, cost: { total: 0.5 } },
  stopReason: "stop",
  timestamp: 1_767_225_600_001,
});

const lines = (file) => readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));

test("a new session is written at its first assistant message, header first", () => {
  const dir = folder();
  const sm = SessionManager.create("/work/p", dir);
  assert.equal(sm.isPersisted(), true);
  assert.equal(sm.getCwd(), "/work/p");
  assert.equal(sm.getSessionDir(), dir);
  const file = sm.getSessionFile();
  assert.ok(file.startsWith(dir) && file.endsWith(`_${sm.getSessionId()}.jsonl`), file);
  const question = sm.appendMessage(user("hi"));
  assert.equal(existsSync(file), false, "nothing before an assistant message");
  const answer = sm.appendMessage(assistant("hello"));
  const written = lines(file);
  assert.deepEqual(written[0], sm.getHeader());
  assert.equal(written[0].version, CURRENT_SESSION_VERSION);
  assert.equal(written[0].cwd, "/work/p");
  assert.deepEqual(written.slice(1), sm.getEntries());
  assert.equal(written[1].id, question);
  assert.equal(written[2].parentId, question);
  assert.equal(sm.getLeafId(), answer);
  assert.deepEqual(sm.getLeafEntry(), written[2]);
  // Later entries are appended one line each.
  sm.appendThinkingLevelChange("high");
  assert.equal(lines(file).length, 4);
});

test("every append writes pi's entry with its fields in pi's order", () => {
  const sm = SessionManager.inMemory("/p");
  const first = sm.appendMessage(user("a"));
  const ids = [
    sm.appendThinkingLevelChange("low"),
    sm.appendModelChange("anthropic", "claude"),
    sm.appendCompaction("summary", first, 1234, { files: ["a"] }, false),
    sm.appendCustomEntry("ext", { n: 1 }),
    sm.appendSessionInfo("  named  "),
    sm.appendCustomMessageEntry("ext", "shown", true, { d: 2 }),
    sm.appendLabelChange(first, "here"),
  ];
  const keys = ids.map((id) => Object.keys(sm.getEntry(id)));
  assert.deepEqual(keys, [
    ["type", "id", "parentId", "timestamp", "thinkingLevel"],
    ["type", "id", "parentId", "timestamp", "provider", "modelId"],
    ["type", "id", "parentId", "timestamp", "summary", "firstKeptEntryId", "tokensBefore", "details", "fromHook"],
    ["type", "customType", "data", "id", "parentId", "timestamp"],
    ["type", "id", "parentId", "timestamp", "name"],
    ["type", "customType", "content", "display", "details", "id", "parentId", "timestamp"],
    ["type", "id", "parentId", "timestamp", "targetId", "label"],
  ]);
  assert.equal(sm.getSessionName(), "named");
  assert.equal(sm.getLabel(first), "here");
  // Fields left undefined are left out, as JSON.stringify leaves them.
  const bare = sm.appendCompaction("s", first, 1);
  assert.deepEqual(Object.keys(sm.getEntry(bare)), ["type", "id", "parentId", "timestamp", "summary", "firstKeptEntryId", "tokensBefore"]);
  // Each entry's parent is the one before.
  const entries = sm.getEntries();
  entries.slice(1).forEach((entry, at) => assert.equal(entry.parentId, entries[at].id));
});

test("labels are set and cleared, and an unknown entry is pi's error", () => {
  const sm = SessionManager.inMemory("/p");
  const a = sm.appendMessage(user("a"));
  sm.appendLabelChange(a, "mark");
  assert.equal(sm.getTree()[0].label, "mark");
  assert.ok(sm.getTree()[0].labelTimestamp);
  sm.appendLabelChange(a, undefined);
  assert.equal(sm.getLabel(a), undefined);
  assert.throws(() => sm.appendLabelChange("nope", "x"), { message: "Entry nope not found" });
  assert.throws(() => sm.branch("nope"), { message: "Entry nope not found" });
  assert.throws(() => sm.branchWithSummary("nope", "s"), { message: "Entry nope not found" });
  assert.throws(() => sm.createBranchedSession("nope"), { message: "Entry nope not found" });
});

test("branching moves the leaf; the tree, children, branch and context follow it", () => {
  const sm = SessionManager.inMemory("/p");
  const q = sm.appendMessage(user("q"));
  const a1 = sm.appendMessage(assistant("a1"));
  sm.branch(q);
  assert.equal(sm.getLeafId(), q);
  const a2 = sm.appendMessage(assistant("a2", "m2"));
  assert.deepEqual(sm.getChildren(q).map((e) => e.id), [a1, a2]);
  assert.deepEqual(sm.getBranch().map((e) => e.id), [q, a2]);
  assert.deepEqual(sm.getBranch(a1).map((e) => e.id), [q, a1]);
  const [root] = sm.getTree();
  assert.equal(root.entry.id, q);
  assert.deepEqual(root.children.map((n) => n.entry.id), [a1, a2]);
  assert.deepEqual(sm.buildSessionContext().model, { provider: "p1", modelId: "m2" });
  const summary = sm.branchWithSummary(a1, "what a2 tried", { why: 1 }, true);
  assert.equal(sm.getEntry(summary).fromId, a1);
  assert.equal(sm.getEntry(summary).parentId, a1);
  const context = sm.buildSessionContext();
  assert.deepEqual(context.messages.map((m) => m.role), ["user", "assistant", "branchSummary"]);
  assert.equal(context.messages[2].summary, "what a2 tried");
  sm.resetLeaf();
  assert.equal(sm.getLeafId(), null);
  assert.deepEqual(sm.buildSessionContext(), { messages: [], thinkingLevel: "off", model: null });
  const root2 = sm.branchWithSummary(null, "from the start");
  assert.equal(sm.getEntry(root2).fromId, "root");
  assert.equal(sm.getEntry(root2).parentId, null);
  assert.equal(sm.getTree().length, 2);
});

test("a compaction's summary replaces what it compacted in the context", () => {
  const sm = SessionManager.inMemory("/p");
  sm.appendMessage(user("old"));
  const kept = sm.appendMessage(user("kept"));
  sm.appendMessage(assistant("answer"));
  sm.appendCompaction("the summary", kept, 500);
  sm.appendMessage(user("after"));
  sm.appendThinkingLevelChange("medium");
  const context = sm.buildSessionContext();
  assert.deepEqual(context.messages.map((m) => m.role), ["compactionSummary", "user", "assistant", "user"]);
  assert.equal(context.messages[0].tokensBefore, 500);
  assert.equal(context.messages[1].content[0].text, "kept");
  assert.equal(context.thinkingLevel, "medium");
  assert.equal(getLatestCompactionEntry(sm.getEntries()).summary, "the summary");
  // The free function, from any leaf.
  assert.equal(buildSessionContext(sm.getEntries(), kept).messages.length, 2);
  assert.deepEqual(buildSessionContext([], undefined).messages, []);
});

test("a session file opens with its entries, labels and leaf; appends go on the same file", () => {
  const dir = folder();
  const first = SessionManager.create("/p", dir);
  const q = first.appendMessage(user("q"));
  first.appendMessage(assistant("a"));
  first.appendLabelChange(q, "start");
  const file = first.getSessionFile();
  const again = SessionManager.open(file);
  assert.equal(again.getSessionId(), first.getSessionId());
  assert.equal(again.getCwd(), "/p");
  assert.equal(again.getSessionDir(), dir);
  assert.deepEqual(again.getEntries(), first.getEntries());
  assert.equal(again.getLabel(q), "start");
  assert.equal(again.getLeafId(), first.getLeafId());
  again.appendMessage(user("more"));
  assert.equal(lines(file).length, 5);
  // A cwd given wins over the header's.
  assert.equal(SessionManager.open(file, undefined, "/elsewhere").getCwd(), "/elsewhere");
  // A file that does not exist is a new session there.
  const fresh = join(dir, "new.jsonl");
  assert.equal(SessionManager.open(fresh).getSessionFile(), fresh);
  assert.deepEqual(SessionManager.open(fresh).getEntries(), []);
});

test("continueRecent opens the newest session of the folder, or starts one", () => {
  const dir = folder();
  const none = SessionManager.continueRecent("/p", dir);
  assert.deepEqual(none.getEntries(), []);
  const older = SessionManager.create("/p", dir);
  older.appendMessage(user("1"));
  older.appendMessage(assistant("1"));
  const newer = SessionManager.create("/p", dir);
  newer.appendMessage(user("2"));
  newer.appendMessage(assistant("2"));
  assert.equal(findMostRecentSession(dir), newer.getSessionFile());
  assert.equal(SessionManager.continueRecent("/p", dir).getSessionId(), newer.getSessionId());
  assert.equal(findMostRecentSession(join(dir, "missing")), null);
});

test("forkFrom copies every entry into a new session whose parent is the source", () => {
  const source = SessionManager.create("/a", folder());
  source.appendMessage(user("q"));
  source.appendMessage(assistant("a"));
  const dir = folder();
  const fork = SessionManager.forkFrom(source.getSessionFile(), "/b", dir);
  assert.notEqual(fork.getSessionId(), source.getSessionId());
  assert.equal(fork.getCwd(), "/b");
  assert.deepEqual(fork.getEntries(), source.getEntries());
  assert.deepEqual(lines(fork.getSessionFile()).slice(1), source.getEntries());
  assert.equal(fork.getHeader().parentSession, source.getSessionFile());
  const empty = join(dir, "empty.jsonl");
  writeFileSync(empty, "");
  assert.throws(() => SessionManager.forkFrom(empty, "/b", dir), { message: `Cannot fork: source session file is empty or invalid: ${empty}` });
});

test("createBranchedSession writes the path to a leaf as a new session", () => {
  const dir = folder();
  const sm = SessionManager.create("/p", dir);
  const q = sm.appendMessage(user("q"));
  const a1 = sm.appendMessage(assistant("a1"));
  sm.branch(q);
  sm.appendMessage(assistant("a2"));
  sm.appendLabelChange(q, "keep");
  const old = sm.getSessionFile();
  const file = sm.createBranchedSession(a1);
  assert.notEqual(file, old);
  assert.equal(sm.getSessionFile(), file);
  const written = lines(file);
  assert.equal(written[0].parentSession, old);
  assert.deepEqual(written.slice(1, 3).map((e) => e.id), [q, a1]);
  assert.equal(written[3].type, "label");
  assert.equal(sm.getLabel(q), "keep");
  assert.deepEqual(sm.getEntries(), written.slice(1));
  // In memory: the session is replaced, and no file is named.
  const memory = SessionManager.inMemory("/p");
  const m = memory.appendMessage(user("m"));
  memory.appendMessage(user("n"));
  assert.equal(memory.createBranchedSession(m), undefined);
  assert.deepEqual(memory.getEntries().map((e) => e.id), [m]);
});

test("newSession starts an empty session, with the id asked for", () => {
  const dir = folder();
  const sm = SessionManager.create("/p", dir);
  sm.appendMessage(user("q"));
  const file = sm.newSession({ id: "0199-given", parentSession: "/old.jsonl" });
  assert.equal(sm.getSessionId(), "0199-given");
  assert.ok(file.endsWith("_0199-given.jsonl"), file);
  assert.deepEqual(sm.getEntries(), []);
  assert.equal(sm.getHeader().parentSession, "/old.jsonl");
  assert.equal(sm.getLeafId(), null);
  assert.equal(SessionManager.inMemory("/p").newSession(), undefined);
});

test("list and listAll give pi's SessionInfo, newest first", async () => {
  const agent = folder();
  const previous = process.env.PI_CODING_AGENT_DIR;
  process.env.PI_CODING_AGENT_DIR = agent;
  try {
    const dir = getDefaultSessionDir("/home/u/proj");
    assert.equal(dir, join(agent, "sessions", "--home-u-proj--"));
    assert.ok(existsSync(dir));
    const sm = SessionManager.create("/home/u/proj");
    sm.appendMessage(user("first question"));
    sm.appendMessage(assistant("an answer"));
    sm.appendSessionInfo("Named");
    const told = [];
    const listed = await SessionManager.list("/home/u/proj", undefined, (done, total) => told.push([done, total]));
    assert.equal(listed.length, 1);
    const [info] = listed;
    assert.equal(info.path, sm.getSessionFile());
    assert.equal(info.id, sm.getSessionId());
    assert.equal(info.cwd, "/home/u/proj");
    assert.equal(info.name, "Named");
    assert.equal(info.messageCount, 2);
    assert.equal(info.firstMessage, "first question");
    assert.equal(info.allMessagesText, "first question an answer");
    assert.ok(info.created instanceof Date && info.modified instanceof Date);
    assert.deepEqual(told, [[1, 1]]);
    const other = SessionManager.create("/home/u/other");
    other.appendMessage(user("x"));
    other.appendMessage(assistant("y"));
    const all = await SessionManager.listAll();
    assert.deepEqual(all.map((s) => s.id).sort(), [sm.getSessionId(), other.getSessionId()].sort());
  } finally {
    if (previous === undefined) delete process.env.PI_CODING_AGENT_DIR;
    else process.env.PI_CODING_AGENT_DIR = previous;
  }
});

test("the free functions read, parse and migrate files as pi does", () => {
  const dir = folder();
  const sm = SessionManager.create("/p", dir);
  sm.appendMessage(user("q"));
  sm.appendMessage(assistant("a"));
  const file = sm.getSessionFile();
  const loaded = loadEntriesFromFile(file);
  assert.deepEqual(loaded, [sm.getHeader(), ...sm.getEntries()]);
  assert.deepEqual(loadEntriesFromFile(join(dir, "missing.jsonl")), []);
  const headless = join(dir, "headless.jsonl");
  writeFileSync(headless, '{"type":"message","id":"a","parentId":null}\n');
  assert.deepEqual(loadEntriesFromFile(headless), []);
  assert.deepEqual(parseSessionEntries('{"a":1}\nnot json\n\n{"b":2}\n'), [{ a: 1 }, { b: 2 }]);
  // A version 1 file: ids and parents given, the hookMessage role renamed.
  const legacy = [
    { type: "session", id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" },
    { type: "message", timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "q" } },
    { type: "message", timestamp: "2026-01-01T00:00:02.000Z", message: { role: "hookMessage", content: "h" } },
  ];
  migrateSessionEntries(legacy);
  assert.equal(legacy[0].version, CURRENT_SESSION_VERSION);
  assert.equal(typeof legacy[1].id, "string");
  assert.equal(legacy[1].parentId, null);
  assert.equal(legacy[2].parentId, legacy[1].id);
  assert.equal(legacy[2].message.role, "custom");
  assert.ok(readdirSync(dir).length >= 2);
});

test("a file that is not a session is refused and left as it is", () => {
  const dir = folder();
  const file = join(dir, "notes.jsonl");
  SessionManager.create("/p", dir);
  writeFileSync(file, "these are my notes\n");
  assert.throws(() => SessionManager.open(file), /is not a pi-family session: .*it was left as it is/);
  assert.equal(readFileSync(file, "utf8"), "these are my notes\n");
});
