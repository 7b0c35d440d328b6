// A fake OpenAI chat-completions API for driving the real Continue CLI (`cn`)
// offline.
//
// `POST …/chat/completions` answers, streamed (server-sent events of
// `chat.completion.chunk`s with a final usage chunk, then `data: [DONE]`) or
// as one JSON completion. An answer is a list of parts: `{text}` or `{tool:
// name, id, args}` (a function call).
//
// The server keeps no state: the request's `messages` say where the
// conversation is. The prompt is the last user text that the script answers
// (else the last user text, else '' when there is none);
// the step is the number of assistant messages after it whose tool calls all
// came back. `script[prompt][step]` is the answer. A key ending in `…`
// answers every prompt that starts with the rest (the CLI's own requests: a
// title, a compaction summary). Every request is recorded (its prompt and
// step); one with no script entry gets a text saying so and counts as
// unexpected.
//
// Run on its own: `node fake-api.mjs script.json` prints the port.

import { completionParts, sendCompletion, usageFor } from '../lib/chat-completions.mjs';
import { scriptKey, serveWhenRun, startPostApi } from '../lib/http.mjs';

/** The text of a message's content (a string or a list of parts). */
function textOf(message) {
  const content = message?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter((p) => p.type === 'text').map((p) => p.text).join('\n');
}

/** The prompt `messages` are at (per `script`) and the step within it. */
function position(messages, script) {
  let at = -1;
  let prompt;
  messages.forEach((m, i) => {
    if (m.role === 'user' && scriptKey(script, textOf(m)) !== undefined) {
      prompt = textOf(m);
      at = i;
    }
  });
  if (prompt === undefined) {
    const users = messages.map((m, i) => [m, i]).filter(([m]) => m.role === 'user');
    // No user message at all (what follows an automatic compaction): the
    // prompt is ''.
    [prompt, at] = users.length > 0 ? [textOf(users.at(-1)[0]), users.at(-1)[1]] : ['', -1];
  }
  const after = messages.slice(at + 1);
  const answered = new Set(after.filter((m) => m.role === 'tool').map((m) => m.tool_call_id));
  const step = after.filter((m) => m.role === 'assistant' && (m.tool_calls ?? []).length > 0 && m.tool_calls.every((c) => answered.has(c.id))).length;
  return { prompt, step };
}

let seq = 0;
/** Sends `answer` as one completion, with `usage` (tokens: a quarter of the characters). */
function respond(res, answer, model, streamed, requestChars) {
  const usage = usageFor(requestChars, answer);
  sendCompletion(res, { id: `chatcmpl-fake-${++seq}`, model, streamed, usage, ...completionParts(answer) });
}

/**
 * Starts the server on a free port of 127.0.0.1. `script` maps a prompt to
 * its answers, one a step. Resolves to `{port, requests, close}`.
 */
export function startFakeApi(script) {
  return startPostApi('/chat/completions', (request, req, res, requests, body) => {
    const { prompt, step } = position(request.messages ?? [], script);
    const key = scriptKey(script, prompt);
    const answer = key === undefined ? undefined : script[key][step];
    requests.push({
      method: req.method,
      url: req.url,
      stream: Boolean(request.stream),
      tools: (request.tools ?? []).map((t) => t.function?.name),
      roles: (request.messages ?? []).map((m) => m.role),
      prompt: prompt?.slice(0, 120),
      step,
      expected: answer !== undefined,
    });
    const given = answer ?? [{ text: `fake-api: no script for step ${step} of ${JSON.stringify(prompt)}` }];
    respond(res, given, request.model, Boolean(request.stream), body.length);
  });
}

await serveWhenRun(import.meta.url, startFakeApi);
