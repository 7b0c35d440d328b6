// Drives the real pi-mono 0.73.1 SessionManager (npm @mariozechner/pi-coding-agent)
// for sess's differential tests; the commands are those of ../driver.mjs.
import { SessionManager, buildSessionContext } from "@mariozechner/pi-coding-agent";
import { run } from "../driver.mjs";
import { piMonoScenario, piPeer } from "../pi.mjs";

await run(piPeer(SessionManager, buildSessionContext, piMonoScenario));
