import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import type { Page } from 'playwright-core';
import { launchChromium, skipWithoutChromium } from '../browser.js';
import { clickCounts } from '../../../queries/directory/clicks.js';
import { buildTestApp } from '../../helper.js';
import { directoryFixture, PROXY_PREFIX } from '../../routes/directory/fixture.js';
import { freePort } from '../process.js';

const HOST_TOKEN = 'host-page-token-0123456789abcdefghij';
const ELSEWHERE_TOKEN = 'elsewhere-token-0123456789abcdefghij';

/** The host site: a page on another origin that embeds several widgets and has hostile CSS. */
function hostPage(apiBase: string): string {
  const widget = (id: string, attrs: string) => `<h2>${id}</h2><div id="${id}" data-catalog-az ${attrs}></div>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host site</title>
<style>
  * { font-family: "Comic Sans MS", cursive !important; }
  li { display: none !important; }
  a { color: lime !important; pointer-events: none !important; }
  select, input { display: none !important; }
  .caz-card { border-left: 0 solid black; }
  body { color: rgb(1, 2, 3); }
</style></head><body>
<p id="host-text">Host page text</p>
<div class="caz-card" id="host-card">a host element using a widget class name</div>
${widget('w-all', `data-token="${HOST_TOKEN}"`)}
${widget('w-subject', `data-token="${HOST_TOKEN}" data-subject="history"`)}
${widget('w-list', `data-token="${HOST_TOKEN}" data-list="starter"`)}
${widget('w-limit', `data-token="${HOST_TOKEN}" data-limit="2"`)}
${widget('w-hide', `data-token="${HOST_TOKEN}" data-hide-filters="true"`)}
${widget('w-bad', 'data-token="not-a-token"')}
${widget('w-refused', `data-token="${ELSEWHERE_TOKEN}"`)}
<script src="${apiBase}/widget.js" defer></script>
</body></html>`;
}

async function cardHandles(page: Page, widget: string): Promise<string[]> {
  return page
    .locator(`#${widget} .caz-card`)
    .evaluateAll((cards) => cards.map((c) => c.getAttribute('data-handle') ?? ''));
}

// Child processes (or a browser) start slowly on a busy 2-core machine: allow more than the default.
t.setTimeout(240_000);

const skip = skipWithoutChromium;

t.test('the widget embedded on another origin, in Chromium', { skip }, async (t) => {
  let apiBase = '';
  const hostServer: Server = createServer((req, res) => {
    res.writeHead(req.url === '/' ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(req.url === '/' ? hostPage(apiBase) : 'not found');
  });
  await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => hostServer.close(() => resolve())));
  const hostOrigin = `http://127.0.0.1:${(hostServer.address() as AddressInfo).port}`;
  // Chosen once the host page listens, so the free port handed out cannot be the host's own.
  const apiPort = await freePort();
  apiBase = `http://127.0.0.1:${apiPort}`;

  const fixture = directoryFixture({
    tokens: [
      { token: HOST_TOKEN, allowed_origins: [hostOrigin] },
      { token: ELSEWHERE_TOKEN, allowed_origins: ['https://elsewhere.example.org'] },
    ],
  });
  const { app, runtime } = await buildTestApp(t, { fixture: { directory: fixture }, config: { baseUrl: apiBase } });
  await app.listen({ host: '127.0.0.1', port: apiPort });

  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1100, height: 2400 } });
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  // Database sites are on the internet: answer them locally so the test needs no network.
  await page.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<title>database</title>database site' }),
  );

  await page.goto(`${hostOrigin}/`);
  for (const id of ['w-all', 'w-subject', 'w-list', 'w-limit', 'w-hide'])
    await page.locator(`#${id} .caz-card`).first().waitFor({ timeout: 15_000 });
  for (const id of ['w-bad', 'w-refused']) await page.locator(`#${id} .caz-error`).waitFor({ timeout: 15_000 });

  t.test('no request leaves the host page and this server', async (t) => {
    const foreign = requested.filter((url) => !url.startsWith(hostOrigin) && !url.startsWith(apiBase));
    t.same(foreign, []);
    t.ok(
      requested.some((url) => url.startsWith(`${apiBase}/api/v1/databases?`)),
      'the API was called',
    );
  });

  t.test('default widget: cards, filters, labelled controls, brand color', async (t) => {
    t.same(
      await cardHandles(page, 'w-all'),
      ['ancestry', 'britannica', 'jstor', 'pubmed', 'zeta'],
      'every visible database, hidden one absent',
    );
    const controls = await page.locator('#w-all input, #w-all select').evaluateAll((els) =>
      els.map((e) => ({
        name: e.getAttribute('name'),
        labelled: ((e as HTMLInputElement).labels?.length ?? 0) > 0,
        visible: (e as HTMLElement).offsetParent !== null,
      })),
    );
    t.same(
      controls.map((c) => c.name),
      ['q', 'caz-subject', 'caz-type', 'caz-access'],
      'search box, subject, type and access filters',
    );
    t.ok(
      controls.every((c) => c.labelled),
      'every control has a label',
    );
    t.ok(
      controls.every((c) => c.visible),
      'host CSS cannot hide the controls',
    );
    const color = await page
      .locator('#w-all .caz-card')
      .first()
      .evaluate((card) => getComputedStyle(card).borderLeftColor);
    t.equal(color, 'rgb(138, 21, 56)', 'cards use the brand color #8a1538');
    const linkColor = await page
      .locator('#w-all .caz-card a')
      .first()
      .evaluate((a) => getComputedStyle(a).color);
    t.equal(linkColor, 'rgb(138, 21, 56)', 'host CSS does not recolor the links');
    const hrefs = await page
      .locator('#w-all .caz-card a')
      .evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
    t.ok(
      hrefs.length >= 5 && hrefs.every((href) => href.startsWith(`${apiBase}/directory/go/`)),
      'every card link is the tracked redirect',
    );

    await page.locator('#w-all input[name="q"]').fill('JSTOR');
    t.same(await cardHandles(page, 'w-all'), ['jstor'], 'search by name');
    await page.locator('#w-all input[name="q"]').fill('census');
    t.same(await cardHandles(page, 'w-all'), ['ancestry'], 'search by description');
    await page.locator('#w-all input[name="q"]').fill('');
    await page.locator('#w-all select[name="caz-subject"]').selectOption('medicine');
    t.same(await cardHandles(page, 'w-all'), ['pubmed'], 'subject filter');
    await page.locator('#w-all select[name="caz-subject"]').selectOption('');
    await page.locator('#w-all select[name="caz-type"]').selectOption('reference');
    t.same(await cardHandles(page, 'w-all'), ['britannica'], 'type filter');
    await page.locator('#w-all select[name="caz-type"]').selectOption('');
    await page.locator('#w-all select[name="caz-access"]').selectOption('subscription');
    t.same(await cardHandles(page, 'w-all'), ['jstor', 'zeta'], 'access filter');
    await page.locator('#w-all input[name="q"]').fill('zzz-nothing');
    t.equal(await page.locator('#w-all .caz-card').count(), 0);
    t.match(await page.locator('#w-all .caz-status').textContent(), /No databases/, 'an empty result says so');
    await page.locator('#w-all input[name="q"]').fill('');
    await page.locator('#w-all select[name="caz-access"]').selectOption('');
    t.equal(await page.locator('#w-all .caz-card').count(), 5);
    const subjectOptions = await page
      .locator('#w-all select[name="caz-subject"] option')
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    t.notOk(subjectOptions.includes('art'), 'a subject with only hidden databases is not offered');
  });

  t.test('data-subject, data-list, data-limit, data-hide-filters', async (t) => {
    t.same(await cardHandles(page, 'w-subject'), ['ancestry', 'britannica', 'jstor'], 'locked to one subject');
    t.equal(await page.locator('#w-subject select[name="caz-subject"]').count(), 0, 'no subject filter when locked');
    t.same(await cardHandles(page, 'w-list'), ['pubmed', 'jstor', 'ancestry'], "the list's order, hidden dropped");
    t.same(await cardHandles(page, 'w-limit'), ['ancestry', 'britannica'], 'capped at data-limit');
    await page.locator('#w-limit input[name="q"]').fill('history');
    t.same(await cardHandles(page, 'w-limit'), ['ancestry', 'zeta'], 'the cap applies after filtering');
    t.equal(await page.locator('#w-hide input[name="q"]').count(), 1, 'search box kept');
    t.equal(await page.locator('#w-hide select').count(), 0, 'no filters');
    t.equal(await page.locator('#w-hide .caz-card').count(), 5);
  });

  t.test('errors show a short message, not a blank box', async (t) => {
    t.match(await page.locator('#w-bad .caz-error').textContent(), /token is not valid/);
    t.match(await page.locator('#w-refused .caz-error').textContent(), /cannot be shown on this site/);
    t.equal(await page.locator('#w-bad [role="alert"]').count(), 1, 'announced to screen readers');
  });

  t.test('keyboard: Tab reaches the first widget search box', async (t) => {
    await page.locator('#host-text').click();
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      let active: Element | null = document.activeElement;
      while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
      return active ? `${active.closest('[data-catalog-az]')?.id ?? ''}/${active.getAttribute('name')}` : '';
    });
    t.equal(focused, '/q', 'focus is on a search input inside a shadow root');
    const host = await page.evaluate(() => document.activeElement?.id);
    t.equal(host, 'w-all', 'the first widget holds the focus');
    await page.keyboard.type('pub');
    t.same(await cardHandles(page, 'w-all'), ['pubmed'], 'typing filters');
    await page.keyboard.press('Tab');
    const next = await page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.getAttribute('name'));
    t.equal(next, 'caz-subject', 'Tab moves to the subject filter');
    await page.locator('#w-all input[name="q"]').fill('');
  });

  t.test('the widget does not change the host page', async (t) => {
    const hostStyles = await page.evaluate(() => ({
      text: getComputedStyle(document.getElementById('host-text')!).color,
      card: getComputedStyle(document.getElementById('host-card')!).borderLeftWidth,
    }));
    t.same(hostStyles, { text: 'rgb(1, 2, 3)', card: '0px' });
  });

  mkdirSync('test-output', { recursive: true });
  await page.screenshot({ path: join('test-output', 'directory-widget.png'), fullPage: true });

  t.test('clicking a card goes through the tracked redirect and is counted', async (t) => {
    const before = (await clickCounts(runtime.documents, { handle: 'jstor' })).reduce((n, c) => n + c.count, 0);
    const redirect = page.waitForResponse((res) => res.url() === `${apiBase}/directory/go/jstor`);
    await page.locator('#w-list .caz-card[data-handle="jstor"] a').click();
    t.equal((await redirect).status(), 302);
    await page.waitForURL(`${PROXY_PREFIX}https://www.jstor.org/`);
    t.equal(page.url(), `${PROXY_PREFIX}https://www.jstor.org/`, 'landed on the proxied database URL');
    const after = (await clickCounts(runtime.documents, { handle: 'jstor' })).reduce((n, c) => n + c.count, 0);
    t.equal(after, before + 1, 'the click was counted');
  });
});
