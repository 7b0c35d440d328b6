// A fake OpenAI chat-completions API for driving the real Aider offline.
//
// `POST /v1/chat/completions` answers, streamed (server-sent events of
// `chat.completion.chunk`s, then `data: [DONE]`) or not, as the real API does,
// with a `usage` of four characters of the request per prompt token. Aider
// has no function calls: its edits are SEARCH/REPLACE blocks in the answer's
// text, and the shell commands it proposes are fenced blocks too, so every
// answer is a text.
//
// What it answers is scripted, and the server keeps no state: the prompt is
// the text of the request's last user message, and `script[prompt]` is the
// answer. Aider appends a reminder of its edit format to the prompt, after a
// blank line: a prompt no key answers whole is looked up by its first
// paragraph. A script key that ends in `…` answers every prompt that starts with
// the rest (Aider's own requests: the summary of the chat history, whose user
// message starts with `# USER`). Every request is recorded; one with no
// script entry is answered with a text saying so (and reported by the driver).
//
// Run on its own: `node fake-api.mjs script.json` prints the port.

import { sendCompletion } from '../lib/chat-completions.mjs';
import { scriptKey, serveWhenRun, startPostApi } from '../lib/http.mjs';

/** The text of a message's content (a string or a list of parts). */
function textOf(message) {
  const content = message?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter((part) => part.type === 'text').map((part) => part.text).join('\n');
}

let seq = 0;

/** Sends `text` as one completion, streamed (in two pieces) or whole. */
function respond(res, text, model, streamed, usage) {
  sendCompletion(res, { id: `chatcmpl-fake-${++seq}`, model, streamed, text, usage });
}

/**
 * Starts the server on a free port of 127.0.0.1. `script` maps a prompt to
 * its answer's text. Resolves to `{port, requests, close}`; `requests` fills
 * with `{url, model, stream, prompt, roles, expected}` as they come.
 */
export function startFakeApi(script) {
  return startPostApi('/chat/completions', (request, req, res, requests, body) => {
    const messages = request.messages ?? [];
    const users = messages.filter((m) => m.role === 'user');
    const full = users.length > 0 ? textOf(users[users.length - 1]) : undefined;
    const first = full?.split('\n\n')[0];
    const key = scriptKey(script, full) ?? scriptKey(script, first);
    const prompt = key === undefined || scriptKey(script, full) !== undefined ? full : first;
    const answer = key === undefined ? undefined : script[key];
    requests.push({
      url: req.url,
      model: request.model,
      stream: Boolean(request.stream),
      prompt: prompt && prompt.length > 200 ? `${prompt.slice(0, 200)}…` : prompt,
      roles: messages.map((m) => m.role),
      expected: answer !== undefined,
    });
    const text = answer ?? `fake-api: no script for ${JSON.stringify(prompt)}`;
    const prompt_tokens = Math.ceil(body.length / 4);
    const completion_tokens = Math.ceil(text.length / 4);
    respond(res, text, request.model, Boolean(request.stream), { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens });
  });
}

await serveWhenRun(import.meta.url, startFakeApi);
