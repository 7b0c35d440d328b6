// Runs the Gemini CLI's interactive UI in a pseudo-terminal (node-pty, which
// the CLI itself depends on) and types into it: what `-p` cannot do, such as
// `/rewind`, needs the UI.
//
// `interactive({geminiJs, argv, cwd, env})` starts the UI and resolves to a
// session object: `type(text)` sends keys, `waitFor(regex)` waits until the
// screen (escape sequences removed) shows `regex` after the last wait,
// `close()` sends `/quit` and waits for the UI to exit.

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, 'package.json'));

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Terminal output without its escape sequences. */
const plain = (text) => text.replace(/\x1b\[[0-9;?<>=]*[ -/]*[@-~]/g, '').replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, '');

export const KEY = { enter: '\r', up: '\x1b[A', clearLine: '\x15' };

export function interactive({ geminiJs, argv, cwd, env, timeoutMs = 30_000 }) {
  const pty = require('@lydell/node-pty');
  const child = pty.spawn(process.execPath, [geminiJs, ...argv], { cols: 120, rows: 40, cwd, env: { ...env, TERM: 'xterm-256color' } });
  let output = '';
  let seen = 0;
  let exited = null;
  child.onData((data) => { output += data; });
  const exit = new Promise((resolve) => child.onExit(({ exitCode }) => { exited = exitCode; resolve(exitCode); }));

  const session = {
    /** Everything the UI printed, escape sequences removed. */
    screen: () => plain(output),
    async type(text, pause = 300) {
      child.write(text);
      await sleep(pause);
    },
    async waitFor(pattern, ms = timeoutMs) {
      const start = Date.now();
      while (Date.now() - start < ms) {
        const screen = plain(output);
        const found = pattern.exec(screen.slice(seen));
        if (found) {
          seen += found.index + found[0].length;
          await sleep(300); // let the UI settle before the next key
          return;
        }
        if (exited !== null) break;
        await sleep(100);
      }
      throw new Error(`the Gemini CLI UI did not show ${pattern}; it shows:\n${plain(output).slice(-2000)}`);
    },
    /**
     * Types a prompt and presses Enter once the UI has drawn it: keys that
     * reach a busy UI in one read are taken for a paste, whose Enter is a new
     * line in the input box rather than a submit.
     */
    async prompt(text) {
      await session.type(text, 0);
      const tail = text.slice(-24);
      const start = Date.now();
      while (!plain(output).slice(seen).includes(tail) && Date.now() - start < timeoutMs && exited === null) {
        await sleep(50);
      }
      await sleep(400);
      await session.type(KEY.enter, 100);
    },
    async close() {
      await session.prompt('/quit');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exit;
      clearTimeout(timer);
      return code;
    },
  };
  return session;
}
