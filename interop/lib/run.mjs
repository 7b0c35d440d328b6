// What the interop drivers (`interop/<agent>/driver.mjs`) share: the pinned
// package, running a program and collecting its output, a picture to attach,
// finding the files an agent wrote, and printing the report.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The npm package `name` as installed next to the module at `moduleUrl` (in
 * its folder `subdir`, when given): a `require` that resolves from there, and
 * the package's version.
 */
export function installed(moduleUrl, name, subdir = '.') {
  const require = createRequire(path.join(path.dirname(fileURLToPath(moduleUrl)), subdir, 'package.json'));
  const version = JSON.parse(fs.readFileSync(require.resolve(`${name}/package.json`), 'utf8')).version;
  return { require, version };
}

/**
 * The environment an agent runs in: PATH alone from the caller's, a plain
 * terminal (UTF-8, no colours), and `vars`.
 */
export function agentEnv(vars) {
  return { PATH: process.env.PATH, ...vars, LANG: 'C.UTF-8', TERM: 'dumb', NO_COLOR: '1' };
}

/** A 1×1 PNG, for a prompt that attaches an image. */
export const DOT_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

/**
 * Runs `command` with `args` in `cwd` with exactly `env`, nothing on its
 * stdin; it is killed after `timeoutMs`. Resolves to `{code, stdout,
 * stderr}` once it exits; rejects when it cannot start.
 */
export function runProgram(command, args, { cwd, env, timeoutMs }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The JSON objects of a program's output that has one a line (other lines are skipped). */
export function jsonLines(text) {
  return text.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
}

/** Every file under `dir` (none when it is missing) that `keep(path)` keeps, by its full path. */
export function filesUnder(dir, keep = () => true) {
  const files = [];
  (function walk(at) {
    for (const entry of fs.existsSync(at) ? fs.readdirSync(at, { withFileTypes: true }) : []) {
      const p = path.join(at, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (keep(p)) files.push(p);
    }
  })(dir);
  return files;
}

/**
 * Prints a driver's report: `fields`, then its `runs`, every request the
 * fake API had, and how many of them it had no script for.
 */
export function printReport(fields, runs, requests) {
  const unexpectedRequests = requests.filter((r) => !r.expected).length;
  console.log(JSON.stringify({ ...fields, runs, requests, unexpectedRequests }, null, 2));
}
