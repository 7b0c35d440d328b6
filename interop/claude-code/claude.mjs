// What both drivers need to run the real Claude Code CLI offline: its native
// binary and the environment that points it at the fake API.
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

/** The native binary of the platform package (the wrapper's postinstall is not needed to run it). */
export function claudeBinary() {
  const musl = process.platform === "linux" && !process.report.getReport().header.glibcVersionRuntime;
  const name = `@anthropic-ai/claude-code-${process.platform}-${process.arch}${musl ? "-musl" : ""}`;
  const dir = path.dirname(require.resolve(`${name}/package.json`));
  return path.join(dir, process.platform === "win32" ? "claude.exe" : "claude");
}

/** The CLI's environment: these folders, the fake API on `port`, no traffic but to it, nothing from the caller but PATH. */
export function claudeEnv({ home, configDir, tmp, port }) {
  return {
    PATH: process.env.PATH,
    HOME: home,
    CLAUDE_CONFIG_DIR: configDir,
    TMPDIR: tmp,
    SHELL: "/bin/bash",
    LANG: "C.UTF-8",
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
    ANTHROPIC_API_KEY: "dummy",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
  };
}
