#!/usr/bin/env node
// A SCRIPTED OpenAI-compatible model server for the offline demo (and the benchmarks): it replays a recorded scenario
// instead of thinking. The services talk to it through the real `openai` SDK exactly as to a real provider
// (OPENAI_BASE_URL=<url>/v1), so the whole system runs end to end without a key or a network.
//
// A scenario (tools/demo/scenario.json) is a list of rules; a chat request gets the reply of the FIRST rule whose
// `when` matches it. Matching is stateless (it looks only at the request), so the same scenario serves repeated runs,
// several goals at once and restarted services:
//   when.schema    the structured-output schema name (response_format.json_schema.name), e.g. "DiscoveryPlan"
//   when.tool      a tool name that must be offered (tool calling), e.g. "Finalize" for the action decision
//   when.contains  strings that must ALL appear in the messages' text;  when.absent: strings that must NOT appear;
//   when.anyOf     at least one of these strings must appear (e.g. the same marker in the en and zh templates)
//   reply.json     the structured answer;  reply.toolCall {name, arguments} (+ reply.content);  reply.text
//   delayMs        this rule's latency (instead of the server's);  chunkDelayMs: the pause between streamed pieces
// A `stream: true` request gets the same reply as OpenAI streams it: `chat.completion.chunk` events (the text in
// word-sized pieces, then any tool call, then the finish reason), a usage chunk when `stream_options.include_usage`,
// and `data: [DONE]`.
// A request no rule matches gets HTTP 500 (marked not retryable) naming the schema/tools, and is counted.
//
//   node tools/demo/scripted-llm.mjs [--scenario tools/demo/scenario.json] [--port 0] [--delay-ms 150]
//     [--chunk-delay-ms 0] [--dump dir]
// --dump (or `dumpDir`) writes every chat request ({schema, tools, text, rule}) to <dir>/<n>.json: the way to record
// or extend a scenario (run the system, read what the model was asked, write the rule).
// GET /scripted/info → {scripted: true, scenario, served, unmatched}; /v1/models, /v1/embeddings (hashed vectors).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_SCENARIO = path.join(here, 'scenario.json');
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Reads and checks a scenario file; throws with the rule index on a malformed rule. */
export function loadScenario(file = DEFAULT_SCENARIO) {
  const scenario = JSON.parse(readFileSync(file, 'utf8'));
  if (!scenario || !Array.isArray(scenario.rules))
    throw new Error(`${file}: a scenario needs "rules": [...]`);
  scenario.rules.forEach((rule, i) => {
    const r = rule?.reply;
    const kinds = r ? ['json', 'toolCall', 'text'].filter((k) => r[k] !== undefined) : [];
    if (kinds.length !== 1)
      throw new Error(`${file}: rule ${i} needs exactly one of reply.json/toolCall/text`);
    if (r.toolCall && typeof r.toolCall.name !== 'string')
      throw new Error(`${file}: rule ${i} toolCall needs a name`);
  });
  return { name: scenario.name ?? path.basename(file, '.json'), file, ...scenario };
}

function messagesText(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return messages
    .map((m) => {
      if (typeof m?.content === 'string') return m.content;
      if (Array.isArray(m?.content)) return m.content.map((p) => p?.text ?? '').join('\n');
      if (Array.isArray(m?.tool_calls))
        return m.tool_calls.map((c) => `${c.function?.name} ${c.function?.arguments}`).join('\n');
      return '';
    })
    .join('\n');
}

/** What a request asks for: the schema name, the offered tools, and the messages' text. */
export function describeRequest(body) {
  const format = body.response_format;
  return {
    schema: format?.type === 'json_schema' ? (format.json_schema?.name ?? null) : null,
    tools: Array.isArray(body.tools) ? body.tools.map((t) => t?.function?.name).filter(Boolean) : [],
    text: messagesText(body),
  };
}

/** The first rule that matches the request, or undefined. */
export function matchRule(rules, request) {
  return rules.find(({ when = {} }) => {
    if (when.schema !== undefined && when.schema !== request.schema) return false;
    if (when.schema === undefined && when.tool === undefined && request.schema !== null) return false;
    if (when.tool !== undefined && !request.tools.includes(when.tool)) return false;
    if (when.tool === undefined && request.tools.length > 0) return false;
    if ((when.contains ?? []).some((s) => !request.text.includes(s))) return false;
    if ((when.absent ?? []).some((s) => request.text.includes(s))) return false;
    if (when.anyOf && !when.anyOf.some((s) => request.text.includes(s))) return false;
    return true;
  });
}

let ids = 0;
const tokens = (text) => Math.max(1, Math.ceil(text.length / 4));

/** The OpenAI `chat.completion` body for a rule's reply. */
export function completionFor(reply, model, promptText) {
  ids += 1;
  const content =
    reply.json !== undefined
      ? JSON.stringify(reply.json)
      : reply.text !== undefined
        ? reply.text
        : (reply.content ?? null);
  const toolCalls = reply.toolCall
    ? [
        {
          id: `call_scripted_${ids}`,
          type: 'function',
          function: { name: reply.toolCall.name, arguments: JSON.stringify(reply.toolCall.arguments ?? {}) },
        },
      ]
    : undefined;
  const completion = tokens(content ?? JSON.stringify(toolCalls));
  const prompt = tokens(promptText);
  return {
    id: `chatcmpl-scripted-${ids}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content,
          refusal: null,
          ...(toolCalls ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: toolCalls ? 'tool_calls' : 'stop',
      },
    ],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

function hashedVector(text, dimensions) {
  const v = new Array(dimensions).fill(0);
  const padded = `  ${String(text).toLowerCase()}  `;
  for (let i = 0; i + 3 <= padded.length; i += 1) {
    const h = createHash('sha1')
      .update(padded.slice(i, i + 3))
      .digest();
    v[h.readUInt32BE(0) % dimensions] += h[4] & 1 ? 1 : -1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('request body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * The pieces a streamed text is sent in: words with their leading whitespace, cut to at most 8 characters (so a
 * Chinese sentence, which has no spaces, is streamed in pieces too).
 */
export function streamPieces(text) {
  return (text.match(/\s*\S+|\s+$/gu) ?? []).flatMap((word) => {
    const chars = Array.from(word);
    const pieces = [];
    for (let i = 0; i < chars.length; i += 8) pieces.push(chars.slice(i, i + 8).join(''));
    return pieces;
  });
}

/** The `chat.completion.chunk` events of a completion, as OpenAI streams them (SSE, `data: [DONE]` last). */
export function completionChunks(completion, includeUsage) {
  const { message, finish_reason: finishReason } = completion.choices[0];
  const chunk = (choices, extra = {}) => ({
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    choices,
    ...extra,
  });
  const delta = (d) => chunk([{ index: 0, delta: d, logprobs: null, finish_reason: null }]);
  const chunks = [delta({ role: 'assistant', content: '' })];
  for (const piece of streamPieces(message.content ?? '')) chunks.push(delta({ content: piece }));
  (message.tool_calls ?? []).forEach((call, index) =>
    chunks.push(delta({ tool_calls: [{ index, ...call }] })),
  );
  chunks.push(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason }]));
  if (includeUsage) chunks.push(chunk([], { usage: completion.usage }));
  return chunks;
}

/** Streams a completion as server-sent events, `chunkDelayMs` apart; stops when the client goes away. */
function streamCompletion(res, completion, { includeUsage, chunkDelayMs, timers }) {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const events = [...completionChunks(completion, includeUsage).map((c) => JSON.stringify(c)), '[DONE]'];
  const next = () => {
    if (res.destroyed) return;
    const event = events.shift();
    if (event === undefined) return void res.end();
    res.write(`data: ${event}\n\n`);
    if (chunkDelayMs <= 0) return next();
    const timer = setTimeout(() => {
      timers.delete(timer);
      next();
    }, chunkDelayMs);
    timers.add(timer);
  };
  next();
}

/**
 * Starts the server. `delayMs` is a fixed latency added to every chat answer (the demo uses a little so the progress
 * display is readable; the benchmark uses it as the model's per-call latency). `chunkDelayMs` is the pause between the
 * pieces of a streamed answer (a rule's own `chunkDelayMs` wins). `respond(request)` (scripts only) may compute a
 * reply from the request ({schema, tools, text}) before the rules are consulted; undefined leaves it to the rules.
 * `onServe(ruleId)` (scripts only) is called as each chat request is matched, before its latency (the benchmark times
 * when goals reach the model with it).
 */
export async function startScriptedLlm({
  scenario = loadScenario(),
  host = '127.0.0.1',
  port = 0,
  delayMs = 0,
  chunkDelayMs = 0,
  respond = undefined,
  log = () => undefined,
  dumpDir = undefined,
  onServe = undefined,
} = {}) {
  if (dumpDir) mkdirSync(dumpDir, { recursive: true });
  let dumped = 0;
  const stats = { served: 0, unmatched: 0, byRule: {} };
  const model = scenario.model ?? 'scripted';
  const send = (res, status, body, headers = {}) => {
    if (res.destroyed || res.headersSent) return;
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...headers,
    });
    res.end(text);
  };
  const error = (message, type = 'server_error') => ({ error: { message, type, param: null, code: null } });
  const timers = new Set();

  const server = createServer((req, res) => {
    const route = (req.url ?? '/').split('?')[0];
    const handle = async () => {
      if (req.method === 'GET' && route === '/scripted/info')
        return send(res, 200, {
          scripted: true,
          scenario: scenario.name,
          file: scenario.file ?? null,
          ...stats,
        });
      if (req.method === 'GET' && route === '/v1/models')
        return send(res, 200, {
          object: 'list',
          data: [{ id: model, object: 'model', created: 0, owned_by: 'scripted' }],
        });
      if (req.method !== 'POST' || (route !== '/v1/chat/completions' && route !== '/v1/embeddings'))
        return send(
          res,
          404,
          error(`the scripted model does not serve ${req.method} ${route}`, 'invalid_request_error'),
        );
      let body;
      try {
        body = JSON.parse(await readBody(req));
      } catch (err) {
        return send(res, 400, error(`invalid JSON body (${err.message})`, 'invalid_request_error'));
      }
      if (route === '/v1/embeddings') {
        const inputs = Array.isArray(body.input) ? body.input : [body.input ?? ''];
        const dims = typeof body.dimensions === 'number' ? body.dimensions : 256;
        return send(res, 200, {
          object: 'list',
          model: body.model ?? model,
          data: inputs.map((text, index) => ({
            object: 'embedding',
            index,
            embedding: hashedVector(text, dims),
          })),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        });
      }
      const request = describeRequest(body);
      const computed = respond?.(request);
      const rule = computed ? { id: 'computed', reply: computed } : matchRule(scenario.rules, request);
      const what = `${request.schema ? `schema ${request.schema}` : 'no schema'}, tools [${request.tools.join(', ')}]`;
      if (dumpDir) {
        dumped += 1;
        writeFileSync(
          path.join(dumpDir, `${String(dumped).padStart(4, '0')}.json`),
          JSON.stringify({ ...request, rule: rule?.id ?? null }, null, 2),
        );
      }
      if (!rule) {
        stats.unmatched += 1;
        log(`no rule of scenario "${scenario.name}" matches: ${what}`);
        return send(
          res,
          500,
          error(`scripted scenario "${scenario.name}" has no answer for this request (${what})`),
          {
            'x-should-retry': 'false',
          },
        );
      }
      stats.served += 1;
      const id = rule.id ?? String(scenario.rules.indexOf(rule));
      stats.byRule[id] = (stats.byRule[id] ?? 0) + 1;
      onServe?.(id);
      log(`rule ${id} answers ${what}`);
      const completion = completionFor(rule.reply, body.model ?? model, request.text);
      const answer = () =>
        body.stream === true
          ? streamCompletion(res, completion, {
              includeUsage: body.stream_options?.include_usage === true,
              chunkDelayMs: rule.chunkDelayMs ?? chunkDelayMs,
              timers,
            })
          : send(res, 200, completion);
      const wait = rule.delayMs ?? delayMs;
      if (wait <= 0) return answer();
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, wait);
      timers.add(timer);
      res.once('close', () => {
        clearTimeout(timer);
        timers.delete(timer);
      });
    };
    handle().catch((err) => send(res, 500, error(`scripted model failed: ${err.message}`)));
  });
  server.keepAliveTimeout = 5_000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  const url = `http://${host}:${address.port}`;
  return {
    url,
    baseURL: `${url}/v1`,
    model,
    scenario: scenario.name,
    stats,
    close: () =>
      new Promise((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      scenario: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'delay-ms': { type: 'string' },
      'chunk-delay-ms': { type: 'string' },
      quiet: { type: 'boolean' },
      dump: { type: 'string' },
    },
  });
  const server = await startScriptedLlm({
    scenario: loadScenario(values.scenario ? path.resolve(values.scenario) : DEFAULT_SCENARIO),
    host: values.host ?? '127.0.0.1',
    port: Number(values.port ?? 0),
    delayMs: Number(values['delay-ms'] ?? 0),
    chunkDelayMs: Number(values['chunk-delay-ms'] ?? 0),
    log: values.quiet ? () => undefined : (line) => console.error(`[scripted-llm] ${line}`),
    dumpDir: values.dump ? path.resolve(values.dump) : undefined,
  });
  console.log(`scripted model "${server.scenario}" listening on ${server.baseURL}`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
