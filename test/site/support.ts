/**
 * Shared by the site's browser tests and bench/preview: a static server for site/dist on 127.0.0.1, and
 * Debian's Chromium driven by playwright-core with every non-localhost request refused and recorded.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const SITE_DIST = join(REPO, 'site/dist');
export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
export const RESULTS = join(REPO, 'test-results');

/** Why the browser tests cannot run here, or undefined when they can. In CI they must run: never skip. */
export function browserSkipReason(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  if (process.env['CI']) return undefined;
  return `${CHROMIUM} is absent (apt-get install chromium); the site's browser tests are skipped outside CI`;
}

/** Builds the site once when no build is there (`npm run test:site` builds it before the tests). */
export async function ensureSiteBuilt(): Promise<void> {
  if (existsSync(join(SITE_DIST, 'index.html')) && existsSync(join(SITE_DIST, 'playground/playground.js')))
    return;
  execFileSync('npm', ['run', 'site:build'], { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] });
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
  '.tgz': 'application/gzip',
  '.wasm': 'application/wasm',
  '.webmanifest': 'application/manifest+json',
};

export interface StaticServer {
  readonly origin: string;
  close(): Promise<void>;
}

/** Serves a directory like a static host: `/x/` → `/x/index.html`, 404 otherwise. */
export async function serveStatic(root: string = SITE_DIST): Promise<StaticServer> {
  const base = resolve(root);
  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    let path = normalize(join(base, decodeURIComponent(url.pathname)));
    if (!path.startsWith(base)) {
      response.writeHead(403).end();
      return;
    }
    try {
      if ((await stat(path)).isDirectory()) path = join(path, 'index.html');
      const body = await readFile(path);
      response.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      const notFound = await readFile(join(base, '404.html')).catch(() => Buffer.from('not found'));
      response.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end(notFound);
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

export async function launchChromium(userDataDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
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
    viewport: { width: 1400, height: 1000 },
    acceptDownloads: true,
  });
}

export type { Browser, BrowserContext, Page };

/** What a page did that it should not: console errors, page errors and requests off this machine. */
export interface PageGuard {
  readonly consoleErrors: string[];
  readonly offHostRequests: string[];
}

function isLocal(url: string): boolean {
  if (url.startsWith('data:') || url.startsWith('blob:') || url.startsWith('about:')) return true;
  try {
    const { hostname } = new URL(url);
    return hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]';
  } catch {
    return false;
  }
}

/** Refuses every request that would leave localhost (and records it), and records console errors. */
export async function guardContext(context: BrowserContext): Promise<PageGuard> {
  const guard: PageGuard = { consoleErrors: [], offHostRequests: [] };
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (isLocal(url)) return route.continue();
    guard.offHostRequests.push(url);
    return route.abort('blockedbyclient');
  });
  const watch = (page: Page) => {
    page.on('console', (message) => {
      if (message.type() === 'error') guard.consoleErrors.push(`${page.url()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => guard.consoleErrors.push(`${page.url()}: ${error.message}`));
  };
  context.pages().forEach(watch);
  context.on('page', watch);
  return guard;
}

/** axe-core's serious and critical violations on the page (axe must already be injected). */
export async function seriousViolations(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: unknown[] }> } })
      .axe;
    const result = await axe.run(document);
    return (
      result.violations as { id: string; impact: string; help: string; nodes: { target: string[] }[] }[]
    )
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `${v.id} (${v.impact}): ${v.help} — ${v.nodes
            .map((n) => n.target.join(' '))
            .slice(0, 5)
            .join(', ')}`,
      );
  });
}
