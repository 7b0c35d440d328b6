// Drives the real oh-my-pi 18.2.3 SessionManager (npm @oh-my-pi/pi-coding-agent,
// under Bun) for sess's differential tests; the commands are those of ../driver.mjs
// (generate and inspect: oh-my-pi migrates legacy files in memory only, and has
// no createBranchedSession).
import path from "node:path";
import { SessionManager } from "./node_modules/@oh-my-pi/pi-coding-agent/src/session/session-manager.ts";
import { run } from "../driver.mjs";

const scenario = {
  modelChange: (sm: any, provider: string, model: string) =>
    sm.appendModelChange(`${provider}/${model}`, provider === "google" ? "smol" : undefined),
  compaction: (sm: any, r: any, summary: string, kept: string, tokens: number, details: unknown) =>
    sm.appendCompaction(summary, details ? "short" : undefined, kept, tokens, {
      details,
      ...(r.chance(0.5) ? { method: r.pick(["remote", "snapcompact", "handoff", "soft", "shake"]), tokensAfter: r.int(tokens) } : {}),
    }),
  branchWithSummary: (sm: any, r: any, from: string | null, summary: string, details: unknown, fromHook: boolean | undefined) =>
    sm.branchWithSummary(from, summary, details, fromHook),
  // A user's rename or a generated title; a generated one is ignored once the user named the session.
  sessionName: async (sm: any, r: any, name: string) => {
    await sm.setSessionName(name, r.pick(["user", "auto"]));
  },
  extra: (sm: any, r: any, n: number) => {
    const roll = r.int(3);
    if (roll === 0) return sm.appendTtsrInjection([`rule-${n % 3}`, `rule-${n % 5}`]);
    if (roll === 1) return sm.appendModeChange(r.pick(["plan", "none"]), r.chance(0.5) ? { planFile: `/p/${n}.md` } : undefined);
    // /clear
    return sm.appendResetBoundary();
  },
};

await run({
  scenario,
  // Where oh-my-pi keeps sessions, so its blob store sits beside them and `sess list` finds them.
  sessionDir: (home: string, seed: number) => path.join(home, ".omp/agent/sessions", `--seed-${seed}--`),
  create: (cwd: string, dir: string) => SessionManager.create(cwd, dir),
  open: (file: string) => SessionManager.open(file, path.dirname(file), undefined, { suppressBreadcrumb: true }),
  finish: async (sm: any) => {
    await sm.flush();
    await sm.close();
  },
  close: (sm: any) => sm.close(),
  // The manager's own context resolves images kept in the blob store.
  contexts: (sm: any, entries: any[]) => {
    const contexts: Record<string, unknown> = {};
    const leaf = sm.getLeafId();
    for (const entry of entries) {
      sm.branch(entry.id);
      contexts[entry.id] = sm.buildSessionContext();
    }
    if (leaf) sm.branch(leaf);
    return contexts;
  },
  // The name as oh-my-pi shows it (its title slot, else the header's title) and who set it.
  extra: (sm: any) => ({ name: sm.getSessionName() ?? null, titleSource: sm.titleSource ?? null }),
  legacy: false,
});
