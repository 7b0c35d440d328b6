// Drives the real oh-my-pi 18.2.3 SessionManager (npm @oh-my-pi/pi-coding-agent,
// under Bun) for sess's differential tests; the commands are those of ../driver.mjs.
import { SessionManager } from "./node_modules/@oh-my-pi/pi-coding-agent/src/session/session-manager.ts";
import { run } from "../driver.mjs";
import { ohMyPiPeer, ohMyPiScenario } from "../oh-my-pi.mjs";

// 18 takes a compaction's extras as options, among them the method that made it and the tokens after.
const compaction = (sm: any, r: any, summary: string, kept: string, tokens: number, details: unknown) =>
  sm.appendCompaction(summary, details ? "short" : undefined, kept, tokens, {
    details,
    ...(r.chance(0.5) ? { method: r.pick(["remote", "snapcompact", "handoff", "soft", "shake"]), tokensAfter: r.int(tokens) } : {}),
  });

await run(ohMyPiPeer(SessionManager, ohMyPiScenario(compaction)));
