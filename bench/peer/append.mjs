// The peer's append loop: pi-mono 0.73.1's `SessionManager.create(cwd, dir)`,
// then `appendMessage` for each line of MESSAGES (one JSON message a line),
// printing each new id once the call returned. pi-mono persists with
// `appendFileSync` per entry (after its first assistant message), so every entry
// has reached the OS when its id is printed.
//
//   node append.mjs MESSAGES DIR > /dev/null
//
// On stderr: one JSON line with the import and operation times (ms) and the file.
import fs from "node:fs";
import { performance } from "node:perf_hooks";

const started = performance.now();
const { SessionManager } = await import("@mariozechner/pi-coding-agent");
const imported = performance.now();
const [messagesFile, dir] = process.argv.slice(2);
const sm = SessionManager.create("/home/dev/project", dir);
const text = fs.readFileSync(messagesFile, "utf8");
let count = 0;
let start = 0;
while (start < text.length) {
  let end = text.indexOf("\n", start);
  if (end < 0) end = text.length;
  const line = text.slice(start, end);
  start = end + 1;
  if (!line.trim()) continue;
  const id = sm.appendMessage(JSON.parse(line));
  fs.writeSync(1, `${id}\n`);
  count++;
}
const done = performance.now();
process.stderr.write(`${JSON.stringify({ importMs: imported - started, opMs: done - imported, appended: count, file: sm.getSessionFile() })}\n`);
