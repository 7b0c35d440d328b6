// A fake Gemini API (generativelanguage v1beta) for driving the real Gemini
// CLI offline.
//
// `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` answers with a
// server-sent event stream of `GenerateContentResponse` chunks, as the real
// API does: the parts of the answer (thoughts, text, function calls), then a
// last chunk with the finish reason and token usage. `:generateContent` (the
// CLI's own requests: session titles, compression summaries) answers the same
// parts as one JSON response, and `:countTokens` counts a token per four
// characters.
//
// What it answers is scripted, and the server keeps no state: the request's
// `contents` say where the conversation is. When the last content holds
// function responses, the answer is the step after the one whose calls they
// answer (call ids are unique in the whole script); otherwise the last user
// text is the prompt and the answer is its step 0. `script[prompt][step]` is
// `{parts, usage?, error?}`: `usage` overrides the usage metadata (a large
// `promptTokenCount` makes the CLI compress its history before its next
// request), `error` answers with that HTTP error instead. A key that ends in
// `…` answers every prompt that starts with the rest (the CLI's own prompts);
// a function in place of the steps is given the prompt and the request's
// `contents` and returns them.
// Every request is recorded; one with no script entry is answered with a text
// saying so, and reported by the driver as unexpected.
//
// Run on its own: `node fake-api.mjs script.json` prints the port.

import { eventStream, notFaked, scriptKey, sendJson, serveWhenRun, startServer } from '../lib/http.mjs';

/** Whether the CLI's call id `id` is the scripted call id `callId`. */
function sameCall(id, callId) {
  return typeof id === 'string' && (id === callId || id.endsWith(`__${callId}`));
}

/**
 * Where the conversation in `contents` is: `{prompt, key, step, answered}`.
 * `answered` lists the ids of the function responses in the last content.
 */
export function position(contents, script) {
  const last = contents.at(-1);
  const answered = (last?.parts ?? []).filter((p) => p.functionResponse).map((p) => p.functionResponse.id);
  if (answered.length > 0) {
    for (const [key, steps] of Object.entries(script)) {
      if (!Array.isArray(steps)) continue;
      const i = steps.findIndex((step) =>
        (step.parts ?? []).some((part) => part.functionCall && answered.some((id) => sameCall(id, part.functionCall.id))));
      if (i >= 0) return { prompt: key, key, step: i + 1, answered };
    }
    return { prompt: undefined, key: undefined, step: -1, answered };
  }
  // The prompt is the first text part of the last content that is not context
  // the CLI put before it (a first prompt shares its content with the
  // session context; files attached with `@` come after it).
  const texts = (last?.parts ?? []).filter((p) => typeof p.text === 'string' && !p.thought).map((p) => p.text);
  const prompt = texts.find((t) => !/^<(session|hook)_context>/.test(t.trimStart())) ?? texts.join('');
  return { prompt, key: scriptKey(script, prompt), step: 0, answered };
}

const defaultUsage = { promptTokenCount: 120, candidatesTokenCount: 12, totalTokenCount: 132 };

/** The chunks of one answer: one per part, the last with the finish reason. */
function chunks(step, model) {
  const usageMetadata = { ...defaultUsage, ...step.usage };
  const parts = step.parts;
  return parts.map((part, i) => {
    const chunk = { candidates: [{ content: { role: 'model', parts: [part] }, index: 0 }], modelVersion: model };
    if (i === parts.length - 1) {
      chunk.candidates[0].finishReason = 'STOP';
      chunk.usageMetadata = usageMetadata;
    }
    return chunk;
  });
}

/**
 * Starts the server on a free port of 127.0.0.1. `script` maps a prompt to
 * its steps. Resolves to `{port, requests, close}`; `requests` fills with
 * `{url, prompt, step, answered, expected}` as they come (and the request's
 * `contents` with `keepContents`).
 */
export async function startFakeApi(script, { keepContents = false } = {}) {
  const api = await startServer((req, body, res, requests) => {
    const match = /^\/v1beta\/models\/([^:/]+):(streamGenerateContent|generateContent|countTokens)/.exec(req.url);
    if (req.method !== 'POST' || !match) {
      notFaked(req, res, requests, { code: 404, message: 'not faked', status: 'NOT_FOUND' });
      return;
    }
    const [, model, method] = match;
    const request = JSON.parse(body || '{}');
    const contents = request.contents ?? request.generateContentRequest?.contents ?? [];
    if (method === 'countTokens') {
      sendJson(res, 200, { totalTokens: Math.ceil(JSON.stringify(contents).length / 4) });
      return;
    }
    const { prompt, key, step, answered } = position(contents, script);
    const steps = typeof script[key] === 'function' ? script[key](prompt, contents) : script[key];
    const scripted = steps?.[step];
    requests.push({ url: req.url, model, prompt, step, answered, expected: Boolean(scripted), ...(keepContents ? { contents } : {}) });
    const answer = scripted ?? { parts: [{ text: `fake-api: no script for step ${step} of ${JSON.stringify(prompt)}` }] };
    if (answer.error) {
      const { code, status, message } = answer.error;
      sendJson(res, code, { error: { code, message, status } });
      return;
    }
    const all = chunks(answer, model);
    if (method === 'generateContent') {
      const parts = all.flatMap((c) => c.candidates[0].content.parts);
      const last = all.at(-1);
      sendJson(res, 200, { ...last, candidates: [{ ...last.candidates[0], content: { role: 'model', parts } }] });
      return;
    }
    const { data, end } = eventStream(res);
    for (const chunk of all) data(chunk);
    end();
  });
  // The driver points HTTPS_PROXY here: a connection that would leave the
  // machine is refused and recorded.
  api.server.on('connect', (req, socket) => {
    api.requests.push({ method: 'CONNECT', url: req.url, expected: false });
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  return api;
}

await serveWhenRun(import.meta.url, startFakeApi);
