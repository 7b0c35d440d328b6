// Drives sess's Node binding with the commands of interop/peers/driver.mjs and
// pi-mono 0.73.1's scenario, so its views can be set beside pi-mono's own.
import { SessionManager, buildSessionContext } from "../index.js";
import { run } from "../../../interop/peers/driver.mjs";
import { piMonoScenario, piPeer } from "../../../interop/peers/pi.mjs";

await run(piPeer(SessionManager, buildSessionContext, piMonoScenario));
