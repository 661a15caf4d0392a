import { existsSync } from 'node:fs';
import t from 'tap';
import { chromium, type Browser } from 'playwright-core';
import { buildTestApp } from '../../helper.js';
import { freePort } from '../process.js';

const CHROMIUM = '/usr/bin/chromium';

// A browser starts slowly on a busy 2-core machine.
t.setTimeout(240_000);

const skip = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing: install the Debian chromium package (.ci/run does) to run the browser test`;

t.test('every operation opens in Swagger UI at /api/docs', { skip }, async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await buildTestApp(t, { config: { baseUrl: base } });
  await app.listen({ host: '127.0.0.1', port });
  const doc = (await (await fetch(`${base}/api/docs.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);

  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--no-first-run',
      '--disable-component-update',
    ],
  });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${base}/api/docs`);
  const blocks = page.locator('.opblock');
  await blocks.first().waitFor({ timeout: 30_000 });
  t.equal(await blocks.count(), operations, 'one block per operation of the document');

  // Each block is opened by a click in the page itself, and its body awaited there: one round
  // trip for all of them instead of four per operation (it was most of this test's minute and a half).
  // No function is named inside (tsx would wrap it in a helper the page does not have).
  const failed = await page.evaluate(async () => {
    const notOpened: string[] = [];
    for (const block of Array.from(document.querySelectorAll('.opblock'))) {
      const name = `${block.querySelector('.opblock-summary-method')?.textContent ?? '?'} ${block.querySelector('.opblock-summary-path')?.textContent ?? '?'}`;
      const control = block.querySelector<HTMLElement>('.opblock-summary-control');
      if (!control) {
        notOpened.push(name);
        continue;
      }
      control.click();
      const opened = await new Promise<boolean>((resolve) => {
        if (block.querySelector('.opblock-body')) return resolve(true);
        const observer = new MutationObserver(() => {
          if (!block.querySelector('.opblock-body')) return;
          clearTimeout(timer);
          observer.disconnect();
          resolve(true);
        });
        const timer = setTimeout(() => {
          observer.disconnect();
          resolve(false);
        }, 5_000);
        observer.observe(block, { childList: true, subtree: true });
      });
      if (!opened || !block.classList.contains('is-open')) notOpened.push(name);
      control.click();
    }
    return notOpened;
  });
  t.same(failed, [], 'each operation opens its own block');
  t.same(pageErrors, [], 'no script error on the page');
});
