// The peer's open + context: pi-mono 0.73.1's `SessionManager.open(file)` and
// `buildSessionContext()`, serialised as `sess context` serialises its result.
//
//   node context.mjs FILE > /dev/null
//
// Prints the context JSON on stdout and, on stderr, one JSON line with the
// time spent importing the package and in the operation itself (milliseconds).
import { performance } from "node:perf_hooks";

const started = performance.now();
// `$SESS_PEER_MODULE` names another module with the same API (sess's Node binding).
const { SessionManager } = await import(process.env.SESS_PEER_MODULE || "@mariozechner/pi-coding-agent");
const imported = performance.now();
const sm = SessionManager.open(process.argv[2]);
const context = sm.buildSessionContext();
const json = JSON.stringify(context, null, 2);
const done = performance.now();
process.stdout.write(json);
process.stdout.write("\n");
process.stderr.write(`${JSON.stringify({ importMs: imported - started, opMs: done - imported, messages: context.messages.length })}\n`);
