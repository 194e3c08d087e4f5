// The OTLP/HTTP receiver stub of the benchmarks, in a process of its own (started by startOtlpStub in tracing.mjs): a
// collector does not run in the process that measures, so the spans it receives (JSON parsing included) do not cost
// the measured client anything. Accepts `POST /v1/traces` (OTLP/HTTP JSON, gzip or not), counts the spans, answers 200
// at once. Over IPC: sends `{ port }` once listening; answers `{ type: 'count' }` with `{ spans, exports }`.
import { createServer } from 'node:http';
import { gunzipSync } from 'node:zlib';

let spans = 0;
let exports = 0;
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    exports += 1;
    try {
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const json = JSON.parse(body.toString('utf8'));
      for (const rs of json.resourceSpans ?? [])
        for (const ss of rs.scopeSpans ?? []) spans += ss.spans?.length ?? 0;
    } catch {
      // not JSON (protobuf): counted as an export only
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('message', (m) => {
  if (m?.type === 'count') process.send?.({ type: 'count', spans, exports });
});
process.on('disconnect', () => server.close(() => process.exit(0)));
