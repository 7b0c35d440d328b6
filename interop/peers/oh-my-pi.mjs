// The adapter of ./driver.mjs for oh-my-pi under Bun, shared by its pinned
// versions: they differ in their package and in what their scenario writes.
// oh-my-pi migrates legacy files in memory only and has no createBranchedSession,
// so its drivers generate and inspect.
import path from "node:path";

/**
 * The scenario calls every pinned oh-my-pi shares; `compaction` is the version's
 * (its `appendCompaction` signature differs).
 */
export function ohMyPiScenario(compaction) {
  return {
    modelChange: (sm, provider, model) => sm.appendModelChange(`${provider}/${model}`, provider === "google" ? "smol" : undefined),
    compaction,
    branchWithSummary: (sm, r, from, summary, details, fromHook) => sm.branchWithSummary(from, summary, details, fromHook),
    // A user's rename or a generated title; a generated one is ignored once the user named the session.
    sessionName: async (sm, r, name) => {
      await sm.setSessionName(name, r.pick(["user", "auto"]));
    },
    extra: (sm, r, n) => {
      const roll = r.int(3);
      if (roll === 0) return sm.appendTtsrInjection([`rule-${n % 3}`, `rule-${n % 5}`]);
      if (roll === 1) return sm.appendModeChange(r.pick(["plan", "none"]), r.chance(0.5) ? { planFile: `/p/${n}.md` } : undefined);
      // /clear
      return sm.appendResetBoundary();
    },
  };
}

/** `SessionManager` is the version's; `scenario` is scenario.mjs's `api` (see `ohMyPiScenario`). */
export function ohMyPiPeer(SessionManager, scenario) {
  return {
    scenario,
    // Where oh-my-pi keeps sessions, so its blob store sits beside them and `sess list` finds them.
    sessionDir: (home, seed) => path.join(home, ".omp/agent/sessions", `--seed-${seed}--`),
    create: (cwd, dir) => SessionManager.create(cwd, dir),
    open: (file) => SessionManager.open(file, path.dirname(file), undefined, { suppressBreadcrumb: true }),
    finish: async (sm) => {
      await sm.flush();
      await sm.close();
    },
    close: (sm) => sm.close(),
    // The manager's own context resolves images kept in the blob store.
    contexts: (sm, entries) => {
      const contexts = {};
      const leaf = sm.getLeafId();
      for (const entry of entries) {
        sm.branch(entry.id);
        contexts[entry.id] = sm.buildSessionContext();
      }
      if (leaf) sm.branch(leaf);
      return contexts;
    },
    // The name as oh-my-pi shows it (its title slot, else the header's title) and who set it.
    extra: (sm) => ({ name: sm.getSessionName() ?? null, titleSource: sm.titleSource ?? null }),
    legacy: false,
  };
}
