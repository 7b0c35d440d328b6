// What the Copilot drivers (driver.mjs, user-commands.mjs) share: the pinned
// CLI, its native binary, the cache its bundled files are unpacked into, the
// environment it runs in against the fake API, and the SDK it bundles.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { agentEnv, installed } from '../lib/run.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const { require, version } = installed(import.meta.url, '@github/copilot');
export const launcher = require.resolve('@github/copilot/npm-loader.js');

/** The native binary of the platform package, as the launcher picks it (the package exports it). */
function nativeBinary() {
  const musl = process.platform === 'linux' && !process.report.getReport().header.glibcVersionRuntime;
  return require.resolve(`@github/copilot-${process.platform}${musl ? 'musl' : ''}-${process.arch}`);
}

export const binary = nativeBinary();
/** Where the binary unpacks its bundled files: kept in the install, so it happens once. */
export const cacheHome = path.join(fs.realpathSync(path.join(here, 'node_modules')), '.copilot-cache');

/**
 * The environment Copilot runs in with `root` as `$HOME`: a "bring your own
 * key" client of the fake API at `baseUrl`, offline (no GitHub sign-in,
 * telemetry, GitHub MCP server or update checks).
 */
export function copilotEnv({ root, tmp, baseUrl, apiKey }) {
  return agentEnv({
    HOME: root,
    TMPDIR: tmp,
    XDG_CACHE_HOME: cacheHome,
    COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    COPILOT_PROVIDER_BASE_URL: baseUrl,
    COPILOT_PROVIDER_API_KEY: apiKey,
    COPILOT_MODEL: 'gpt-4o',
  });
}

/** The SDK bundled with the binary, unpacked into the cache by the first run. */
export async function sdk() {
  const pkg = path.join(cacheHome, 'copilot', 'pkg');
  const dir = fs.readdirSync(pkg).map((platform) => path.join(pkg, platform, version)).find((d) => fs.existsSync(path.join(d, 'copilot-sdk', 'index.js')));
  if (!dir) throw new Error(`no copilot-sdk for ${version} in ${pkg}`);
  return import(pathToFileURL(path.join(dir, 'copilot-sdk', 'index.js')).href);
}
