// Drives the real pi 1.6.0 SessionManager (npm @earendil-works/pi-coding-agent)
// for sess's differential tests; the commands are those of ../driver.mjs.
//
// The package's entry point needs Node >= 22.19; its session code and usage
// totals are imported by file and run on older Node too.
import { SessionManager, buildSessionContext } from "./node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js";
import { getUsageCostBreakdown } from "./node_modules/@earendil-works/pi-coding-agent/dist/core/usage-totals.js";
import { run } from "../driver.mjs";
import { usageOf } from "../scenario.mjs";
import { piPeer } from "../pi.mjs";

/**
 * pi's own accounting of a session's usage: `getUsageCostBreakdown`, what its
 * /session command lists per model (assistant messages by `responseModel ??
 * model`, `usage` entries by their model, tool results' and summaries' usage
 * as "Tools/summaries"), with tokens and cost. It sums the four kinds of tokens;
 * each kind is had by running it on copies of the entries whose usage keeps
 * only that kind.
 */
function usage(entries) {
  const only = (kind) =>
    entries.map((entry) => {
      const copy = structuredClone(entry);
      for (const holder of [copy, copy.message]) {
        const u = holder?.usage;
        if (u && typeof u === "object") {
          holder.usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
          holder.usage[kind] = u[kind];
        }
      }
      return copy;
    });
  const models = {};
  for (const { key, cost, tokens } of getUsageCostBreakdown(entries)) models[key] = { cost, tokens };
  for (const kind of ["input", "output", "cacheRead", "cacheWrite"]) {
    for (const { key, tokens } of getUsageCostBreakdown(only(kind))) {
      models[key] ??= { cost: 0, tokens: 0 };
      models[key][kind] = tokens;
    }
  }
  for (const totals of Object.values(models)) {
    for (const kind of ["input", "output", "cacheRead", "cacheWrite"]) totals[kind] ??= 0;
  }
  return models;
}

await run(
  piPeer(
    SessionManager,
    buildSessionContext,
    {
      modelChange: (sm, provider, model) => sm.appendModelChange(provider, model),
      compaction: (sm, r, summary, kept, tokens, details) =>
        sm.appendCompaction(summary, kept, tokens, details, details ? false : undefined, r.chance(0.3) ? usageOf(r) : undefined),
      branchWithSummary: (sm, r, from, summary, details, fromHook) =>
        sm.branchWithSummary(from, summary, details, fromHook, r.chance(0.3) ? usageOf(r) : undefined),
      sessionName: (sm, r, name) => sm.appendSessionInfo(name),
      extra: (sm, r, n) => sm.appendMessage({ role: "user", content: [{ type: "text", text: `extra ${n}` }], timestamp: 1_767_225_600_000 + n }),
      contextEdit: (sm, target, replacement) => sm.appendContextEdit(target, replacement),
      usage: (sm, kind, provider, model, counts, note) => sm.appendUsage(kind, provider, model, counts, note).id,
      systemMessages: true,
      nullContent: true,
      responseModel: true,
      toolUsage: true,
    },
    { usage },
  ),
);
