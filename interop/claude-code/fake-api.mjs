// A fake Anthropic Messages API for driving the real Claude Code CLI offline.
//
// It answers `POST /v1/messages` (as server-sent events when the request
// streams, else as one JSON body) from a script: for each prompt, the
// assistant turns to give, in order. A turn is a list of content blocks:
//
//   {type: "text", text}                      an answer
//   {type: "thinking", thinking}              thinking (sent with a signature)
//   {type: "tool_use", name, input}           a tool call (the id is made here)
//
// or a failure instead: `[{type: "error", status, errorType, message}]` is
// answered with that HTTP status and the API's error body.
//
// Which answer a request gets:
// - The request's latest prompt (a user text block equal to a script key)
//   picks the script, and the number of assistant messages after it the
//   turn: turn 0 answers the prompt, turn 1 the tool results of turn 0, …
// - When the last user message holds the TEXT of a key `~TEXT` (text the CLI
//   puts in by itself: a task notification, the instruction of `/compact`),
//   the request is "injected" and answered from that key.
// - A request past the end of its script, or with no prompt, gets "ok".
// `count_tokens` gets a small count; any other path a 404 in the API's error
// shape.
//
// As the real API does, every answer to `/v1/messages` carries a `request-id`
// header (`req_fake0001`, …, numbered like the message ids), which the CLI
// writes into its transcript as `requestId`. Each answer has a usage of its
// own (`usageOf`): input, cache writes, cache reads and output differ from
// one answer to the next. A streamed answer's `message_start` carries a small
// output count and its `message_delta` the full one, as the real API's do.
//
// Every request is recorded in `requests` with the session the CLI named in
// its `x-claude-code-session-id` header, the model it asked for, what it was
// answered (with the request id and usage), and the tool results it carried
// back (so the caller learns each call's outcome from the CLI itself, not from
// the session file).
//
//   node fake-api.mjs SCRIPT.json     serves on 127.0.0.1 and prints the port
//                                     (and the requests, on SIGTERM)
//
// or `import { startFakeApi } from "./fake-api.mjs"`.
import { eventStream, sendJson, serveWhenRun, startServer } from "../lib/http.mjs";

/** The text blocks of a message, each trimmed, with or without the CLI's `<system-reminder>` blocks. */
function texts(message, reminders = false) {
  const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content ?? [];
  return blocks
    .filter((b) => b.type === "text" && (reminders || !b.text.trimStart().startsWith("<system-reminder>")))
    .map((b) => b.text.trim());
}

/**
 * Where a request is in the script: `{prompt, turn, injected, injectedText}`.
 * `injected` is the `~` key whose text the last user message holds (reminders
 * included), else null; `injectedText` is then that message's text.
 */
export function locate(script, messages) {
  // The CLI puts `system` messages among the others; they are not turns.
  const last = messages.filter((m) => m.role !== "system").at(-1);
  const lastText = last?.role === "user" ? texts(last, true).join("\n") : "";
  const injected = Object.keys(script).find((k) => k.startsWith("~") && lastText.includes(k.slice(1))) ?? null;
  const injectedText = injected === null ? null : lastText;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role !== "user") continue;
    const prompt = texts(messages[i]).find((t) => Object.hasOwn(script, t));
    if (prompt !== undefined) {
      const turn = messages.slice(i + 1).filter((m) => m.role === "assistant").length;
      return { prompt, turn, injected, injectedText };
    }
  }
  return { prompt: null, turn: null, injected, injectedText };
}

/** The turn to answer with, and the key its tool call ids are made from. */
function pick(script, located) {
  if (located.injected !== null) return { key: located.injected, turn: 0, blocks: script[located.injected][0] };
  const blocks = located.prompt === null ? undefined : script[located.prompt][located.turn];
  return blocks ? { key: located.prompt, turn: located.turn, blocks } : null;
}

/** The complete content blocks of an answer; tool call ids are stable across runs. */
function answer(script, picked) {
  if (!picked) return [{ type: "text", text: "ok" }];
  const n = String(Object.keys(script).indexOf(picked.key)).padStart(2, "0");
  return picked.blocks.map((block, index) => {
    switch (block.type) {
      case "thinking":
        return { type: "thinking", thinking: block.thinking, signature: `fake-signature-${index}` };
      case "tool_use": {
        const id = `toolu_fake${n}${String(picked.turn).padStart(2, "0")}${String(index).padStart(2, "0")}`;
        return { type: "tool_use", id, name: block.name, input: block.input };
      }
      default:
        return { type: "text", text: block.text };
    }
  });
}

/** Every `tool_result` block of a request: `[{id, isError, content}]`. */
function toolResults(messages) {
  return messages
    .filter((m) => m.role === "user" && Array.isArray(m.content))
    .flatMap((m) => m.content.filter((b) => b.type === "tool_result"))
    .map((b) => ({ id: b.tool_use_id, isError: b.is_error === true, content: b.content ?? "" }));
}

/**
 * The usage of the `n`-th answer, different for every answer: a few fresh
 * input tokens, cache writes on three answers in four, cache reads that grow
 * with `n` (none on the first of every five), and output that grows with the
 * answer's length. Every count stays below 200,000, where some prices change.
 */
export function usageOf(n, content) {
  return {
    input_tokens: 3 + ((n * 7) % 23),
    cache_creation_input_tokens: n % 4 === 0 ? 0 : 400 + 97 * n,
    cache_read_input_tokens: n % 5 === 1 ? 0 : 2_000 + 1_013 * n,
    output_tokens: 12 + 9 * n + Math.ceil(JSON.stringify(content).length / 4),
    service_tier: "standard",
  };
}

/** The first output count of a streamed answer, as the real API's `message_start` gives it. */
const STARTING_OUTPUT = 2;

function sendStream(res, message) {
  const { event, end } = eventStream(res);
  const starting = { ...message.usage, output_tokens: Math.min(STARTING_OUTPUT, message.usage.output_tokens) };
  event("message_start", { message: { ...message, content: [], stop_reason: null, usage: starting } });
  message.content.forEach((block, index) => {
    switch (block.type) {
      case "thinking":
        event("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } });
        event("content_block_delta", { index, delta: { type: "thinking_delta", thinking: block.thinking } });
        event("content_block_delta", { index, delta: { type: "signature_delta", signature: block.signature } });
        break;
      case "tool_use":
        event("content_block_start", { index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
        event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } });
        break;
      default:
        event("content_block_start", { index, content_block: { type: "text", text: "" } });
        event("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
    }
    event("content_block_stop", { index });
  });
  event("message_delta", { delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: message.usage.output_tokens } });
  event("message_stop", {});
  end();
}

/**
 * Starts the server; resolves to `{port, requests, close()}`. `onAnswer`, if
 * given, is called with each request's record once its answer is sent; with
 * `keepMessages`, each answered request's record keeps the `messages` it sent.
 */
export function startFakeApi(script, { onAnswer, keepMessages = false } = {}) {
  return startServer((req, text, res, requests) => {
    const url = new URL(req.url, "http://localhost");
    const json = (status, value) => sendJson(res, status, value);
    let body = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    if (req.method === "POST" && url.pathname === "/v1/messages/count_tokens") {
      requests.push({ path: url.pathname });
      return json(200, { input_tokens: 42 });
    }
    if (req.method !== "POST" || url.pathname !== "/v1/messages" || !Array.isArray(body?.messages)) {
      requests.push({ path: url.pathname, method: req.method });
      return json(404, { type: "error", error: { type: "not_found_error", message: `no ${req.method} ${url.pathname} here` } });
    }
    const located = locate(script, body.messages);
    const picked = pick(script, located);
    const failure = picked?.blocks.find((b) => b.type === "error");
    // Numbered like the message ids (count_tokens requests take a number too).
    const n = requests.length + 1;
    const requestId = `req_fake${String(n).padStart(4, "0")}`;
    res.setHeader("request-id", requestId);
    const session = req.headers["x-claude-code-session-id"] ?? null;
    if (failure) {
      requests.push({ path: url.pathname, session, model: body.model, requestId, stream: body.stream === true, ...located, answer: [failure], toolResults: toolResults(body.messages) });
      return json(failure.status, { type: "error", error: { type: failure.errorType, message: failure.message } });
    }
    const content = answer(script, picked);
    const message = {
      id: `msg_fake${String(n).padStart(4, "0")}`,
      type: "message",
      role: "assistant",
      model: body.model,
      content,
      stop_reason: content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: usageOf(n, content),
    };
    const record = {
      path: url.pathname,
      session,
      model: body.model,
      requestId,
      messageId: message.id,
      usage: message.usage,
      stream: body.stream === true,
      ...located,
      answer: content,
      toolResults: toolResults(body.messages),
      ...(keepMessages ? { messages: body.messages } : {}),
    };
    requests.push(record);
    if (body.stream) sendStream(res, message);
    else json(200, message);
    onAnswer?.(record);
  });
}

await serveWhenRun(import.meta.url, startFakeApi);
