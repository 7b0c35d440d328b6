// Seeded, random sessions built through a peer's own SessionManager, and damaged
// and legacy copies of them. Shared by the drivers of pi (Node) and oh-my-pi (Bun).
//
// `api` adapts the few calls whose signatures differ between the peers and
// versions, and names the entry types a version writes that others do not.

/** mulberry32: a small seeded generator, so a failing seed can be replayed. */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (items) => items[Math.floor(next() * items.length)],
    chance: (p) => next() < p,
  };
}

const TEXTS = [
  "hello",
  "naïve café ☕ — «quotes» and \"double\" 'single'",
  "line one\nline two\r\nline three",
  "tab\there and a NUL-free \u0001\u0007\u001b[31mcontrol\u001b[0m run",
  "emoji 🎉👩‍💻 and astral 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
  "日本語のテキストと한국어 and עברית",
  "back\\slash and /slash and \u2028 separator",
  "",
  "a much longer paragraph ".repeat(40),
];

function base64Image(r, big) {
  const length = big ? 1024 + r.int(3000) : 4 + r.int(200);
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = r.int(256);
  return Buffer.from(bytes).toString("base64");
}

function text(r, n) {
  return `${r.pick(TEXTS)} #${n}`;
}

/** Random token counts and costs, as a provider would report them. */
export function usageOf(r) {
  const input = r.int(5000);
  const output = r.int(2000);
  const cacheRead = r.chance(0.5) ? r.int(20000) : 0;
  const cacheWrite = r.chance(0.3) ? r.int(3000) : 0;
  const cost = { input: input * 3e-6, output: output * 1.5e-5, cacheRead: cacheRead * 3e-7, cacheWrite: cacheWrite * 3.75e-6 };
  return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost: { ...cost, total: cost.input + cost.output + cost.cacheRead + cost.cacheWrite } };
}

const ROLES_WITH_CONTENT = ["user", "assistant", "toolResult"];

/**
 * A message whose content is null or missing, as old versions, forks and
 * hand-edited files hold (only where `api.nullContent`).
 */
function contentless(r, n, timestamp) {
  const role = r.pick([...ROLES_WITH_CONTENT, "system"]);
  const base =
    role === "assistant"
      ? { role, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: usageOf(r), stopReason: "stop", timestamp }
      : role === "toolResult"
        ? { role, toolCallId: `call_${r.int(n + 1)}`, toolName: "read", isError: false, timestamp }
        : { role, timestamp };
  return r.chance(0.5) ? { ...base, content: null } : base;
}

/** A `system` message: more instructions, prompt sections and tools added or removed. */
function system(r, n) {
  const message = { role: "system", content: r.pick([text(r, n), [{ type: "text", text: text(r, n) }], ""]), timestamp: 1_767_225_600_000 + n };
  if (r.chance(0.4)) message.sections = { [r.pick(["<rules>", "<env>"])]: r.chance(0.8) ? `section ${n}` : null };
  if (r.chance(0.3)) message.toolsAdded = [{ name: r.pick(["read", "grep"]), description: `tool ${n}`, parameters: { type: "object", properties: {} } }];
  if (r.chance(0.2)) message.toolsRemoved = [{ name: r.pick(["read", "grep"]) }];
  return message;
}

/** One agent message of a random role. */
function message(r, n, api) {
  const timestamp = 1_767_225_600_000 + n;
  if (api.nullContent && r.chance(0.06)) return contentless(r, n, timestamp);
  if (api.systemMessages && r.chance(0.08)) return system(r, n);
  switch (r.int(7)) {
    case 0:
    case 1: {
      const content = r.chance(0.2)
        ? text(r, n)
        : [{ type: "text", text: text(r, n) }, ...(r.chance(0.25) ? [{ type: "image", data: base64Image(r, r.chance(0.5)), mimeType: "image/png" }] : [])];
      return { role: "user", content, timestamp };
    }
    case 2:
    case 3: {
      const content = [];
      if (r.chance(0.3)) content.push({ type: "thinking", thinking: `thinking ${n}`, thinkingSignature: "sig" });
      content.push({ type: "text", text: text(r, n) });
      if (r.chance(0.4)) content.push({ type: "toolCall", id: `call_${n}`, name: r.pick(["read", "bash", "edit"]), arguments: { path: `src/${n}.ts`, nested: { deep: [1, 2.5, null, true] } } });
      const model = r.pick(["claude-sonnet-4-5", "gpt-4o"]);
      return {
        role: "assistant",
        content,
        api: "anthropic-messages",
        provider: r.pick(["anthropic", "openai"]),
        model,
        ...(api.responseModel && r.chance(0.2) ? { responseModel: `${model}-2026` } : {}),
        usage: usageOf(r),
        stopReason: r.pick(["stop", "toolUse"]),
        timestamp,
      };
    }
    case 4:
      return {
        role: "toolResult",
        toolCallId: `call_${r.int(n + 1)}`,
        toolName: r.pick(["read", "bash"]),
        content: [{ type: "text", text: text(r, n) }, ...(r.chance(0.3) ? [{ type: "image", data: base64Image(r, r.chance(0.5)), mimeType: "image/jpeg" }] : [])],
        details: r.chance(0.5) ? { lines: n } : undefined,
        ...(api.toolUsage && r.chance(0.2) ? { usage: usageOf(r) } : {}),
        isError: r.chance(0.2),
        timestamp,
      };
    case 5:
      return { role: "bashExecution", command: `ls ${n}`, output: text(r, n), exitCode: r.pick([0, 1, null]), cancelled: false, truncated: false, timestamp };
    default:
      return { role: "custom", customType: "note", content: text(r, n), display: r.chance(0.5), timestamp };
  }
}

/** Whether pi lets a `context_edit` target `entry`: content the model sees. */
function editable(entry) {
  return entry.type === "custom_message" || (entry.type === "message" && ROLES_WITH_CONTENT.includes(entry.message?.role));
}

/** A context edit's replacement: removed (null), or new content as a string or blocks. */
function replacement(r, n) {
  if (r.chance(0.2)) return null;
  if (r.chance(0.5)) return { content: `edited ${n}: ${r.pick(TEXTS)}` };
  return { content: [{ type: "text", text: `edited ${n}` }, ...(r.chance(0.2) ? [{ type: "image", data: base64Image(r, false), mimeType: "image/png" }] : [])] };
}

/** A session name: short, long (beyond a fixed-width title slot), or with control characters. */
function name(r, n) {
  const roll = r.int(10);
  if (roll === 0) return `long name ${n} ${"ü".repeat(150)} end`;
  if (roll === 1) return ` spaced\tname ${n}\n second line `;
  if (roll === 2) return "";
  return `name ${n} ${r.pick(TEXTS).slice(0, 12)}`;
}

/**
 * Builds one session through `sm`; returns nothing (the file is the result).
 * `api` adapts the calls whose signatures differ and says which entry types the
 * peer writes (a method or flag absent: none of that kind).
 */
export async function generate(sm, seed, api) {
  const r = rng(seed);
  const ids = [];
  const remember = (id) => {
    if (typeof id === "string") ids.push(id);
  };
  let lastEdited;
  // An early assistant message, so the peer writes the file.
  remember(sm.appendMessage({ role: "user", content: [{ type: "text", text: `start ${seed}` }], timestamp: 1_767_225_600_000 }));
  remember(sm.appendMessage({ role: "assistant", content: [{ type: "text", text: "ok" }], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: usageOf(r), stopReason: "stop", timestamp: 1_767_225_600_001 }));
  const steps = 10 + r.int(60);
  for (let n = 0; n < steps; n++) {
    if (api.contextEdit && r.chance(0.08)) {
      // Several edits of one target (the newest wins), on the active branch.
      const targets = sm.getBranch().filter(editable);
      const again = lastEdited && targets.some((e) => e.id === lastEdited) && r.chance(0.4);
      const target = again ? lastEdited : targets.length ? r.pick(targets).id : undefined;
      if (target) {
        lastEdited = target;
        remember(await api.contextEdit(sm, target, replacement(r, n)));
        continue;
      }
    }
    if (api.usage && r.chance(0.04)) {
      const kind = r.pick(["cache_warm", "classifier", "images"]);
      remember(await api.usage(sm, kind, r.pick(["anthropic", "openai"]), r.pick(["claude-sonnet-4-5", "gpt-4o"]), usageOf(r), r.chance(0.3) ? `note ${n}` : undefined));
      continue;
    }
    const roll = r.int(100);
    if (roll < 45) remember(sm.appendMessage(message(r, n, api)));
    else if (roll < 50) remember(sm.appendThinkingLevelChange(r.pick(["off", "low", "medium", "high"])));
    else if (roll < 55) remember(await api.modelChange(sm, r.pick(["openai", "google"]), r.pick(["gpt-4o", "gemini-2"])));
    else if (roll < 59 && ids.length) {
      const branch = sm.getBranch();
      const kept = branch.length ? r.pick(branch).id : r.pick(ids);
      remember(await api.compaction(sm, r, `summary ${n}: ${text(r, n)}`, kept, 1000 + n, r.chance(0.5) ? { readFiles: [`f${n}`] } : undefined));
    } else if (roll < 65 && ids.length) remember(sm.appendLabelChange(r.pick(ids), r.pick(["checkpoint", "", undefined, `label ${n} ✓`])));
    else if (roll < 69) remember(sm.appendCustomEntry(r.pick(["ext", "my-extension"]), r.chance(0.7) ? { n, nested: { list: [n] } } : undefined));
    else if (roll < 74) remember(sm.appendCustomMessageEntry("ext", r.chance(0.5) ? text(r, n) : [{ type: "text", text: text(r, n) }], r.chance(0.5), r.chance(0.5) ? { d: n } : undefined));
    else if (roll < 77) remember(await api.sessionName(sm, r, name(r, n)));
    else if (roll < 85 && ids.length) sm.branch(r.pick(ids));
    else if (roll < 90 && ids.length) remember(await api.branchWithSummary(sm, r, r.chance(0.85) ? r.pick(ids) : null, r.chance(0.8) ? `branch summary ${n}` : "", r.chance(0.5) ? { note: n } : undefined, r.chance(0.5) ? false : undefined));
    else if (roll < 93) sm.resetLeaf();
    else remember(await api.extra(sm, r, n));
  }
}

/** Damaged copies of a session file's text: name → text. */
export function damaged(text, seed) {
  const r = rng(seed ^ 0x5eed);
  const lines = text.split("\n").filter((l) => l.length > 0);
  const middle = 1 + r.int(Math.max(1, lines.length - 2));
  const badMiddle = [...lines.slice(0, middle), '{"type":"message","id":"broken","parentId":', ...lines.slice(middle)].join("\n") + "\n";
  const last = lines[lines.length - 1];
  const truncated = lines.slice(0, -1).join("\n") + "\n" + last.slice(0, Math.max(1, Math.floor(last.length / 2)));
  const crlfBom = "\uFEFF" + lines.join("\r\n") + "\r\n";
  return { "bad-middle": badMiddle, "truncated-tail": truncated, "crlf-bom": crlfBom };
}

/**
 * Legacy copies of a session: a v1 file (the path to the leaf, without ids,
 * compactions pointing at an index) and a v2 file (the whole tree, custom
 * messages written with the old `hookMessage` role).
 */
export function legacy(header, entries, leafPath) {
  const v1Entries = leafPath.map((e) => {
    const { id, parentId, ...rest } = structuredClone(e);
    return rest;
  });
  leafPath.forEach((e, i) => {
    if (e.type !== "compaction") return;
    const at = leafPath.findIndex((x) => x.id === e.firstKeptEntryId);
    delete v1Entries[i].firstKeptEntryId;
    if (at >= 0) v1Entries[i].firstKeptEntryIndex = at + 1; // the header is index 0
  });
  const { version, ...v1Header } = header;
  const v1 = [v1Header, ...v1Entries].map((e) => JSON.stringify(e)).join("\n") + "\n";
  const v2Entries = entries.map((e) => {
    const copy = structuredClone(e);
    if (copy.type === "message" && copy.message?.role === "custom") copy.message.role = "hookMessage";
    return copy;
  });
  const v2 = [{ ...header, version: 2 }, ...v2Entries].map((e) => JSON.stringify(e)).join("\n") + "\n";
  return { v1, v2 };
}

/** The peer's getTree as `{id, type, label?, children}` nodes. */
export function treeJson(roots, leafId) {
  const strip = (node) => ({ id: node.entry.id, type: node.entry.type, ...(node.label !== undefined ? { label: node.label } : {}), children: node.children.map(strip) });
  return { leafId, roots: roots.map(strip) };
}
