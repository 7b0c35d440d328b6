// sess's session store for the pi family's TypeScript agents: pi-mono 0.73.1's
// `SessionManager` API (its `dist/core/session-manager.d.ts` is the contract),
// with the session kept by sess's Rust `SessionManager` in a native addon.
//
// The native half reads and writes the files (lenient reading, migration,
// durable appends, branched sessions and forks); this half makes the
// entries the JSON objects pi would have parsed, once, when a method first
// needs them, and answers the read methods from them.
import { createRequire } from "node:module";
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

const native = createRequire(import.meta.url)("./sess.node");

export const CURRENT_SESSION_VERSION = 3;

/** What `new SessionManager` is given, so only the static constructors make one. */
const MAKING = Symbol("making");

/** pi's agent folder: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`. */
function defaultAgentDir() {
  const dir = process.env.PI_CODING_AGENT_DIR;
  if (dir) return dir === "~" ? homedir() : dir.startsWith("~/") ? join(homedir(), dir.slice(2)) : dir;
  return join(homedir(), ".pi", "agent");
}

/**
 * The folder of `cwd`'s sessions under the agent folder (made when missing):
 * `sessions/--<cwd with separators as dashes>--`.
 */
export function getDefaultSessionDir(cwd, agentDir = defaultAgentDir()) {
  const dir = join(agentDir, "sessions", native.sessionDirName(cwd));
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  return dir;
}

/** Brings `entries` (a header first) to the current version, in place. */
export function migrateSessionEntries(entries) {
  const header = entries.find((e) => e.type === "session");
  const version = header?.version ?? 1;
  if (version >= CURRENT_SESSION_VERSION) return;
  const migrated = JSON.parse(native.migrateEntriesJson(JSON.stringify(entries)));
  entries.splice(0, entries.length, ...migrated);
}

/** The JSON objects of the lines of `content`; lines that are not JSON are left out. */
export function parseSessionEntries(content) {
  const entries = [];
  for (const line of content.trim().split("\n")) {
    if (!line.trim()) continue;
    try {
      entries.push(JSON.parse(line));
    } catch {
      // Not JSON: left out, as pi does.
    }
  }
  return entries;
}

/** The last `compaction` entry of `entries`. */
export function getLatestCompactionEntry(entries) {
  for (let i = entries.length - 1; i >= 0; i--) {
    if (entries[i].type === "compaction") return entries[i];
  }
  return null;
}

/**
 * The entries of the session file `filePath`, its header first, migrated to
 * the current version; none when it does not exist or its first line is not
 * a session header.
 */
export function loadEntriesFromFile(filePath) {
  return JSON.parse(native.loadEntriesJson(filePath));
}

/** The most recently modified session file of `sessionDir` with a valid header. */
export function findMostRecentSession(sessionDir) {
  return native.findMostRecentSession(sessionDir) ?? null;
}

/** A message's time in ms, as pi gives it to the messages it makes. */
const millis = (timestamp) => new Date(timestamp).getTime();

/**
 * What a session sends to the model from `leafId` (the last entry when
 * undefined or unknown; nothing when `null`): the messages of the path from
 * the root, the newest compaction's summary in place of what it compacted,
 * and the thinking level and model in force.
 */
export function buildSessionContext(entries, leafId, byId) {
  const empty = () => ({ messages: [], thinkingLevel: "off", model: null });
  if (leafId === null) return empty();
  if (!byId) {
    byId = new Map();
    for (const entry of entries) byId.set(entry.id, entry);
  }
  const leaf = (leafId ? byId.get(leafId) : undefined) ?? entries[entries.length - 1];
  if (!leaf) return empty();
  const path = [];
  for (let at = leaf; at; at = at.parentId ? byId.get(at.parentId) : undefined) path.push(at);
  path.reverse();
  let thinkingLevel = "off";
  let model = null;
  let compaction = null;
  for (const entry of path) {
    if (entry.type === "thinking_level_change") thinkingLevel = entry.thinkingLevel;
    else if (entry.type === "model_change") model = { provider: entry.provider, modelId: entry.modelId };
    else if (entry.type === "message" && entry.message.role === "assistant") {
      model = { provider: entry.message.provider, modelId: entry.message.model };
    } else if (entry.type === "compaction") compaction = entry;
  }
  const messages = [];
  const add = (entry) => {
    if (entry.type === "message") messages.push(entry.message);
    else if (entry.type === "custom_message") {
      const { customType, content, display, details } = entry;
      messages.push({ role: "custom", customType, content, display, details, timestamp: millis(entry.timestamp) });
    } else if (entry.type === "branch_summary" && entry.summary) {
      messages.push({ role: "branchSummary", summary: entry.summary, fromId: entry.fromId, timestamp: millis(entry.timestamp) });
    }
  };
  if (!compaction) {
    for (const entry of path) add(entry);
    return { messages, thinkingLevel, model };
  }
  const { summary, tokensBefore } = compaction;
  messages.push({ role: "compactionSummary", summary, tokensBefore, timestamp: millis(compaction.timestamp) });
  const at = path.findIndex((e) => e.type === "compaction" && e.id === compaction.id);
  let kept = false;
  for (let i = 0; i < at; i++) {
    kept ||= path[i].id === compaction.firstKeptEntryId;
    if (kept) add(path[i]);
  }
  for (let i = at + 1; i < path.length; i++) add(path[i]);
  return { messages, thinkingLevel, model };
}

export class SessionManager {
  #native;
  #cwd;
  #sessionDir;
  #header = null;
  /**
   * The entries as JavaScript objects, made the first time a method needs
   * them (opening a session and building its context does not): `null` until
   * then, while the native session answers.
   */
  #entries = null;
  /**
   * The message objects handed out in contexts while `#entries` is null, by
   * the id of their entry: a later context, and the entries when they are
   * made, hold these same objects, as pi's do.
   */
  #messages = new Map();
  #byId = new Map();
  #labels = new Map();
  #labelTimes = new Map();

  /** Made by the static constructors only. */
  constructor(making, session, cwd, sessionDir) {
    if (making !== MAKING) throw new TypeError("SessionManager is made by create, open, continueRecent, inMemory or forkFrom");
    this.#native = session;
    this.#sessionDir = sessionDir;
    this.#reload();
    // Without one given (`open`), the header's, else the process's.
    this.#cwd = cwd ?? this.#header.cwd ?? process.cwd();
  }

  /** Takes the header from the native session again; the entries are made again when asked for. */
  #reload() {
    this.#header = JSON.parse(this.#native.headerJson());
    this.#entries = null;
    this.#messages.clear();
  }

  /** The entries as objects, made from the native lines the first time. */
  #all() {
    if (this.#entries === null) {
      this.#entries = JSON.parse(this.#native.entriesJson());
      this.#byId.clear();
      this.#labels.clear();
      this.#labelTimes.clear();
      for (const entry of this.#entries) this.#index(entry);
      // The entry an id names (the last of that id) gets the object a context gave out.
      for (const [id, message] of this.#messages) {
        const entry = this.#byId.get(id);
        if (entry?.type === "message") entry.message = message;
      }
      this.#messages.clear();
    }
    return this.#entries;
  }

  #index(entry) {
    this.#byId.set(entry.id, entry);
    if (entry.type !== "label") return;
    if (entry.label) {
      this.#labels.set(entry.targetId, entry.label);
      this.#labelTimes.set(entry.targetId, entry.timestamp);
    } else {
      this.#labels.delete(entry.targetId);
      this.#labelTimes.delete(entry.targetId);
    }
  }

  /** Keeps the entry the native session appended (when the entries are made); returns its id. */
  #added(id) {
    if (this.#entries !== null) {
      const entry = JSON.parse(this.#native.entryJson(id));
      this.#entries.push(entry);
      this.#index(entry);
    }
    return id;
  }

  /** Appends an entry of `type` with `fields` (in pi's key order; the native session puts the base fields where pi does). */
  #append(type, fields) {
    return this.#added(this.#native.appendFields(type, JSON.stringify(fields)));
  }

  #mustHave(id) {
    if (!this.#native.hasEntry(id)) throw new Error(`Entry ${id} not found`);
  }

  setSessionFile(sessionFile) {
    this.#native.setSessionFile(resolve(sessionFile));
    this.#reload();
  }

  newSession(options) {
    const file = this.#native.newSession(this.#native.isPersisted() ? this.#sessionDir : undefined, options?.id, options?.parentSession);
    this.#reload();
    return file ?? undefined;
  }

  isPersisted() {
    return this.#native.isPersisted();
  }

  getCwd() {
    return this.#cwd;
  }

  getSessionDir() {
    return this.#sessionDir;
  }

  getSessionId() {
    return this.#native.sessionId();
  }

  getSessionFile() {
    return this.#native.sessionFile() ?? undefined;
  }

  appendMessage(message) {
    return this.#added(this.#native.appendMessage(JSON.stringify(message)));
  }

  appendThinkingLevelChange(thinkingLevel) {
    return this.#append("thinking_level_change", { thinkingLevel });
  }

  appendModelChange(provider, modelId) {
    return this.#append("model_change", { provider, modelId });
  }

  appendCompaction(summary, firstKeptEntryId, tokensBefore, details, fromHook) {
    return this.#append("compaction", { summary, firstKeptEntryId, tokensBefore, details, fromHook });
  }

  appendCustomEntry(customType, data) {
    return this.#append("custom", { customType, data });
  }

  appendSessionInfo(name) {
    return this.#append("session_info", { name: name.trim() });
  }

  getSessionName() {
    if (this.#entries === null) return this.#native.sessionName() ?? undefined;
    for (let i = this.#entries.length - 1; i >= 0; i--) {
      const entry = this.#entries[i];
      if (entry.type === "session_info") return entry.name?.trim() || undefined;
    }
    return undefined;
  }

  appendCustomMessageEntry(customType, content, display, details) {
    return this.#append("custom_message", { customType, content, display, details });
  }

  getLeafId() {
    return this.#native.leafId() ?? null;
  }

  getLeafEntry() {
    const leaf = this.getLeafId();
    return leaf ? this.getEntry(leaf) : undefined;
  }

  getEntry(id) {
    this.#all();
    return this.#byId.get(id);
  }

  getChildren(parentId) {
    return this.#all().filter((entry) => entry.parentId === parentId);
  }

  getLabel(id) {
    if (this.#entries === null) return this.#native.label(id) ?? undefined;
    return this.#labels.get(id);
  }

  appendLabelChange(targetId, label) {
    this.#mustHave(targetId);
    return this.#append("label", { targetId, label });
  }

  getBranch(fromId) {
    this.#all();
    const path = [];
    const start = fromId ?? this.getLeafId();
    for (let at = start ? this.#byId.get(start) : undefined; at; at = at.parentId ? this.#byId.get(at.parentId) : undefined) {
      path.push(at);
    }
    return path.reverse();
  }

  buildSessionContext() {
    // Before the entries are objects, the native session builds it: only
    // what the context holds is parsed.
    if (this.#entries === null) {
      const { entryIds, ...context } = JSON.parse(this.#native.contextJson());
      context.messages = context.messages.map((message, at) => {
        const id = entryIds[at];
        if (id === null) return message;
        const known = this.#messages.get(id);
        if (known !== undefined) return known;
        this.#messages.set(id, message);
        return message;
      });
      return context;
    }
    return buildSessionContext(this.#entries, this.getLeafId(), this.#byId);
  }

  getHeader() {
    return this.#header;
  }

  getEntries() {
    return [...this.#all()];
  }

  getTree() {
    const entries = this.#all();
    const nodes = new Map();
    for (const entry of entries) {
      nodes.set(entry.id, { entry, children: [], label: this.#labels.get(entry.id), labelTimestamp: this.#labelTimes.get(entry.id) });
    }
    const roots = [];
    for (const entry of entries) {
      const node = nodes.get(entry.id);
      const parent = entry.parentId === null || entry.parentId === entry.id ? undefined : nodes.get(entry.parentId);
      (parent ? parent.children : roots).push(node);
    }
    const stack = [...roots];
    while (stack.length > 0) {
      const node = stack.pop();
      node.children.sort((a, b) => millis(a.entry.timestamp) - millis(b.entry.timestamp));
      stack.push(...node.children);
    }
    return roots;
  }

  branch(branchFromId) {
    this.#mustHave(branchFromId);
    this.#native.branch(branchFromId);
  }

  resetLeaf() {
    this.#native.resetLeaf();
  }

  branchWithSummary(branchFromId, summary, details, fromHook) {
    if (branchFromId !== null) {
      this.#mustHave(branchFromId);
      this.#native.branch(branchFromId);
    } else {
      this.#native.resetLeaf();
    }
    return this.#append("branch_summary", { fromId: branchFromId ?? "root", summary, details, fromHook });
  }

  createBranchedSession(leafId) {
    if (!leafId || !this.#native.hasEntry(leafId)) throw new Error(`Entry ${leafId} not found`);
    const persisted = this.#native.isPersisted();
    const file = this.#native.createBranchedSession(leafId, persisted ? this.#sessionDir : undefined);
    this.#reload();
    return file ?? undefined;
  }

  static create(cwd, sessionDir) {
    const dir = sessionDir ?? getDefaultSessionDir(cwd);
    return new SessionManager(MAKING, native.NativeSession.create(cwd, dir), cwd, dir);
  }

  static open(path, sessionDir, cwdOverride) {
    const file = resolve(path);
    const dir = sessionDir ?? resolve(file, "..");
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
    // A new session (no file there) is for the cwd given, else the process's;
    // an existing one's is its header's, unless one is given.
    const session = native.NativeSession.open(file, cwdOverride ?? process.cwd());
    return new SessionManager(MAKING, session, cwdOverride, dir);
  }

  static continueRecent(cwd, sessionDir) {
    const dir = sessionDir ?? getDefaultSessionDir(cwd);
    return new SessionManager(MAKING, native.NativeSession.continueRecent(cwd, dir), cwd, dir);
  }

  static inMemory(cwd = process.cwd()) {
    return new SessionManager(MAKING, native.NativeSession.inMemory(cwd), cwd, "");
  }

  static forkFrom(sourcePath, targetCwd, sessionDir) {
    // The native fork makes the folder once the source is read.
    const dir = sessionDir ?? join(defaultAgentDir(), "sessions", native.sessionDirName(targetCwd));
    return new SessionManager(MAKING, native.NativeSession.forkFrom(sourcePath, targetCwd, dir), targetCwd, dir);
  }

  static async list(cwd, sessionDir, onProgress) {
    const dir = sessionDir ?? getDefaultSessionDir(cwd);
    const sessions = listFiles(jsonlFiles(dir), onProgress);
    return sessions.sort((a, b) => b.modified.getTime() - a.modified.getTime());
  }

  static async listAll(onProgress) {
    const root = join(defaultAgentDir(), "sessions");
    if (!existsSync(root)) return [];
    const dirs = (await readdir(root, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => join(root, e.name));
    const sessions = listFiles(dirs.flatMap(jsonlFiles), onProgress);
    return sessions.sort((a, b) => b.modified.getTime() - a.modified.getTime());
  }
}

/** The `.jsonl` files of `dir` (none when it cannot be read). */
function jsonlFiles(dir) {
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) => join(dir, name));
  } catch {
    return [];
  }
}

/** The `SessionInfo` of each session file of `files` that has a header, `onProgress` told of each. */
function listFiles(files, onProgress) {
  const sessions = [];
  files.forEach((file, at) => {
    const info = sessionInfo(file);
    onProgress?.(at + 1, files.length);
    if (info) sessions.push(info);
  });
  return sessions;
}

/** The text of a message's content: a string, or its text blocks joined by spaces. */
function textOf(content) {
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.filter((b) => b?.type === "text").map((b) => b.text).join(" ") : "";
}

/** What pi lists of the session file `file`; none without a header. */
function sessionInfo(file) {
  let entries;
  try {
    entries = loadEntriesFromFile(file);
  } catch {
    return null;
  }
  const header = entries[0];
  if (!header || header.type !== "session") return null;
  let name;
  let messageCount = 0;
  let firstMessage = "";
  const texts = [];
  let lastActivity;
  for (const entry of entries) {
    if (entry.type === "session_info") name = entry.name?.trim() || undefined;
    if (entry.type !== "message") continue;
    messageCount++;
    const message = entry.message;
    if (typeof message?.role !== "string" || !("content" in message)) continue;
    if (message.role !== "user" && message.role !== "assistant") continue;
    const at = typeof message.timestamp === "number" ? message.timestamp : millis(entry.timestamp);
    if (!Number.isNaN(at)) lastActivity = Math.max(lastActivity ?? 0, at);
    const text = textOf(message.content);
    if (!text) continue;
    texts.push(text);
    if (!firstMessage && message.role === "user") firstMessage = text;
  }
  const stats = statSync(file);
  const created = new Date(header.timestamp);
  const headerTime = typeof header.timestamp === "string" ? created.getTime() : Number.NaN;
  const modified = lastActivity > 0 ? new Date(lastActivity) : Number.isNaN(headerTime) ? stats.mtime : new Date(headerTime);
  return {
    path: file,
    id: header.id,
    cwd: typeof header.cwd === "string" ? header.cwd : "",
    name,
    parentSessionPath: header.parentSession,
    created,
    modified,
    messageCount,
    firstMessage: firstMessage || "(no messages)",
    allMessagesText: texts.join(" "),
  };
}
