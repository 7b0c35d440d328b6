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

import { eventStream, scriptKey, sendJson, serveWhenRun, startPostApi } from '../lib/http.mjs';

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
const now = () => Math.floor(Date.now() / 1000);
const chunk = (id, model, delta, finish = null) => ({ id, object: 'chat.completion.chunk', created: now(), model, choices: [{ index: 0, delta, finish_reason: finish }] });

/** Sends `answer` as one completion, with `usage` (tokens: a quarter of the characters). */
function respond(res, answer, model, streamed, requestChars) {
  const id = `chatcmpl-fake-${++seq}`;
  const calls = answer.filter((p) => p.tool).map((p, index) => ({ index, id: p.id, type: 'function', function: { name: p.tool, arguments: JSON.stringify(p.args) } }));
  const text = answer.filter((p) => p.text !== undefined).map((p) => p.text).join('');
  const finish = calls.length > 0 ? 'tool_calls' : 'stop';
  const prompt_tokens = Math.ceil(requestChars / 4);
  const completion_tokens = Math.ceil(JSON.stringify(answer).length / 4);
  const usage = { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
  if (!streamed) {
    const message = { role: 'assistant', content: text || null };
    if (calls.length > 0) message.tool_calls = calls.map(({ index, ...c }) => c);
    sendJson(res, 200, { id, object: 'chat.completion', created: now(), model, choices: [{ index: 0, message, finish_reason: finish }], usage });
    return;
  }
  const { data: send, done } = eventStream(res);
  send(chunk(id, model, { role: 'assistant', content: '' }));
  if (text) {
    const half = Math.ceil(text.length / 2);
    send(chunk(id, model, { content: text.slice(0, half) }));
    if (text.length > half) send(chunk(id, model, { content: text.slice(half) }));
  }
  for (const c of calls) send(chunk(id, model, { tool_calls: [c] }));
  send(chunk(id, model, {}, finish));
  send({ id, object: 'chat.completion.chunk', created: now(), model, choices: [], usage });
  done();
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
