import { existsSync } from 'node:fs';
import t from 'tap';
import { chromium, type Browser } from 'playwright-core';
import { buildTestApp } from '../../helper.js';
import { freePort } from '../process.js';

const CHROMIUM = '/usr/bin/chromium';

// A browser starts slowly on a busy 2-core machine.
t.setTimeout(240_000);

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing: install the Debian chromium package (.ci/run does) to run the browser test`;

t.test('every operation opens in Swagger UI at /api/docs', { skip }, async (t) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { app } = await buildTestApp(t, { config: { baseUrl: base } });
  await app.listen({ host: '127.0.0.1', port });
  const doc = (await (await fetch(`${base}/api/docs.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);

  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-component-update'],
  });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${base}/api/docs`);
  const blocks = page.locator('.opblock');
  await blocks.first().waitFor({ timeout: 30_000 });
  t.equal(await blocks.count(), operations, 'one block per operation of the document');

  const failed: string[] = [];
  for (let i = 0; i < operations; i++) {
    const block = blocks.nth(i);
    const name = (await block.locator('.opblock-summary-method').innerText()) + ' ' + (await block.locator('.opblock-summary-path').innerText());
    await block.locator('.opblock-summary-control').click();
    try {
      await block.locator('.opblock-body').waitFor({ timeout: 5_000 });
      if (!(await block.evaluate((el) => el.classList.contains('is-open')))) failed.push(name);
    } catch {
      failed.push(name);
    }
    await block.locator('.opblock-summary-control').click();
  }
  t.same(failed, [], 'each operation opens its own block');
  t.same(pageErrors, [], 'no script error on the page');
});
