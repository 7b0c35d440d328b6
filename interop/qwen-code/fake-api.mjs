// A fake OpenAI chat-completions API for driving the real Qwen Code CLI offline.
//
// `POST /v1/chat/completions` answers, streamed (server-sent events of
// `chat.completion.chunk`s, then `data: [DONE]`) or not, as the real API does.
// An answer is a list of parts: `{text}`, `{thinking}` (sent as
// `reasoning_content`, which Qwen Code records as a thought part), `{tool:
// name, id, args}` (a function call), or `{status, message}` alone (the
// request fails with that HTTP status).
//
// What it answers is scripted, and the server keeps no state: the request's
// `messages` say where the conversation is. The last user text the script
// answers is the prompt; the step is the number of assistant messages after
// it whose tool calls all came back (0 when none did). `script[prompt][step]`
// is the answer. A script key that ends in `…` answers every prompt that
// starts with the rest (the CLI's own requests, such as compression). Every
// request is recorded; one with no script entry is answered with a text
// saying so (and reported by the driver).
//
// Run on its own: `node fake-api.mjs script.json` prints the port.

import { completionParts, sendCompletion, usageFor } from '../lib/chat-completions.mjs';
import { scriptKey, sendJson, serveWhenRun, startPostApi } from '../lib/http.mjs';

/** The text of a message's content (a string or a list of parts). */
export function textOf(message) {
  const content = message?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter((part) => part.type === 'text').map((part) => part.text).join('\n');
}

/** Whether a user text is context the CLI injects rather than a prompt. */
function injected(text) {
  const t = text.trimStart();
  return t === '' || t.startsWith('<') || t.startsWith('\n--- ') || t.startsWith('Content from ');
}

/**
 * Where the conversation in `messages` is: its prompt and step. The prompt is
 * the last user text that `script` answers (the CLI sends context in the
 * same messages: reminders, files a prompt references, files restored after
 * a compression), else the last user text that does not look injected.
 */
export function position(messages, script) {
  let at = -1;
  let prompt;
  let fallback;
  messages.forEach((m, i) => {
    if (m.role !== 'user') return;
    const parts = Array.isArray(m.content) ? m.content.filter((p) => p.type === 'text').map((p) => p.text) : [textOf(m)];
    for (const t of parts) {
      if (scriptKey(script, t) !== undefined) {
        prompt = t;
        at = i;
      } else if (!injected(t)) {
        fallback = { prompt: t, at: i };
      }
    }
  });
  if (prompt === undefined && fallback) ({ prompt, at } = fallback);
  const after = messages.slice(at + 1);
  const answered = new Set(after.filter((m) => m.role === 'tool').map((m) => m.tool_call_id));
  const results = after.filter((m) => m.role === 'tool').map((m) => ({ id: m.tool_call_id, content: textOf(m) }));
  let step = 0;
  for (const m of after) {
    if (m.role === 'assistant' && (m.tool_calls ?? []).length > 0 && m.tool_calls.every((c) => answered.has(c.id))) step += 1;
  }
  return { prompt, step, results };
}

let seq = 0;

/** Sends `answer` (a list of parts) as one completion, or the error a part names. */
function respond(res, answer, model, streamed, usage) {
  const failure = answer.find((p) => p.status !== undefined);
  if (failure) {
    sendJson(res, failure.status, { error: { message: failure.message, type: 'server_error', code: String(failure.status) } });
    return;
  }
  sendCompletion(res, { id: `chatcmpl-fake-${++seq}`, model, streamed, usage, ...completionParts(answer) });
}

/**
 * Starts the server on a free port of 127.0.0.1. `script` maps a prompt to
 * the answers of its steps. Resolves to `{port, requests, close}`; `requests`
 * fills with `{url, prompt, step, results, tools, expected}` as they come (and
 * the request's `messages` with `keepMessages`).
 */
export function startFakeApi(script, { keepMessages = false } = {}) {
  return startPostApi('/chat/completions', (request, req, res, requests, body) => {
    const { prompt, step, results } = position(request.messages ?? [], script);
    const answer = script[scriptKey(script, prompt)]?.[step];
    requests.push({
      url: req.url,
      model: request.model,
      stream: Boolean(request.stream),
      prompt,
      step,
      results,
      tools: (request.tools ?? []).map((t) => t.function?.name),
      expected: Boolean(answer),
      ...(keepMessages ? { messages: request.messages } : {}),
    });
    const given = answer ?? [{ text: `fake-api: no script for step ${step} of ${JSON.stringify(prompt)}` }];
    respond(res, given, request.model, Boolean(request.stream), usageFor(body.length, given));
  });
}

await serveWhenRun(import.meta.url, startFakeApi);
