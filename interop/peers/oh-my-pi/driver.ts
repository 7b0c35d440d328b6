// Drives the real oh-my-pi 18.2.3 SessionManager (under Bun) for sess's differential tests.
//
//   bun driver.ts generate SEED COUNT HOME  sessions (under HOME/.omp) and damaged copies, and the peer's view of each
//   bun driver.ts inspect FILE...           how the peer reads files sess wrote
//
// Output is JSON on stdout.
import fs from "node:fs";
import path from "node:path";
import { SessionManager } from "./node_modules/@oh-my-pi/pi-coding-agent/src/session/session-manager.ts";
import { damaged, generate, treeJson } from "../scenario.mjs";

const api = {
  modelChange: (sm: any, provider: string, model: string) =>
    sm.appendModelChange(`${provider}/${model}`, provider === "google" ? "smol" : undefined),
  compaction: (sm: any, summary: string, kept: string, tokens: number, details: unknown) =>
    sm.appendCompaction(summary, details ? "short" : undefined, kept, tokens, { details }),
  sessionName: (sm: any, name: string) => sm.appendMessage({ role: "user", content: [{ type: "text", text: name }], timestamp: 1_767_225_600_000 }),
  extra: (sm: any, r: any, n: number) =>
    r.chance(0.5) ? sm.appendTtsrInjection([`rule-${n % 3}`, `rule-${n % 5}`]) : sm.appendModeChange(r.pick(["plan", "none"]), r.chance(0.5) ? { planFile: `/p/${n}.md` } : undefined),
};

async function view(file: string) {
  const sm = await SessionManager.open(file, path.dirname(file), undefined, { suppressBreadcrumb: true });
  const entries = sm.getEntries();
  const leafId = sm.getLeafId();
  const last = sm.buildSessionContext();
  // The manager's own context resolves images kept in the blob store.
  const contexts: Record<string, unknown> = {};
  for (const entry of entries) {
    sm.branch(entry.id);
    contexts[entry.id] = sm.buildSessionContext();
  }
  const labels: Record<string, string> = {};
  for (const entry of entries) {
    const label = sm.getLabel(entry.id);
    if (label !== undefined) labels[entry.id] = label;
  }
  const result = { file, entryCount: entries.length, leafId, last, contexts, tree: treeJson(sm.getTree(), leafId), labels };
  await sm.close();
  return result;
}

const [command, ...args] = process.argv.slice(2);
if (command === "generate") {
  const [seed0, count, dir] = [Number(args[0]), Number(args[1]), args[2]];
  const out = [];
  for (let seed = seed0; seed < seed0 + count; seed++) {
    // Where oh-my-pi keeps sessions, so its blob store sits beside them.
    const sessionDir = path.join(dir, ".omp/agent/sessions", `--seed-${seed}--`);
    const sm = SessionManager.create("/home/dev/project", sessionDir);
    generate(sm, seed, api);
    await sm.flush();
    await sm.close();
    const file = sm.getSessionFile();
    const text = fs.readFileSync(file, "utf8");
    const copies: Record<string, unknown> = {};
    for (const [kind, damagedText] of Object.entries(damaged(text, seed))) {
      const copy = path.join(sessionDir, `${kind}.jsonl`);
      fs.writeFileSync(copy, damagedText as string);
      copies[kind] = await view(copy);
    }
    out.push({ seed, session: await view(file), damaged: copies });
  }
  process.stdout.write(JSON.stringify(out));
} else if (command === "inspect") {
  const out = [];
  for (const file of args) out.push(await view(file));
  process.stdout.write(JSON.stringify(out));
} else {
  console.error("usage: driver.ts generate SEED COUNT DIR | inspect FILE...");
  process.exit(2);
}
