// The adapter of ./driver.mjs for pi (pi-mono 0.73.1 and pi 1.6.0 alike): the
// versions differ in their package and in what their scenario writes.
import path from "node:path";

/**
 * `SessionManager` and `buildSessionContext` are the version's; `scenario` is
 * scenario.mjs's `api`; `views` adds fields to the view (name → function of the
 * entries).
 */
export function piPeer(SessionManager, buildSessionContext, scenario, views = {}) {
  return {
    scenario,
    // Where pi keeps sessions, so `sess list` finds them.
    sessionDir: (home, seed) => path.join(home, ".pi/agent/sessions", `--seed-${seed}--`),
    create: (cwd, dir) => SessionManager.create(cwd, dir),
    open: (file) => SessionManager.open(file),
    finish: () => {},
    close: () => {},
    contexts: (sm, entries) => {
      const contexts = {};
      for (const entry of entries) contexts[entry.id] = buildSessionContext(entries, entry.id);
      return contexts;
    },
    extra: (sm, entries) => {
      const out = { name: sm.getSessionName() ?? null };
      for (const [key, compute] of Object.entries(views)) out[key] = compute(entries);
      return out;
    },
    legacy: true,
    branch: (file, dir, id) => {
      const sm = SessionManager.open(file, dir);
      sm.createBranchedSession(id);
      return sm.getEntries();
    },
    // The sessions of one folder, or with none every session of the agent
    // folder ($PI_CODING_AGENT_DIR), as `SessionInfo`s.
    list: (dir) => (dir ? SessionManager.list("/", dir) : SessionManager.listAll()),
  };
}

/**
 * What pi-mono 0.73.1's scenario writes (scenario.mjs's `api`): the calls of
 * its SessionManager, which sess's Node binding has too.
 */
export const piMonoScenario = {
  modelChange: (sm, provider, model) => sm.appendModelChange(provider, model),
  compaction: (sm, r, summary, kept, tokens, details) => sm.appendCompaction(summary, kept, tokens, details, details ? false : undefined),
  branchWithSummary: (sm, r, from, summary, details, fromHook) => sm.branchWithSummary(from, summary, details, fromHook),
  sessionName: (sm, r, name) => sm.appendSessionInfo(name),
  extra: (sm, r, n) => sm.appendMessage({ role: "user", content: [{ type: "text", text: `extra ${n}` }], timestamp: 1_767_225_600_000 + n }),
};
