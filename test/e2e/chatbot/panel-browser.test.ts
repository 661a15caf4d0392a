import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import type { Page } from 'playwright-core';
import { launchChromium, skipWithoutChromium } from '../browser.js';
import { chatbotFixture } from '../../routes/chatbot/support.js';
import { runCli, startServer } from '../process.js';

/** Low enough that the test can spend it: every POST from the browser comes from 127.0.0.1. */
const RATE_LIMIT = 4;

/** The host site: a page on another origin with two chat panels and hostile CSS. */
function hostPage(apiBase: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host site</title>
<style>
  * { color: red !important; font-size: 40px !important; font-family: "Comic Sans MS", cursive !important; }
  p, ol, li { display: none !important; }
  a { pointer-events: none !important; }
  .cc-answer { border: 9px solid lime; }
</style></head><body>
<p id="host-text" style="display:block !important">Host page text</p>
<div style="height: 600px">room above</div>
<div id="chat-main" data-collection-chat data-site-slug="main" data-site-id="1"></div>
<div id="chat-sets" data-collection-chat data-item-set-ids="20, x, -3" data-site-slug="annex"></div>
<div id="chat-bad" data-collection-chat data-site-id="abc"></div>
<p class="cc-answer" id="host-answer">a host element using a panel class name</p>
<div style="height: 3000px">room to scroll</div>
<script src="${apiBase}/chat-widget.js" defer></script>
</body></html>`;
}

/** A page with one panel whose server allows only some origins (CHATBOT_ALLOWED_ORIGINS). */
function restrictedPage(apiBase: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host site</title></head><body>
<div id="chat" data-collection-chat></div>
<script src="${apiBase}/chat-widget.js" defer></script>
</body></html>`;
}

/** What the shadow root of a panel holds, read in the page. */
function inPanel<T>(page: Page, panel: string, read: (root: ShadowRoot) => T): Promise<T> {
  return page.locator(`#${panel}`).evaluate((host, source) => {
    // The reader travels as source text (the page cannot receive a closure); tsx names inner
    // functions with an __name helper that exists only in Node, so the page gets a stand-in.
    const fn = new Function(`var __name = function (f) { return f; }; return (${source})`)() as (root: ShadowRoot) => T;
    return fn(host.shadowRoot as ShadowRoot);
  }, read.toString());
}

/**
 * Waits until the server has indexed the collection: it rebuilds the index from the log at
 * start, and its jobs may finish after it listens. Each look comes from an address of its own,
 * so none of them spends the browser's rate limit.
 */
async function indexed(apiBase: string, resources: number): Promise<void> {
  for (let i = 1; i <= 100; i++) {
    const res = await fetch(`${apiBase}/chatbot/api/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `192.0.2.${i}` },
      body: JSON.stringify({ query: 'violin harbour map museum harpsichord', per_page: 50 }),
    });
    if (res.ok && ((await res.json()) as { total: number }).total >= resources) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the collection was not indexed in time');
}

// Server processes and a browser start slowly on a busy 2-core machine: allow more than the default.
t.setTimeout(240_000);

const skip = skipWithoutChromium;

t.test('the chat panel embedded on another origin, in Chromium', { skip }, async (t) => {
  let apiBase = '';
  let restrictedBase = '';
  const hostServer: Server = createServer((req, res) => {
    const page =
      req.url === '/' ? hostPage(apiBase) : req.url === '/restricted' ? restrictedPage(restrictedBase) : null;
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page ?? 'not found');
  });
  await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => hostServer.close(() => resolve())));
  const hostOrigin = `http://127.0.0.1:${(hostServer.address() as AddressInfo).port}`;
  // The real server, started once the host page listens so its free port cannot be the host's own.
  const dataDir = t.testdir();
  const fixtureFile = join(dataDir, 'fixture.json');
  writeFileSync(fixtureFile, JSON.stringify(chatbotFixture));
  const env = { DATA_DIR: dataDir, CHATBOT_RATE_LIMIT: String(RATE_LIMIT) };
  const imported = await runCli('import.ts', [fixtureFile], env);
  t.equal(imported.code, 0, imported.stderr);
  const server = await startServer(env);
  t.teardown(() => server.stop());
  apiBase = server.baseUrl;
  await indexed(apiBase, 6);

  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 900, height: 420 } });
  const requested: string[] = [];
  page.on('request', (request) => requested.push(`${request.method()} ${request.url()}`));
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.setDefaultTimeout(15_000);

  await page.goto(`${hostOrigin}/`);
  await page.locator('#chat-main .cc-input').waitFor();
  await page.locator('#chat-sets .cc-input').waitFor();

  t.test('keyboard: Tab reaches a labelled question box, Enter asks; the answer and its sources appear', async (t) => {
    await page.locator('#host-text').click();
    await page.keyboard.press('Tab');
    t.equal(await page.evaluate(() => document.activeElement?.id), 'chat-main', 'the first panel holds the focus');
    t.equal(
      await inPanel(
        page,
        'chat-main',
        (root) => (root.activeElement as HTMLInputElement | null)?.labels?.[0]?.textContent,
      ),
      'Ask a question about the collection',
    );
    // What the panel shows while the answer streams, and what its live region is given, in order.
    await inPanel(page, 'chat-main', (root) => {
      const log: string[] = [];
      (window as unknown as { ccLog: string[] }).ccLog = log;
      const answer = root.querySelector('.cc-answer') as Element;
      const draft = root.querySelector('.cc-draft') as Element;
      new MutationObserver((records) => {
        if (records.some((r) => r.addedNodes.length > 0)) log.push(`answer: ${answer.textContent}`);
      }).observe(answer, { childList: true, subtree: true, characterData: true });
      new MutationObserver((records) => {
        if (records.some((r) => r.addedNodes.length > 0)) log.push(`draft: ${draft.textContent}`);
      }).observe(draft, { childList: true, subtree: true, characterData: true });
      return draft.getAttribute('aria-hidden');
    });
    const answered = page.waitForResponse(
      (res) => res.url() === `${apiBase}/chatbot/api/chat` && res.request().method() === 'POST',
    );
    await page.keyboard.type('When does the museum open on Saturdays?');
    await page.keyboard.press('Enter');
    const response = await answered;
    await page.locator('#chat-main .cc-answer p').first().waitFor();
    t.match(response.request().headers().accept, /^text\/event-stream/, 'the panel asks for the stream');
    t.match(response.headers()['content-type'], /^text\/event-stream/, 'and gets it');
    const log = await page.evaluate(() => (window as unknown as { ccLog: string[] }).ccLog);
    const answerIndex = log.findIndex((entry) => entry.startsWith('answer: '));
    t.ok(
      log.slice(0, answerIndex).some((entry) => /^draft: .*ten on Saturdays\. \[1\]/.test(entry)),
      `the text showed as it streamed (${JSON.stringify(log)})`,
    );
    t.equal(
      log.filter((entry) => entry.startsWith('answer: ')).length,
      1,
      'the live region was given the finished answer once',
    );
    t.equal(await page.locator('#chat-main .cc-draft').textContent(), '', 'the streamed text made way for the answer');
    t.equal(
      await page.locator('#chat-main .cc-draft').getAttribute('aria-hidden'),
      'true',
      'the streaming text is not announced',
    );

    t.match(await page.locator('#chat-main .cc-answer').textContent(), /ten on Saturdays\./);
    t.equal(
      await page.locator('#chat-main .cc-answer').getAttribute('aria-live'),
      'polite',
      'the answer is a live region',
    );
    t.equal(await page.locator('#chat-main .cc-answer').getAttribute('aria-busy'), 'false', 'no longer busy');
    t.ok(
      requested.includes(`POST ${apiBase}/chatbot/api/chat`),
      'the question went to the server that served the script',
    );
    t.same(
      requested.filter((r) => !r.includes(hostOrigin) && !r.includes(apiBase)),
      [],
      'no request leaves the two origins',
    );

    const source = await inPanel(page, 'chat-main', (root) => {
      const item = root.getElementById('chatbot-source-1');
      const link = item?.querySelector('a') as HTMLAnchorElement | null;
      return {
        tag: item?.tagName,
        list: item?.parentElement?.tagName,
        title: link?.textContent,
        href: link?.href,
        type: item?.querySelector('.cc-type')?.textContent,
        snippet: item?.querySelector('.cc-snippet')?.textContent,
      };
    });
    t.equal(source.tag, 'LI');
    t.equal(source.list, 'OL', 'sources are an ordered list');
    t.equal(source.title, 'Visiting the museum');
    t.equal(source.href, `${hostOrigin}/s/main/page/visit`, "the source's url, a path on the embedding site");
    t.equal(source.type, 'Page');
    t.match(source.snippet, /opens at nine on weekdays/);
    const citation = await page.locator('#chat-main a.chatbot-citation').first().getAttribute('href');
    t.equal(citation, '#chatbot-source-1');
  });

  t.test('a citation moves to its source inside the shadow root, by mouse and by keyboard', async (t) => {
    const before = page.url();
    // The citation at the very bottom of the window: its source, listed after the answer, is below it.
    const citationAtTheBottom = () =>
      page
        .locator('#chat-main a.chatbot-citation')
        .first()
        .evaluate((link) => {
          window.scrollTo(0, 0);
          window.scrollBy(0, Math.max(0, link.getBoundingClientRect().bottom - window.innerHeight + 2));
        });
    await citationAtTheBottom();
    const visible = () =>
      inPanel(page, 'chat-main', (root) => {
        const rect = (root.getElementById('chatbot-source-1') as HTMLElement).getBoundingClientRect();
        return rect.top >= 0 && rect.bottom <= window.innerHeight;
      });
    t.notOk(await visible(), 'the source starts below the fold of a short window');
    await page.locator('#chat-main a.chatbot-citation').first().click();
    t.equal(
      await inPanel(page, 'chat-main', (root) => root.activeElement?.id),
      'chatbot-source-1',
      'the source has the focus',
    );
    t.ok(await visible(), 'and is scrolled into view');
    t.ok(
      await page.locator('#chat-main #chatbot-source-1').evaluate((li) => li.classList.contains('cc-source-current')),
      'and is marked',
    );
    t.equal(page.url(), before, 'no navigation to a fragment the document does not have');

    await page.locator('#chat-main .cc-input').focus();
    await citationAtTheBottom();
    t.notOk(await visible());
    await page.locator('#chat-main a.chatbot-citation').first().focus();
    await page.keyboard.press('Enter');
    t.equal(
      await inPanel(page, 'chat-main', (root) => root.activeElement?.id),
      'chatbot-source-1',
      'Enter on a citation moves the focus too',
    );
    t.ok(await visible());
  });

  t.test('a second panel works on its own, with its attributes; titles and snippets are text', async (t) => {
    await page.locator('#chat-sets .cc-input').fill('Was there a script alert in the harpsichord inventory?');
    await page.locator('#chat-sets .cc-submit').click();
    await page.locator('#chat-sets .cc-source').first().waitFor();
    const sources = await inPanel(page, 'chat-sets', (root) =>
      Array.from(root.querySelectorAll('.cc-source')).map((li) => ({
        href: (li.querySelector('a') as HTMLAnchorElement).href,
        snippet: li.querySelector('.cc-snippet')?.textContent ?? '',
      })),
    );
    t.ok(sources.length > 0);
    t.ok(
      sources.every((s) => s.href.startsWith(`${hostOrigin}/s/annex/`)),
      'data-site-slug rewrote the URLs',
    );
    t.ok(
      sources.every((s) => /\/(item\/10[12]|media\/1010)$/.test(s.href)),
      'data-item-set-ids kept only set 20, its items and their media',
    );
    t.ok(
      sources.some((s) => s.snippet.includes('<script>alert(1)</script>')),
      'markup in a snippet is shown as text',
    );
    t.match(
      await page.locator('#chat-sets .cc-answer').textContent(),
      /<script>alert\(1\)<\/script>/,
      'and in the answer',
    );
    t.equal(
      await inPanel(page, 'chat-sets', (root) => root.querySelectorAll('script, img, iframe').length),
      0,
      'no element came from the content',
    );
    t.same(dialogs, [], 'nothing ran');
    mkdirSync('test-output', { recursive: true });
    await page.locator('#chat-sets').screenshot({ path: join('test-output', 'chat-panel-answer.png') });
    t.match(
      await page.locator('#chat-main .cc-answer').textContent(),
      /ten on Saturdays/,
      'the first panel keeps its answer',
    );
    t.equal(
      await page.locator('#chat-main #chatbot-source-1 a').textContent(),
      'Visiting the museum',
      'and its sources',
    );
  });

  t.test("the host page's CSS stays out and the panel's stays in", async (t) => {
    const styles = await inPanel(page, 'chat-main', (root) => {
      const style = (selector: string) => {
        const s = getComputedStyle(root.querySelector(selector) as Element);
        return { color: s.color, fontSize: s.fontSize, display: s.display };
      };
      return {
        answer: style('.cc-answer p'),
        input: style('.cc-input'),
        source: style('.cc-source'),
        snippet: style('.cc-snippet'),
        answerBorder: getComputedStyle(root.querySelector('.cc-answer') as Element).borderTopWidth,
      };
    });
    t.same(
      styles.answer,
      { color: 'rgb(31, 35, 40)', fontSize: '16px', display: 'block' },
      'answer text keeps its color and size',
    );
    t.equal(styles.input.fontSize, '16px');
    t.not(styles.input.color, 'rgb(255, 0, 0)');
    t.equal(styles.source.display, 'list-item', 'the host cannot hide the sources');
    t.equal(styles.snippet.fontSize, '14.4px');
    t.equal(styles.answerBorder, '0px', "a host rule for the panel's class name does not apply inside");
    const host = await page.evaluate(
      () => getComputedStyle(document.getElementById('host-answer') as Element).borderTopWidth,
    );
    t.equal(host, '9px', "the panel's CSS does not change the host page");
  });

  t.test('an empty question is not sent', async (t) => {
    const posts = requested.filter((r) => r.startsWith('POST ')).length;
    await page.locator('#chat-sets .cc-input').fill('   ');
    await page.locator('#chat-sets .cc-input').press('Enter');
    t.match(await page.locator('#chat-sets .cc-error').textContent(), /type a question/);
    t.equal(requested.filter((r) => r.startsWith('POST ')).length, posts);
  });

  t.test('busy while waiting; an unavailable service gets a clear message, not a blank box', async (t) => {
    // The server's own 503 needs a broken vector index; the panel only sees the status and body.
    // The answer is held back until the busy state has been checked.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(`${apiBase}/chatbot/api/chat`, async (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      await held;
      await route.fulfill({
        status: 503,
        contentType: 'application/json',
        headers: { 'access-control-allow-origin': '*' },
        body: JSON.stringify({ error: 'connect ECONNREFUSED 10.0.0.5:9200' }),
      });
    });
    t.teardown(() => page.unroute(`${apiBase}/chatbot/api/chat`));
    const chatPosts = () => requested.filter((r) => r === `POST ${apiBase}/chatbot/api/chat`).length;
    const postsBefore = chatPosts();
    await page.locator('#chat-sets .cc-input').fill('Who made the violin?');
    await page.locator('#chat-sets .cc-input').press('Enter');
    await page.locator('#chat-sets .cc-submit[aria-disabled="true"]').waitFor();
    t.equal(await page.locator('#chat-sets .cc-answer').getAttribute('aria-busy'), 'true', 'the live region is busy');
    t.match(await page.locator('#chat-sets .cc-status').textContent(), /Looking for an answer/);
    t.equal(await page.locator('#chat-sets .cc-submit').textContent(), 'Asking…');
    await page.locator('#chat-sets .cc-input').press('Enter');
    release();
    await page.locator('#chat-sets .cc-submit[aria-disabled="false"]').waitFor();
    t.equal(chatPosts() - postsBefore, 1, 'a second Enter while busy asks nothing more');
    t.equal(
      await page.locator('#chat-sets .cc-error').textContent(),
      'The collection assistant is unavailable right now. Please try again later.',
    );
    t.equal(await page.locator('#chat-sets .cc-source').count(), 0, 'the earlier sources are gone');
  });

  t.test('an error event mid-stream: the streamed text goes, a clear message comes', async (t) => {
    // A failure after the first event (the provider breaking off) cannot be caused in the real
    // server's embedded answerer; the panel only sees the events.
    await page.route(`${apiBase}/chatbot/api/chat`, async (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      await route.fulfill({
        status: 200,
        contentType: 'text/event-stream',
        headers: { 'access-control-allow-origin': '*' },
        body: 'event: text\ndata: {"text":"The violin was "}\n\nevent: error\ndata: {"error":"The language model provider returned an error while answering."}\n\n',
      });
    });
    t.teardown(() => page.unroute(`${apiBase}/chatbot/api/chat`));
    await page.locator('#chat-sets .cc-input').fill('Who made the violin?');
    await page.locator('#chat-sets .cc-input').press('Enter');
    await page.locator('#chat-sets .cc-error:not(:empty)').waitFor();
    t.equal(
      await page.locator('#chat-sets .cc-error').textContent(),
      'Something went wrong while answering. Please try again.',
    );
    t.equal(
      await page.locator('#chat-sets .cc-draft').textContent(),
      '',
      'the broken-off text is not left as if it were the answer',
    );
    t.equal(await page.locator('#chat-sets .cc-answer').textContent(), '');
    t.equal(await page.locator('#chat-sets .cc-submit').getAttribute('aria-disabled'), 'false', 'ready to ask again');
  });

  t.test(
    'an answer given while the collection is still being read carries a notice; the next one does not',
    async (t) => {
      // The real server has read the fixture by now, and each real question spends one of the
      // rate limit's: the answers are the stream's events, with and without still_reading.
      let stillReading = true;
      await page.route(`${apiBase}/chatbot/api/chat`, async (route) => {
        if (route.request().method() !== 'POST') return route.fallback();
        const answer = {
          answer_html: '<p>The violin was made in Cremona.</p>',
          sources: [],
          ...(stillReading ? { still_reading: true } : {}),
        };
        await route.fulfill({
          status: 200,
          contentType: 'text/event-stream',
          headers: { 'access-control-allow-origin': '*' },
          body: `event: text\ndata: {"text":"The violin was made in Cremona."}\n\nevent: sources\ndata: {"sources":[]}\n\nevent: end\ndata: ${JSON.stringify(answer)}\n\n`,
        });
      });
      t.teardown(() => page.unroute(`${apiBase}/chatbot/api/chat`));
      await page.locator('#chat-sets .cc-input').fill('Who made the violin?');
      await page.locator('#chat-sets .cc-input').press('Enter');
      await page.locator('#chat-sets .cc-answer .cc-notice').waitFor();
      t.equal(
        await page.locator('#chat-sets .cc-notice').textContent(),
        'Still reading the collection: answers may miss some items.',
      );
      t.match(
        await page.locator('#chat-sets .cc-answer').textContent(),
        /Cremona\.Still reading/,
        'in the live region after the answer: announced with it',
      );
      stillReading = false;
      await page.locator('#chat-sets .cc-input').fill('Who made the violin, again?');
      await page.locator('#chat-sets .cc-input').press('Enter');
      await page.locator('#chat-sets .cc-submit[aria-disabled="false"]').waitFor();
      await page.locator('#chat-sets .cc-answer:not(:empty)').waitFor();
      t.match(await page.locator('#chat-sets .cc-answer').textContent(), /Cremona/);
      t.equal(await page.locator('#chat-sets .cc-notice').count(), 0, 'an answer without still_reading has no notice');
    },
  );

  /** Asks in a panel and waits for the server's answer and for the panel to be ready again. */
  async function askIn(panel: string, question: string): Promise<number> {
    const answered = page.waitForResponse(
      (res) => res.url() === `${apiBase}/chatbot/api/chat` && res.request().method() === 'POST',
    );
    await page.locator(`#${panel} .cc-input`).fill(question);
    await page.locator(`#${panel} .cc-input`).press('Enter');
    const res = await answered;
    await page.locator(`#${panel} .cc-submit[aria-disabled="false"]`).waitFor();
    return res.status();
  }

  t.test("a refused request shows the server's message", async (t) => {
    t.equal(await askIn('chat-bad', 'Who made the violin?'), 400);
    t.match(
      await page.locator('#chat-bad .cc-error').textContent(),
      /site_id/,
      'data-site-id="abc" was sent as it is and refused',
    );
  });

  t.test('past the rate limit the panel says how long to wait', async (t) => {
    // Three questions are spent; the limit is 4, so the fifth POST is refused.
    t.equal(await askIn('chat-main', 'Who made the violin?'), 200);
    t.equal(await askIn('chat-main', 'Who made the violin, again?'), 429);
    const message = await page.locator('#chat-main .cc-error').textContent();
    t.match(message, /Too many questions.*try again in \d+ seconds\./, 'the wait comes from Retry-After');
    t.equal(await page.locator('#chat-main .cc-error').getAttribute('role'), 'alert');
    t.equal(await page.locator('#chat-main .cc-answer').textContent(), '', 'no stale answer stays beside the message');
  });

  t.test('with CHATBOT_ALLOWED_ORIGINS, a listed site gets answers and another site cannot read them', async (t) => {
    const restricted = await startServer({ DATA_DIR: t.testdir(), CHATBOT_ALLOWED_ORIGINS: hostOrigin });
    t.teardown(() => restricted.stop());
    restrictedBase = restricted.baseUrl;
    const ask = async (pageUrl: string) => {
      const tab = await browser.newPage();
      t.teardown(() => tab.close());
      await tab.goto(pageUrl);
      await tab.locator('#chat .cc-input').fill('Who made the violin?');
      await tab.locator('#chat .cc-input').press('Enter');
      await tab.locator('#chat .cc-answer p, #chat .cc-error:not(:empty)').first().waitFor({ timeout: 15_000 });
      return {
        answer: await tab.locator('#chat .cc-answer').textContent(),
        error: await tab.locator('#chat .cc-error').textContent(),
      };
    };
    const listed = await ask(`${hostOrigin}/restricted`);
    t.equal(listed.error, '', 'the listed origin reads the answer');
    t.not(listed.answer, '');
    // The same host page under another name is another origin.
    const other = await ask(`${hostOrigin.replace('127.0.0.1', 'localhost')}/restricted`);
    t.equal(other.error, 'The collection assistant could not be reached from this page.');
    t.equal(other.answer, '');
  });

  t.test('a picture of both panels for the reviewer (test-output/)', async () => {
    mkdirSync('test-output', { recursive: true });
    await page.locator('#chat-main').screenshot({ path: join('test-output', 'chat-panel-main.png') });
    await page.locator('#chat-sets').screenshot({ path: join('test-output', 'chat-panel-sets.png') });
  });
});
