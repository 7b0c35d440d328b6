// `npm run build`: builds the addon for this machine with cargo (release) and
// puts it beside index.js as sess.node; `npm run build -- --debug` builds it
// without optimizations, quicker to build (the test command's). CARGO_TARGET_DIR
// is honoured; the default is the one sess's other builds share.
import { execFileSync } from "node:child_process";
import { copyFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const target = process.env.CARGO_TARGET_DIR ? join(process.env.CARGO_TARGET_DIR, "node") : join(homedir(), ".cache", "sess-target", "node");
const debug = process.argv.includes("--debug");
const profile = debug ? [] : ["--release"];
execFileSync("cargo", ["build", ...profile, "--locked", "--manifest-path", join(here, "Cargo.toml")], {
  stdio: "inherit",
  env: { ...process.env, CARGO_TARGET_DIR: target },
});
const library = { linux: "libsess_node.so", darwin: "libsess_node.dylib", win32: "sess_node.dll" }[process.platform];
if (!library) throw new Error(`no addon name for ${process.platform}`);
copyFileSync(join(target, debug ? "debug" : "release", library), join(here, "sess.node"));
console.log(`built ${join(here, "sess.node")}`);
