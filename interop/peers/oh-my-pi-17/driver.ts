// Drives the real oh-my-pi 17.3.5 SessionManager (npm @oh-my-pi/pi-coding-agent,
// a major version back, under Bun) for sess's differential tests; the commands
// are those of ../driver.mjs.
import { SessionManager } from "./node_modules/@oh-my-pi/pi-coding-agent/src/session/session-manager.ts";
import { run } from "../driver.mjs";
import { ohMyPiPeer, ohMyPiScenario } from "../oh-my-pi.mjs";

// 17 takes a compaction's extras as positional arguments and records neither a
// method nor the tokens after it (both came with 18).
const compaction = (sm: any, r: any, summary: string, kept: string, tokens: number, details: unknown) =>
  sm.appendCompaction(summary, details ? "short" : undefined, kept, tokens, details);

await run(ohMyPiPeer(SessionManager, ohMyPiScenario(compaction)));
