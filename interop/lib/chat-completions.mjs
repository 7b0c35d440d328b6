// Answers in the OpenAI chat-completions protocol, for the fake APIs of the
// agents that speak it: one `chat.completion`, or, streamed, the role, the
// reasoning, the text in two pieces (as a real stream cuts it), each tool
// call, the finish reason and a last chunk with the usage, then `[DONE]`.
import { eventStream, sendJson } from './http.mjs';

const now = () => Math.floor(Date.now() / 1000);

function chunk(id, model, delta, finish = null) {
  return { id, object: 'chat.completion.chunk', created: now(), model, choices: [{ index: 0, delta, finish_reason: finish }] };
}

/**
 * An answer's parts (`{text}`, `{thinking}`, `{tool, id, args}`) as a
 * completion's text, reasoning and tool calls.
 */
export function completionParts(answer) {
  const join = (key) => answer.filter((p) => p[key] !== undefined).map((p) => p[key]).join('');
  const calls = answer.filter((p) => p.tool).map((p, index) => ({ index, id: p.id, type: 'function', function: { name: p.tool, arguments: JSON.stringify(p.args) } }));
  return { text: join('text'), thinking: join('thinking'), calls };
}

/**
 * Token usage as the real APIs report it, roughly: four characters of the
 * request per prompt token, so that the counts grow with the conversation.
 */
export function usageFor(requestChars, answer) {
  const prompt_tokens = Math.ceil(requestChars / 4);
  const completion_tokens = Math.ceil(JSON.stringify(answer).length / 4);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

/** Sends one completion of `text`, `thinking` and `calls`, streamed or whole. */
export function sendCompletion(res, { id, model, streamed, text, thinking = '', calls = [], usage }) {
  const finish = calls.length > 0 ? 'tool_calls' : 'stop';
  if (!streamed) {
    const message = { role: 'assistant', content: text || null };
    if (thinking) message.reasoning_content = thinking;
    if (calls.length > 0) message.tool_calls = calls.map(({ index, ...c }) => c);
    sendJson(res, 200, { id, object: 'chat.completion', created: now(), model, choices: [{ index: 0, message, finish_reason: finish }], usage });
    return;
  }
  const { data: send, done } = eventStream(res);
  send(chunk(id, model, { role: 'assistant', content: '' }));
  if (thinking) send(chunk(id, model, { reasoning_content: thinking }));
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
