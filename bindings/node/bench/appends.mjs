// N `appendMessage` calls into a new session, in one Node process, timing the
// calls only: the messages (one JSON message a line of MESSAGES) are parsed
// before the clock starts, and the ids are printed after it stops.
//
//   node appends.mjs MESSAGES DIR            pi-mono's SessionManager, or the
//                                            module `$SESS_PEER_MODULE` names
//   node appends.mjs MESSAGES DIR --floor    no session manager at all
//
// `--floor` is the least any SessionManager does that writes each entry when it
// is appended, as pi's does: `JSON.stringify` of the entry and one `write` on a
// file kept open; no ids drawn, no tree, no index, no checks. No implementation
// of pi's API can go faster than it.
//
// On stderr: one JSON line with the import and operation times (ms).
import fs from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const [messagesFile, dir, mode] = process.argv.slice(2);
const floor = mode === "--floor";
const started = performance.now();
const { SessionManager } = floor
  ? {}
  : await import(process.env.SESS_PEER_MODULE || "@mariozechner/pi-coding-agent");
const imported = performance.now();

const messages = [];
for (const line of fs.readFileSync(messagesFile, "utf8").split("\n")) {
  if (line.trim()) messages.push(JSON.parse(line));
}
const ids = new Array(messages.length);

const begun = performance.now();
if (floor) {
  fs.mkdirSync(dir, { recursive: true });
  const fd = fs.openSync(join(dir, "floor.jsonl"), "a");
  let parentId = null;
  for (let i = 0; i < messages.length; i++) {
    const id = (0x10000000 + i).toString(16);
    const entry = { type: "message", id, parentId, timestamp: new Date().toISOString(), message: messages[i] };
    fs.writeSync(fd, `${JSON.stringify(entry)}\n`);
    ids[i] = parentId = id;
  }
  fs.closeSync(fd);
} else {
  const sm = SessionManager.create("/home/dev/project", dir);
  for (let i = 0; i < messages.length; i++) ids[i] = sm.appendMessage(messages[i]);
}
const done = performance.now();

fs.writeSync(1, `${ids.join("\n")}\n`);
process.stderr.write(`${JSON.stringify({ importMs: imported - started, opMs: done - begun, appended: ids.length })}\n`);
