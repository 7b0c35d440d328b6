// The Codex configuration the drivers run it with: a custom model provider
// pointed at the fake Responses API, and nothing that reaches past it.
import fs from 'node:fs';
import path from 'node:path';

/** Writes `codexHome/config.toml` for the fake API on `port`; `extra` lines go after the model. */
export function writeConfig(codexHome, port, extra = '') {
  fs.writeFileSync(
    path.join(codexHome, 'config.toml'),
    `model = "gpt-5.5"
model_provider = "fake"
${extra}check_for_update_on_startup = false

[analytics]
enabled = false

[feedback]
enabled = false

# Nothing that reaches past the fake API: no plugin marketplace sync (a git
# ls-remote to GitHub), no ChatGPT apps or remote plugins, no update checks.
[features]
plugins = false
remote_plugin = false
plugin_sharing = false
apps = false
in_app_updates = false

[model_providers.fake]
name = "Fake Responses API"
base_url = "http://127.0.0.1:${port}/v1"
wire_api = "responses"
env_key = "SESS_FAKE_OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0
`,
  );
}
