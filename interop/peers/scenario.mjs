// Seeded, random sessions built through a peer's own SessionManager, and damaged
// and legacy copies of them. Shared by the pi-mono (Node) and oh-my-pi (Bun) drivers.
//
// `api` adapts the few calls whose signatures differ between the peers.

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

const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

/** One agent message of a random role. */
function message(r, n, ids) {
  const timestamp = 1_767_225_600_000 + n;
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
      return { role: "assistant", content, api: "anthropic-messages", provider: r.pick(["anthropic", "openai"]), model: r.pick(["claude-sonnet-4-5", "gpt-4o"]), usage, stopReason: r.pick(["stop", "toolUse"]), timestamp };
    }
    case 4:
      return {
        role: "toolResult",
        toolCallId: `call_${r.int(n + 1)}`,
        toolName: r.pick(["read", "bash"]),
        content: [{ type: "text", text: text(r, n) }, ...(r.chance(0.3) ? [{ type: "image", data: base64Image(r, r.chance(0.5)), mimeType: "image/jpeg" }] : [])],
        details: r.chance(0.5) ? { lines: n } : undefined,
        isError: r.chance(0.2),
        timestamp,
      };
    case 5:
      return { role: "bashExecution", command: `ls ${n}`, output: text(r, n), exitCode: r.pick([0, 1, null]), cancelled: false, truncated: false, timestamp };
    default:
      return { role: "custom", customType: "note", content: text(r, n), display: r.chance(0.5), timestamp };
  }
}

/** Builds one session through `sm`; returns nothing (the file is the result). */
export function generate(sm, seed, api) {
  const r = rng(seed);
  const ids = [];
  const remember = (id) => {
    if (typeof id === "string") ids.push(id);
  };
  // An early assistant message, so the peer writes the file.
  remember(sm.appendMessage({ role: "user", content: [{ type: "text", text: `start ${seed}` }], timestamp: 1_767_225_600_000 }));
  remember(sm.appendMessage({ role: "assistant", content: [{ type: "text", text: "ok" }], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage, stopReason: "stop", timestamp: 1_767_225_600_001 }));
  const steps = 10 + r.int(60);
  for (let n = 0; n < steps; n++) {
    const roll = r.int(100);
    if (roll < 45) remember(sm.appendMessage(message(r, n, ids)));
    else if (roll < 50) remember(sm.appendThinkingLevelChange(r.pick(["off", "low", "medium", "high"])));
    else if (roll < 55) remember(api.modelChange(sm, r.pick(["openai", "google"]), r.pick(["gpt-4o", "gemini-2"])));
    else if (roll < 59 && ids.length) {
      const branch = sm.getBranch();
      const kept = branch.length ? r.pick(branch).id : r.pick(ids);
      remember(api.compaction(sm, `summary ${n}: ${text(r, n)}`, kept, 1000 + n, r.chance(0.5) ? { readFiles: [`f${n}`] } : undefined));
    } else if (roll < 65 && ids.length) remember(sm.appendLabelChange(r.pick(ids), r.pick(["checkpoint", "", undefined, `label ${n} ✓`])));
    else if (roll < 69) remember(sm.appendCustomEntry(r.pick(["ext", "my-extension"]), r.chance(0.7) ? { n, nested: { list: [n] } } : undefined));
    else if (roll < 74) remember(sm.appendCustomMessageEntry("ext", r.chance(0.5) ? text(r, n) : [{ type: "text", text: text(r, n) }], r.chance(0.5), r.chance(0.5) ? { d: n } : undefined));
    else if (roll < 77) remember(api.sessionName(sm, `name ${n} ${r.pick(TEXTS).slice(0, 12)}`));
    else if (roll < 85 && ids.length) sm.branch(r.pick(ids));
    else if (roll < 90 && ids.length) remember(sm.branchWithSummary(r.chance(0.85) ? r.pick(ids) : null, r.chance(0.8) ? `branch summary ${n}` : "", r.chance(0.5) ? { note: n } : undefined, r.chance(0.5) ? false : undefined));
    else if (roll < 93) sm.resetLeaf();
    else remember(api.extra(sm, r, n));
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
