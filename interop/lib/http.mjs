// What the fake model APIs of the interop drivers (`interop/<agent>/fake-api.mjs`)
// share: the server that records requests, JSON answers, server-sent event
// streams, the script key a prompt picks, and running one on its own. Each
// fake API keeps its own protocol: how it reads a request and the wire form
// of its answers.

import http from 'node:http';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';

/**
 * Starts an HTTP server on a free port of 127.0.0.1 that hands every
 * request, once its whole body is in, to `handle(req, body, res, requests)`
 * (`body` as text; `handle` records what it likes in `requests`). Resolves
 * to `{port, requests, server, close}`; `close()` also ends the connections
 * still open.
 */
export function startServer(handle) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => handle(req, Buffer.concat(chunks).toString('utf8'), res, requests));
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve({
        port: server.address().port,
        requests,
        server,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/**
 * `startServer` for an API with one endpoint: a POST to a URL that ends
 * with `suffix` goes to `handle(request, req, res, requests, body)` with its
 * JSON body parsed; any other request is `notFaked`.
 */
export function startPostApi(suffix, handle) {
  return startServer((req, body, res, requests) => {
    if (req.method !== 'POST' || !req.url.endsWith(suffix)) {
      notFaked(req, res, requests);
      return;
    }
    handle(JSON.parse(body), req, res, requests, body);
  });
}

/** Answers with `value` as JSON and the HTTP status `status`. */
export function sendJson(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

/**
 * Records a request the fake API has nothing for (`expected: false`, so the
 * driver reports it) and answers 404 with `error` as the API's error body.
 */
export function notFaked(req, res, requests, error = { message: 'not faked' }) {
  requests.push({ method: req.method, url: req.url, expected: false });
  sendJson(res, 404, { error });
}

/**
 * Starts a server-sent event stream on `res`. `data(value)` sends a `data:`
 * event of the value as JSON, `event(type, value)` a named event whose data is
 * `{type, ...value}`, `done()` the `data: [DONE]` that ends an OpenAI stream
 * and the response, `end()` the response.
 */
export function eventStream(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  return {
    data: (value) => res.write(`data: ${JSON.stringify(value)}\n\n`),
    event: (type, value) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...value })}\n\n`),
    done: () => res.end('data: [DONE]\n\n'),
    end: () => res.end(),
  };
}

/**
 * The key of `script` that answers `prompt`: the prompt itself, or a key
 * ending in `…` that the prompt starts with (the agents' own requests, whose
 * text goes on with what the conversation holds).
 */
export function scriptKey(script, prompt) {
  if (prompt === undefined || prompt === null) return undefined;
  if (prompt in script) return prompt;
  return Object.keys(script).find((k) => k.endsWith('…') && prompt.startsWith(k.slice(0, -1)));
}

/**
 * When the module at `moduleUrl` is the one node runs (`node fake-api.mjs
 * [SCRIPT.json]`): starts its fake API with `start(script)`, prints the port,
 * and prints the recorded requests on SIGTERM.
 */
export async function serveWhenRun(moduleUrl, start) {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  const script = process.argv[2] ? JSON.parse(fs.readFileSync(process.argv[2], 'utf8')) : {};
  const api = await start(script);
  console.log(api.port);
  process.on('SIGTERM', () => {
    console.error(JSON.stringify(api.requests, null, 2));
    process.exit(0);
  });
}
