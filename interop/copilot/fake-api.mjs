// A fake OpenAI Chat Completions API for driving the real GitHub Copilot CLI
// offline, as a "bring your own key" provider (COPILOT_PROVIDER_BASE_URL).
//
// `POST /v1/chat/completions` with `stream: true` answers with server-sent
// `chat.completion.chunk` events, as the real API does: the role, then the
// deltas of the reasoning (`reasoning_text`), the text (`content`) and the tool
// calls (`tool_calls`, function or custom), then the finish reason, then a
// chunk with the token usage, then `[DONE]`. Without `stream` it answers one
// `chat.completion` with the same message.
//
// What it answers is scripted, and the server keeps no state: the request's
// `messages` say where the conversation is. The last user message is the
// prompt (without the `<current_datetime>` and other tagged blocks Copilot
// puts before it); the step is the number of assistant messages after it.
// `script[prompt][step]` is the reply: `{reasoning?, text?, calls?}`, or
// `{fail: {status, message}}` to answer with an HTTP error. A script key that
// ends in `…` answers every prompt that starts with the rest (Copilot's own
// requests, such as compaction). Every request is recorded; one that has no
// script entry is answered with a text saying so (and the driver reports it as
// unexpected).
//
// Run on its own: `node fake-api.mjs script.json` prints the port.

import { eventStream, scriptKey, sendJson, serveWhenRun, startPostApi } from '../lib/http.mjs';

/** The text of a message's content, a string or a list of parts. */
export function textOf(content) {
  if (typeof content === 'string') return content;
  return (content ?? []).filter((part) => part.type === 'text').map((part) => part.text).join('\n');
}

/** A user message's prompt: its text without the tagged blocks before it. */
export function promptOf(content) {
  let text = textOf(content);
  for (;;) {
    const m = text.match(/^\s*<([a-z_]+)>[\s\S]*?<\/\1>\s*/);
    if (!m) return text.trim();
    text = text.slice(m[0].length);
  }
}

/** Where the conversation in `messages` is: its prompt, step and tool results. */
export function position(messages) {
  let at = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user') at = i;
  });
  const prompt = at < 0 ? undefined : promptOf(messages[at].content);
  const after = messages.slice(at + 1);
  const step = after.filter((m) => m.role === 'assistant').length;
  const outputs = after.filter((m) => m.role === 'tool').map((m) => ({ id: m.tool_call_id, output: textOf(m.content) }));
  return { prompt, step, outputs };
}

let seq = 0;

/** The wire form of a scripted call, `{id, name, args}` or `{id, name, input}`. */
function wireCall(call, index) {
  if (call.input !== undefined) return { index, id: call.id, type: 'custom', custom: { name: call.name, input: call.input } };
  return { index, id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } };
}

const usage = { prompt_tokens: 1000, completion_tokens: 20, total_tokens: 1020 };

/** Answers one request with `reply`. */
function answer(res, request, reply) {
  if (reply.fail) {
    sendJson(res, reply.fail.status, { error: { message: reply.fail.message, type: 'server_error', code: null } });
    return;
  }
  const id = `chatcmpl-fake-${++seq}`;
  const base = { id, object: 'chat.completion.chunk', created: 1_800_000_000, model: request.model };
  const calls = (reply.calls ?? []).map(wireCall);
  const finish = calls.length ? 'tool_calls' : 'stop';
  if (!request.stream) {
    const message = { role: 'assistant', content: reply.text ?? null };
    if (reply.reasoning) message.reasoning_text = reply.reasoning;
    if (calls.length) message.tool_calls = calls.map(({ index, ...call }) => call);
    sendJson(res, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage });
    return;
  }
  const { data, done } = eventStream(res);
  const chunk = (delta, finishReason = null) => data({ ...base, choices: [{ index: 0, delta, finish_reason: finishReason }] });
  chunk({ role: 'assistant', content: '' });
  if (reply.reasoning) chunk({ reasoning_text: reply.reasoning });
  if (reply.text) chunk({ content: reply.text });
  for (const call of calls) chunk({ tool_calls: [call] });
  chunk({}, finish);
  data({ ...base, choices: [], usage });
  done();
}

/**
 * Starts the server on a free port of 127.0.0.1. `script` maps a prompt to the
 * replies of its steps. Resolves to `{port, requests, close}`; `requests`
 * fills with `{url, prompt, step, outputs, images, expected}` as they come.
 */
export function startFakeApi(script) {
  return startPostApi('/chat/completions', (request, req, res, requests) => {
    const { prompt, step, outputs } = position(request.messages ?? []);
    const reply = script[scriptKey(script, prompt)]?.[step];
    const last = request.messages?.findLast((m) => m.role === 'user');
    const images = Array.isArray(last?.content) ? last.content.filter((part) => part.type === 'image_url').length : 0;
    requests.push({ url: req.url, model: request.model, prompt, step, outputs, images, tools: (request.tools ?? []).length, expected: Boolean(reply) });
    answer(res, request, reply ?? { text: `fake-api: no script for step ${step} of ${JSON.stringify(prompt)}` });
  });
}

await serveWhenRun(import.meta.url, startFakeApi);
