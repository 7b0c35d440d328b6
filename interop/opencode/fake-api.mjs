// A fake OpenAI Chat Completions API for driving the real OpenCode (and Kilo,
// its fork) offline.
//
// OpenCode talks to a custom provider through `@ai-sdk/openai-compatible`,
// which posts to `/v1/chat/completions` with `stream: true` and reads
// server-sent `chat.completion.chunk` events: deltas of `reasoning_content`,
// `content` and `tool_calls`, then a chunk with `finish_reason`, then one with
// `usage`, then `[DONE]`.
//
// The server keeps no state: the request's `messages` say where the
// conversation is. OpenCode sends three kinds of request:
//
// - a title request (its system prompt starts `You are a title generator`):
//   answered with `script.titles[prompt]` (Kilo's lists every prompt of the
//   conversation: the first one is the key);
// - before 1.2, a title request for each prompt (the prompt between `<text>`
//   tags): answered with the prompt's session title, or the prompt itself;
// - a compaction request (no tools, and one user message carrying the
//   conversation as `[User]: …` lines, or, before 1.2, the conversation
//   followed by a prompt asking for a summary): answered with
//   `script.compaction`;
// - a turn of the agent: the prompt is the text of the last user message (the
//   one of its texts that is a key of the script, when it has several), and
//   the step is one past the latest step of `script[prompt]` whose tool calls
//   all came back as `tool` messages after it (0 when none did).
//
// `script[prompt][step]` is the list of items to send: `{type: 'reasoning',
// text}`, `{type: 'text', text}`, `{type: 'tool_call', id, name, input}`, or
// `{type: 'failure', status, message}` to answer with an HTTP error instead;
// `{type: 'usage', prompt_tokens}` sets the usage the response reports
// (OpenCode compacts a session whose last turn went past the model's context).
// Every request is recorded; one with no script entry is answered with a text
// saying so and counted by the driver as unexpected.

import { eventStream, sendJson, startPostApi } from '../lib/http.mjs';

/** The texts of a chat message's content (a string or a list of parts). */
export function textsOf(message) {
  if (typeof message.content === 'string') return [message.content];
  return (message.content ?? []).filter((part) => part.type === 'text').map((part) => part.text);
}

/**
 * The prompt a user message carries: the one of its texts that `keys` has
 * (OpenCode puts a text saying how it read an attached file before the
 * prompt; before 1.2, `opencode run` ends the prompt with a line break),
 * else all its texts joined.
 */
export function promptOf(message, keys) {
  const texts = textsOf(message).map((text) => text.trimEnd());
  return texts.find((text) => text in keys) ?? texts.join('\n');
}

/** What a request asks for: `{kind, prompt, step, toolResults}`. */
export function classify(body, script) {
  const messages = body.messages ?? [];
  const system = messages.filter((m) => m.role === 'system').flatMap(textsOf).join('\n');
  const users = messages.filter((m) => m.role === 'user');
  const last = users.at(-1);
  if (system.startsWith('You are a title generator')) {
    const prompt = last ? promptOf(last, script.titles) : undefined;
    // Before 1.2, OpenCode also asks for a title of each prompt.
    const text = /<text>\s*([^]*?)\s*<\/text>/.exec(prompt ?? '');
    if (text) return { kind: 'prompt-title', prompt: text[1], step: 0, toolResults: [] };
    // Kilo lists the conversation's prompts, oldest first.
    const listed = /User messages, oldest to newest:\n1\. (.*)/.exec(prompt ?? '');
    if (listed) return { kind: 'title', prompt: listed[1], step: 0, toolResults: [] };
    return { kind: 'title', prompt, step: 0, toolResults: [] };
  }
  const lastText = last ? textsOf(last).join('\n') : '';
  if (!body.tools?.length && ((users.length === 1 && /\[User\]: /.test(lastText)) || lastText.startsWith('Provide a detailed prompt for continuing our conversation'))) {
    return { kind: 'compaction', prompt: undefined, step: 0, toolResults: [] };
  }
  const at = messages.lastIndexOf(last);
  const prompt = last ? promptOf(last, script.turns) : undefined;
  const toolResults = messages.slice(at + 1).filter((m) => m.role === 'tool');
  const answered = new Set(toolResults.map((m) => m.tool_call_id));
  let step = 0;
  (script.turns[prompt] ?? []).forEach((items, i) => {
    const calls = items.filter((item) => item.type === 'tool_call');
    if (calls.length && calls.every((call) => answered.has(call.id))) step = i + 1;
  });
  return {
    kind: 'turn',
    prompt,
    step,
    toolResults: toolResults.map((m) => ({ id: m.tool_call_id, content: textsOf(m).join('\n') })),
  };
}

let seq = 0;

/** Streams one completion made of `items` as chat.completion.chunk events. */
function stream(res, model, items) {
  const id = `chatcmpl-fake-${++seq}`;
  const created = Math.floor(Date.now() / 1000);
  const { data, done } = eventStream(res);
  const chunk = (choice, extra = {}) => data({ id, object: 'chat.completion.chunk', created, model, choices: choice ? [{ index: 0, ...choice }] : [], ...extra });
  chunk({ delta: { role: 'assistant', content: '' }, finish_reason: null });
  let calls = 0;
  let usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
  for (const item of items) {
    if (item.type === 'reasoning') chunk({ delta: { reasoning_content: item.text }, finish_reason: null });
    if (item.type === 'text') chunk({ delta: { content: item.text }, finish_reason: null });
    if (item.type === 'tool_call') {
      const call = { index: calls++, id: item.id, type: 'function', function: { name: item.name, arguments: JSON.stringify(item.input) } };
      chunk({ delta: { tool_calls: [call] }, finish_reason: null });
    }
    if (item.type === 'usage') usage = { prompt_tokens: item.prompt_tokens, completion_tokens: 10, total_tokens: item.prompt_tokens + 10 };
  }
  chunk({ delta: {}, finish_reason: calls ? 'tool_calls' : 'stop' });
  chunk(null, { usage });
  done();
}

/**
 * Starts the server on a free port of 127.0.0.1. `script` is
 * `{titles: {prompt: title}, compaction: summary, turns: {prompt: [steps]}}`.
 * Resolves to `{port, requests, close}`; `requests` fills with
 * `{url, kind, prompt, step, toolResults, tools, expected}` as they come.
 */
export function startFakeApi(script) {
  return startPostApi('/chat/completions', (request, req, res, requests) => {
    const { kind, prompt, step, toolResults } = classify(request, script);
    let items;
    if (kind === 'title' && prompt in script.titles) items = [{ type: 'text', text: script.titles[prompt] }];
    if (kind === 'prompt-title' && prompt in script.turns) items = [{ type: 'text', text: script.titles[prompt] ?? prompt }];
    if (kind === 'compaction' && script.compaction) items = [{ type: 'text', text: script.compaction }];
    if (kind === 'turn') items = script.turns[prompt]?.[step];
    const tools = (request.tools ?? []).map((t) => t.function?.name);
    requests.push({ url: req.url, kind, prompt, step, toolResults, tools, expected: Boolean(items) });
    const failure = items?.find((item) => item.type === 'failure');
    if (failure) {
      sendJson(res, failure.status, { error: { message: failure.message, type: 'invalid_request_error', code: 'fake_failure' } });
      return;
    }
    stream(res, request.model, items ?? [{ type: 'text', text: `fake-api: no script for ${kind} step ${step} of ${JSON.stringify(prompt)}` }]);
  });
}
