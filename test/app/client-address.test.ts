import t from 'tap';
import { compileTrustedProxies } from '../../infra/net/trusted-proxies.js';
import { loadConfig } from '../../infra/config.js';
import { buildTestApp } from '../helper.js';

t.test('TRUST_PROXY takes addresses, CIDRs and proxy-addr names; a bad entry stops the start, named', async (t) => {
  t.same(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8, 192.0.2.1 ,loopback,2001:db8::/32' }).trustProxy, [
    '10.0.0.0/8',
    '192.0.2.1',
    'loopback',
    '2001:db8::/32',
  ]);
  t.same(loadConfig({}).trustProxy, [], "unset: no proxy is trusted, the seed's headers rule");
  t.throws(
    () => loadConfig({ TRUST_PROXY: '10.0.0.0/8,proxy.example.org' }),
    /TRUST_PROXY: "proxy\.example\.org" is not an IP address/,
  );
  t.throws(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' }), /TRUST_PROXY: "10\.0\.0\.0\/33"/);
  const trust = compileTrustedProxies(['10.0.0.0/8']);
  t.equal(trust?.('10.1.2.3', 0), true);
  t.equal(trust?.('11.1.2.3', 0), false);
  t.equal(trust?.('::ffff:10.1.2.3', 0), true, 'an IPv4-mapped peer address matches its IPv4 range');
});

/** One chatbot search per client address per minute: the second from the same address is refused. */
async function limitedApp(t: Parameters<typeof buildTestApp>[0], trustProxy: string[]) {
  const { app } = await buildTestApp(t, { config: { chatbotRateLimit: 1, chatbotRateWindowSeconds: 60, trustProxy } });
  return (remoteAddress: string, headers: Record<string, string> = {}) =>
    app
      .inject({
        method: 'POST',
        url: '/chatbot/api/search',
        remoteAddress,
        headers: { 'content-type': 'application/json', ...headers },
        payload: { query: 'x' },
      })
      .then((res) => res.statusCode);
}

t.test("without TRUST_PROXY: the seed's rule, headers from anyone", async (t) => {
  const search = await limitedApp(t, []);
  t.equal(await search('198.51.100.20', { 'x-forwarded-for': '203.0.113.1, 10.0.0.5' }), 200);
  t.equal(
    await search('198.51.100.21', { 'x-forwarded-for': '203.0.113.1' }),
    429,
    'the leftmost X-Forwarded-For address is the client',
  );
  t.equal(await search('198.51.100.22', { 'edge-connecting-ip': '203.0.113.2' }), 200);
  t.equal(
    await search('198.51.100.23', { 'edge-connecting-ip': '203.0.113.2' }),
    429,
    'Edge-Connecting-IP is the client',
  );
});

t.test('with TRUST_PROXY: only headers set by the listed proxies are believed', async (t) => {
  const search = await limitedApp(t, ['10.0.0.0/8']);

  // A client that connects directly and makes up headers is counted by its own address.
  t.equal(
    await search('198.51.100.20', { 'x-forwarded-for': '203.0.113.1', 'edge-connecting-ip': '203.0.113.2' }),
    200,
  );
  t.equal(
    await search('198.51.100.20', { 'x-forwarded-for': '203.0.113.99', 'edge-connecting-ip': '203.0.113.98' }),
    429,
    'new made-up headers do not help',
  );
  t.equal(await search('10.0.0.9', { 'x-forwarded-for': '203.0.113.1' }), 200, 'the made-up address was never counted');

  // Through trusted proxies: X-Forwarded-For is walked from the right past them.
  t.equal(await search('10.0.0.7', { 'x-forwarded-for': '192.0.2.66, 203.0.113.5, 10.0.0.3' }), 200);
  t.equal(
    await search('10.0.0.8', { 'x-forwarded-for': '203.0.113.5' }),
    429,
    'the first untrusted address from the right is the client, not the leftmost one',
  );
  t.equal(
    await search('10.0.0.8', { 'x-forwarded-for': '192.0.2.66' }),
    200,
    'an address left of it, which anyone could have written, is not',
  );

  // Edge-Connecting-IP from a trusted proxy names the client.
  t.equal(await search('10.0.0.7', { 'edge-connecting-ip': '203.0.113.40' }), 200);
  t.equal(await search('10.0.0.8', { 'edge-connecting-ip': '203.0.113.40', 'x-forwarded-for': '203.0.113.41' }), 429);
});
