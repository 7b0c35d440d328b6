// A fake OpenAI Responses API for driving the real Codex CLI offline.
//
// `POST /v1/responses` answers with a server-sent event stream, as the real API
// does: response.created, then for each output item output_item.added, its
// deltas (output_text.delta, reasoning_summary_text.delta) and
// output_item.done, then response.completed with its token usage (`usageOf`:
// input, cached input, output and reasoning differ from one response to the
// next).
//
// What it answers is scripted, and the server keeps no state: the request's
// `input` says where the conversation is. The last user message that is not
// injected context (`<environment_context>` and the like) is the prompt; the
// step is one past the latest step whose tool calls came back after it (0
// when none did). `script[prompt][step]` is the list of output items to send. Every request is recorded, and one that has no
// script entry is answered with a message saying so (and reported by the
// driver as unexpected). A script key that ends in `…` answers every prompt
// that starts with the rest (Codex's own requests, such as compaction).
//
// Run on its own: `node fake-api.mjs script.json` prints the port.

import { eventStream, scriptKey, serveWhenRun, startPostApi } from '../lib/http.mjs';

/** The text of a message item's parts, without the tags around images. */
function textOf(item) {
  return (item.content ?? [])
    .filter((part) => typeof part.text === 'string')
    .map((part) => part.text)
    .filter((text) => !/^<image\b[^\n]*>$/.test(text) && text !== '</image>')
    .join('\n');
}

/** Where the conversation in `input` is: its prompt and step in `script`. */
export function position(input, script) {
  let prompt;
  let at = -1;
  input.forEach((item, i) => {
    if (item.type === 'message' && item.role === 'user') {
      const text = textOf(item);
      if (!text.trimStart().startsWith('<') && !text.startsWith('# AGENTS.md')) {
        prompt = text;
        at = i;
      }
    }
  });
  const outputs = input.slice(at + 1).filter((item) => item.type.endsWith('call_output'));
  const answered = new Set(outputs.map((item) => item.call_id));
  let step = 0;
  (script[scriptKey(script, prompt)] ?? []).forEach((items, i) => {
    if (items.some((item) => answered.has(item.call_id))) step = i + 1;
  });
  return { prompt, step, outputs };
}

let seq = 0;

/**
 * The token usage of the `n`-th response, different for every response: the
 * input grows with `n`, part of it read from the cache (none on every third
 * response), and the output grows with `n`; a response with reasoning spends
 * part of its output on it.
 */
export function usageOf(n, items) {
  const input = 900 + 137 * n;
  const cached = n % 3 === 0 ? 0 : Math.min(input - 100, 256 * n);
  const output = 20 + 11 * n;
  const reasoning = items.some((item) => item.type === 'reasoning') ? 5 + 3 * n : 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: input + output,
  };
}

/** The SSE stream for one response made of `items`. */
function stream(res, items) {
  const id = `resp_fake_${++seq}`;
  const { event, end } = eventStream(res);
  event('response.created', { response: { id, status: 'in_progress' } });
  // `{type: 'failure', code, message}` fails the response instead.
  const failure = items.find((item) => item.type === 'failure');
  if (failure) {
    event('response.failed', { response: { id, status: 'failed', error: { code: failure.code, message: failure.message } } });
    end();
    return;
  }
  items.forEach((template, output_index) => {
    const { expect, ...fields } = template; // `expect` is the driver's note, not the API's.
    const item = { id: `${template.type}_fake_${seq}_${output_index}`, ...fields };
    if (item.type === 'message') {
      event('response.output_item.added', { output_index, item: { ...item, content: [] } });
      for (const part of item.content) event('response.output_text.delta', { output_index, item_id: item.id, content_index: 0, delta: part.text });
    } else if (item.type === 'reasoning') {
      event('response.output_item.added', { output_index, item: { ...item, summary: [] } });
      item.summary.forEach((part, summary_index) => {
        event('response.reasoning_summary_part.added', { output_index, item_id: item.id, summary_index, part: { type: 'summary_text', text: '' } });
        event('response.reasoning_summary_text.delta', { output_index, item_id: item.id, summary_index, delta: part.text });
      });
    } else {
      event('response.output_item.added', { output_index, item });
    }
    event('response.output_item.done', { output_index, item });
  });
  event('response.completed', { response: { id, status: 'completed', usage: usageOf(seq, items) } });
  end();
}

/**
 * Starts the server on a free port of 127.0.0.1. `script` maps a prompt to the
 * responses of its steps. Resolves to `{port, requests, close}`; `requests`
 * fills with `{url, prompt, step, outputs, expected}` as they come (and the
 * request's `input` with `keepInput`).
 */
export function startFakeApi(script, { keepInput = false } = {}) {
  return startPostApi('/responses', (request, req, res, requests) => {
    const { prompt, step, outputs } = position(request.input ?? [], script);
    const items = script[scriptKey(script, prompt)]?.[step];
    requests.push({ url: req.url, prompt, step, outputs, tools: (request.tools ?? []).map((t) => t.name ?? t.type), expected: Boolean(items), ...(keepInput ? { input: request.input } : {}) });
    stream(res, items ?? [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `fake-api: no script for step ${step} of ${JSON.stringify(prompt)}` }] }]);
  });
}

await serveWhenRun(import.meta.url, startFakeApi);
