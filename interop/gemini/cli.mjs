// What the Gemini drivers (driver.mjs, commands.mjs) share: the pinned CLI,
// the settings it is given and the environment it runs in against the fake
// API.

import fs from 'node:fs';
import path from 'node:path';

import { agentEnv, installed } from '../lib/run.mjs';

const { require, version } = installed(import.meta.url, '@google/gemini-cli');
export const geminiVersion = version;
export const geminiJs = require.resolve('@google/gemini-cli/bundle/gemini.js');

/** Writes `geminiHome/settings.json`: the settings below, with `model` when given. */
export function writeSettings(geminiHome, model) {
  fs.writeFileSync(path.join(geminiHome, 'settings.json'), JSON.stringify({
    // An API key (any) against the base URL below; without a selected type the
    // CLI takes GOOGLE_GEMINI_BASE_URL for a "gateway", which `-p` refuses.
    security: { auth: { selectedType: 'gemini-api-key' } },
    // Session retention off: at startup 0.61.0 deletes every session file it
    // cannot resume, by the 8-character id prefix in its name; a resume in a
    // later minute than the session's file leaves such a file (the metadata and
    // the session context only, named for that minute), so the cleanup would
    // delete the resumed session's own file along with it.
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, sessionRetention: { enabled: false } },
    ...(model ? { model } : {}),
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
  }, null, 2));
}

/** The environment the CLI runs in with `workdir` as `$HOME`, against the fake API on `port`. */
export function geminiEnv({ workdir, tmp, port }) {
  return agentEnv({
    HOME: workdir,
    TMPDIR: tmp,
    GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}`,
    GEMINI_API_KEY: 'fake-key',
    // Headless runs refuse an untrusted folder.
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    // Whatever would reach past the fake API meets a proxy that refuses it.
    HTTPS_PROXY: `http://127.0.0.1:${port}`,
    HTTP_PROXY: `http://127.0.0.1:${port}`,
    NO_PROXY: '127.0.0.1',
  });
}
