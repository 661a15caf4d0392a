import { Agent, createServer, request, type IncomingHttpHeaders } from 'node:http';

/**
 * `tsx test/e2e/balancer.ts <port> <upstream URL>...`: a load balancer for the two-host topology
 * (test/e2e/topology.ts). Each request goes to the next upstream in turn, with no session
 * affinity, its body streamed both ways; it prints one line once it listens.
 */

/** Hop-by-hop headers belong to one connection (RFC 9110, 7.6.1): a proxy does not pass them on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));
}

const [port, ...upstreams] = process.argv.slice(2);
if (!port || upstreams.length === 0) {
  process.stderr.write('usage: balancer.ts <port> <upstream URL>...\n');
  process.exit(2);
}
const agent = new Agent({ keepAlive: true });
let next = 0;
const server = createServer((req, res) => {
  const upstream = new URL(upstreams[next]);
  next = (next + 1) % upstreams.length;
  const forwarded = request(
    {
      agent,
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: endToEnd(req.headers),
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(res);
    },
  );
  forwarded.on('error', (error) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`balancer: ${error.message}`);
  });
  // A client gone before the answer ended (an aborted fetch): the upstream request goes too.
  res.on('close', () => {
    if (!res.writableFinished) forwarded.destroy();
  });
  req.pipe(forwarded);
});
server.listen(Number(port), '127.0.0.1', () => process.stdout.write(`balancing ${upstreams.join(' ')} on ${port}\n`));
