// The peer's listing: pi-mono 0.73.1's `SessionManager.listAll()`, which reads
// `<agent dir>/sessions/*/*.jsonl` (agent dir from `PI_CODING_AGENT_DIR`).
//
//   PI_CODING_AGENT_DIR=AGENT node list.mjs [--counts] > OUT
//
// Prints `[{path, id, messageCount}]` (sorted by path with `--counts`, for
// comparing with `sess list`), else the whole list as pi-mono returns it.
// On stderr: one JSON line with the import and operation times (ms).
import { performance } from "node:perf_hooks";

const started = performance.now();
const { SessionManager } = await import("@mariozechner/pi-coding-agent");
const imported = performance.now();
const sessions = await SessionManager.listAll();
const json = process.argv.includes("--counts")
  ? JSON.stringify(sessions.map((s) => ({ path: s.path, id: s.id, messageCount: s.messageCount })).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)))
  : JSON.stringify(sessions, null, 2);
const done = performance.now();
process.stdout.write(json);
process.stdout.write("\n");
process.stderr.write(`${JSON.stringify({ importMs: imported - started, opMs: done - imported, sessions: sessions.length })}\n`);
