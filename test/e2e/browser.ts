import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { runCli, startServer, type ServerProcess } from './process.js';
import type { TestContext } from '../helper.js';

/**
 * What the browser tests share: headless Chromium (launchChromium, skipWithoutChromium), and for
 * the IIIF viewers' tests (images/viewer.test.ts, iiif/mirador.test.ts) the real server on a
 * fixture, a host page on another origin, and their teardown (viewerBench).
 */

export const CHROMIUM = '/usr/bin/chromium';
/** The editor's API key of the viewers' fixtures. */
export const KEY = 'key_identity=editor-id&key_credential=editor-secret';

export type Rgb = [number, number, number];

/** tap's skip option: a reason when Chromium is not installed. */
export const skipWithoutChromium: string | false = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing: install the Debian chromium package (.ci/run does) to run the browser test`;

/** Debian's Chromium, headless, without the background traffic that would blur what a page asked for. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    timeout: 30_000,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Resolves once `check` answers true, checking every `every` ms; rejects after `timeoutMs`, naming `what`. */
export async function until(what: string, timeoutMs: number, check: () => boolean | Promise<boolean>, every = 100) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}

/** Each channel within `tolerance` of the expected colour, and opaque when there is an alpha. */
export function near(actual: number[], expected: Rgb, tolerance = 40): boolean {
  return (
    expected.every((channel, i) => Math.abs((actual[i] ?? -999) - channel) <= tolerance) && (actual[3] ?? 255) === 255
  );
}

/** POST /api/media as the editor, Omeka S's form; answers the new media's id. */
export async function upload(base: string, data: object, jpeg: Buffer, filename: string): Promise<number> {
  const form = new FormData();
  form.append('data', JSON.stringify(data));
  form.append('file[0]', new Blob([new Uint8Array(jpeg)], { type: 'image/jpeg' }), filename);
  const res = await fetch(`${base}/api/media?${KEY}`, {
    method: 'POST',
    body: form,
    signal: AbortSignal.timeout(15_000),
  });
  const body = await res.text();
  if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${body}`);
  return Number((JSON.parse(body) as Record<string, unknown>)['o:id']);
}

/** A page of the host server: its content type, and its body (or a body made from the request's URL). */
export type HostRoute = { type: string; body: string | Buffer | ((url: URL) => string) };

export interface ViewerBench {
  server: ServerProcess;
  /** Serves `routes` (by path) on 127.0.0.1 at a port of its own, another origin; answers that origin. */
  host(routes: Record<string, HostRoute>): Promise<string>;
  /** Headless Chromium with the flags these tests need. */
  browser(): Promise<Browser>;
}

/**
 * Imports `fixture` into a fresh DATA_DIR, starts the real server, and tears everything down at
 * the test's end (the browser, the server, given 10 s to stop before SIGKILL, the host page).
 */
export async function viewerBench(t: TestContext, fixture: object, prefix: string): Promise<ViewerBench> {
  const work = await mkdtemp(join(tmpdir(), prefix));
  let server: ServerProcess | null = null;
  let hostServer: Server | null = null;
  let launched: Browser | null = null;
  t.teardown(async () => {
    await launched?.close().catch(() => undefined);
    if (server) {
      const running = server;
      let timer: NodeJS.Timeout | undefined;
      const gone = await Promise.race([
        running.stop('SIGTERM').then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 10_000))),
      ]);
      clearTimeout(timer);
      if (!gone) await running.stop('SIGKILL');
    }
    if (hostServer) {
      const closing = hostServer;
      closing.closeAllConnections();
      await new Promise<void>((resolve) => closing.close(() => resolve()));
    }
    await rm(work, { recursive: true, force: true });
  });
  const dataDir = join(work, 'data');
  const fixtureFile = join(work, 'fixture.json');
  writeFileSync(fixtureFile, JSON.stringify(fixture));
  const imported = await runCli('import.ts', [fixtureFile], { DATA_DIR: dataDir });
  if (imported.code !== 0) throw new Error(`import exited ${imported.code}: ${imported.stderr}`);
  server = await startServer({ DATA_DIR: dataDir }, 60_000);
  return {
    server,
    async host(routes) {
      const page = createServer((req, res) => {
        const url = new URL(req.url ?? '/', 'http://host.invalid');
        const route = routes[url.pathname];
        if (route) {
          res.writeHead(200, { 'content-type': route.type });
          res.end(typeof route.body === 'function' ? route.body(url) : route.body);
        } else {
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('not found');
        }
      });
      hostServer = page;
      await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    },
    async browser() {
      launched = await launchChromium();
      return launched;
    },
  };
}
