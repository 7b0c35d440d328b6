// Drives the real pi-mono 0.73.1 SessionManager (npm @mariozechner/pi-coding-agent)
// for sess's differential tests; the commands are those of ../driver.mjs.
import { SessionManager, buildSessionContext } from "@mariozechner/pi-coding-agent";
import { run } from "../driver.mjs";
import { piPeer } from "../pi.mjs";

await run(
  piPeer(SessionManager, buildSessionContext, {
    modelChange: (sm, provider, model) => sm.appendModelChange(provider, model),
    compaction: (sm, r, summary, kept, tokens, details) => sm.appendCompaction(summary, kept, tokens, details, details ? false : undefined),
    branchWithSummary: (sm, r, from, summary, details, fromHook) => sm.branchWithSummary(from, summary, details, fromHook),
    sessionName: (sm, r, name) => sm.appendSessionInfo(name),
    extra: (sm, r, n) => sm.appendMessage({ role: "user", content: [{ type: "text", text: `extra ${n}` }], timestamp: 1_767_225_600_000 + n }),
  }),
);
