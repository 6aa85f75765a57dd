/**
 * The fleet site (`toolyard site`) in Chromium, served as a static host would serve it: the catalog's search
 * and filters, the authority matrix, the egress graph's filters, the caches page's claims and search, every
 * agent page's diagram, and axe-core on each kind of page. Nothing may leave 127.0.0.1 and no page may log an error.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { siteCommand } from '../../cli/src/commands/site.ts';
import { type FleetCacheUse, fleetCacheUses, sharedClaims } from '../../cli/src/fleet/fleet-caches.ts';
import type { FleetData } from '../../cli/src/fleet/fleet-site/fleet-data.ts';
import { readSpecs } from '../../cli/src/read-specs.ts';
import { renderAgent } from '../../constructs/src/render.ts';
import { captureIo } from '../cli/capture-io.ts';
import { SHARED_CACHE_CLAIM, writeFleet } from '../support/fleet-fixture.ts';
import { narrowLayoutProblems } from './narrow-layout.ts';
import {
  type BrowserContext,
  browserSkipReason,
  guardContext,
  launchChromium,
  type PageGuard,
  REPO,
  RESULTS,
  type StaticServer,
  seriousViolations,
  serveStatic,
} from './support.ts';

const skip = browserSkipReason();
const SCREENSHOTS = join(RESULTS, 'screenshots');
const temp = mkdtempSync(join(tmpdir(), 'toolyard-fleet-site-'));
const out = join(temp, 'site');

describe('the fleet site in Chromium', { skip }, () => {
  let server: StaticServer;
  let context: BrowserContext;
  let guard: PageGuard;
  let data: FleetData;
  /** Every toolchain's use of a cache, from the fleet's specs (fleet.json does not carry them). */
  let cacheUses: FleetCacheUse[];
  const axeSource = readFileSync(join(REPO, 'node_modules/axe-core/axe.min.js'), 'utf8');

  before(async () => {
    writeFleet(join(temp, 'fleet'), 25);
    const io = captureIo();
    assert.equal(await siteCommand([join(temp, 'fleet'), '-o', out], io), 0, io.stderrText());
    data = JSON.parse(readFileSync(join(out, 'fleet.json'), 'utf8')) as FleetData;
    const { specs, errors } = await readSpecs([join(temp, 'fleet')]);
    assert.deepEqual(errors, []);
    cacheUses = specs.flatMap((s) => fleetCacheUses(renderAgent(s.agent).plan));
    mkdirSync(SCREENSHOTS, { recursive: true });
    server = await serveStatic(out);
    context = await launchChromium(mkdtempSync(join(tmpdir(), 'toolyard-chromium-')));
    guard = await guardContext(context);
  });

  after(async () => {
    await context?.close();
    await server?.close();
    rmSync(temp, { recursive: true, force: true });
    assert.deepEqual(guard?.offHostRequests ?? [], []);
    assert.deepEqual(guard?.consoleErrors ?? [], []);
  });

  test('catalog: search, namespace and warning filters narrow the rows and say how many are shown', async () => {
    const page = await context.newPage();
    await page.goto(`${server.origin}/`);
    const rows = page.locator('#catalog tbody tr');
    const visible = page.locator('#catalog tbody tr:visible');
    assert.equal(await rows.count(), data.agents.length);
    assert.equal(await visible.count(), data.agents.length);
    await page.getByLabel('Search').fill('operator');
    assert.deepEqual(await visible.locator('td:first-child a').allTextContents(), ['operator']);
    await page.getByLabel('Search').fill('');
    const namespace = data.agents.find((a) => a.namespace !== 'agents')!.namespace;
    await page.getByLabel('Namespace').selectOption(namespace);
    const expected = data.agents
      .filter((a) => a.namespace === namespace)
      .map((a) => a.name)
      .sort();
    assert.deepEqual((await visible.locator('td:first-child a').allTextContents()).sort(), expected);
    assert.equal(
      await page.locator('[data-count]').textContent(),
      `${expected.length} of ${data.agents.length} agents`,
    );
    await page.getByLabel('Namespace').selectOption('');
    // A facet link searches the catalog by its value.
    await page.locator('.facets a', { hasText: 'ghcr.io/example/claude-backend:1.2.3' }).first().click();
    await page.waitForURL(/\?q=/);
    const names = await visible.locator('td:first-child a').allTextContents();
    assert.ok(
      names.includes('reviewer') && names.includes('web-infra') && !names.includes('operator'),
      names.join(),
    );
    await page.screenshot({ path: join(RESULTS, 'fleet-catalog.png'), fullPage: false });
    await page.close();
  });

  test('authority matrix: one row per agent, a cell per gateway it can call, grants per ServiceAccount', async () => {
    const page = await context.newPage();
    await page.goto(`${server.origin}/authority/`);
    assert.equal(await page.locator('#matrix tbody tr').count(), data.agents.length);
    const operator = page.locator('#matrix tbody tr', { hasText: 'agents/operator' });
    assert.match(
      (await operator.locator('[data-gateway="kubernetes"]').textContent()) ?? '',
      /can call operator-kubernetes\s*read-only in agents, apps/,
    );
    assert.match(
      (await operator.locator('[data-gateway="github"]').textContent()) ?? '',
      // An external gateway is called through the agent's broker route (the broker holds its token).
      /external http:\/\/operator-broker\.agents\.svc:8480\/gateway-github/,
    );
    // An agent's own gateways in its row; the gateways of others that admit anyone in a shared list it links.
    const own = await page.locator('#matrix [data-gateway]:has-text("can call")').count();
    const crossing = await page
      .locator('#matrix [data-crossing]')
      .evaluateAll((items) => items.reduce((n, i) => n + Number(i.getAttribute('data-crossing')), 0));
    assert.equal(own, data.matrix.filter((c) => c.owner === c.agent).length);
    assert.equal(crossing, data.matrix.filter((c) => c.owner !== c.agent).length);
    const link = page.locator('#matrix [data-crossing] a').first();
    const list = page.locator(`section${(await link.getAttribute('href'))!}`);
    assert.equal(
      await list.locator('a[href^="#og-"]').count(),
      Number(await page.locator('#matrix [data-crossing]').first().getAttribute('data-crossing')),
    );
    await page.getByLabel('Search grants').fill('operator-helm');
    const grants = page.locator('#can-i tbody tr:visible');
    assert.equal(await grants.count(), 1);
    // The row links its rule set, shown once below the table.
    const ruleSet = page.locator(
      `section${(await grants.locator('a[href^="#rules-"]').getAttribute('href'))!}`,
    );
    assert.match(
      (await ruleSet.textContent()) ?? '',
      /get, list, watch, create, patch, update: configmaps \(core\)/,
    );
    // The search reads a row's rule set too: a verb on a resource finds the ServiceAccounts that have it.
    await page.getByLabel('Search grants').fill('delete: jobs (batch)');
    assert.ok((await grants.count()) > 0);
    for (const href of await grants
      .locator('a[href^="#rules-"]')
      .evaluateAll((links) => links.map((l) => l.getAttribute('href'))))
      assert.match((await page.locator(`section${href}`).textContent()) ?? '', /delete: jobs \(batch\)/);
    await page.screenshot({ path: join(RESULTS, 'fleet-authority.png') });
    await page.close();
  });

  test('egress graph: filtering by agent keeps its edges and the nodes they join, hides the rest', async () => {
    const page = await context.newPage();
    await page.goto(`${server.origin}/egress/`);
    const edges = page.locator('svg.fleet-graph path.edge');
    assert.equal(await edges.count(), data.egress.length);
    await page.locator('select[data-filter="agent"]').selectOption('reviewer');
    const mine = data.egress.filter((e) => e.agent === 'reviewer');
    assert.equal(await page.locator('svg.fleet-graph path.edge:not([hidden])').count(), mine.length);
    const pods = new Set(mine.map((e) => `pod:${e.namespace}/${e.pod}`));
    const shownPods = await page
      .locator('svg.fleet-graph g.node:not(.peer):not([hidden])')
      .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-node')));
    assert.deepEqual(shownPods.sort(), [...pods].sort());
    assert.equal(
      await page.locator('svg.fleet-graph g.peer:not([hidden])').count(),
      new Set(mine.map((e) => e.peer)).size,
    );
    await page.locator('select[data-filter="agent"]').selectOption('');
    await page.getByLabel('Destination or pod').fill('kube-dns');
    const dns = data.egress.filter((e) => (data.peers[e.peer] ?? '').includes('kube-dns'));
    assert.equal(await page.locator('svg.fleet-graph path.edge:not([hidden])').count(), dns.length);
    await page.screenshot({ path: join(RESULTS, 'fleet-egress.png') });
    await page.close();
  });

  test('egress by host: a host, a way of reaching and where keys are held each narrow the rows', async () => {
    const page = await context.newPage();
    await page.goto(`${server.origin}/hosts/`);
    const hosts = page.locator('#hosts tbody tr');
    const visible = page.locator('#hosts tbody tr:visible');
    const all = await hosts.count();
    assert.ok(all > 5);
    // The search reads the row's containers too (by reference): web-infra's node toolchain reaches npm's registry.
    await page.getByLabel('Search').first().fill('registry.npmjs.org');
    assert.ok((await visible.count()) >= 1);
    for (const text of await visible.allTextContents()) assert.match(text, /registry\.npmjs\.org/);
    assert.match((await visible.first().textContent()) ?? '', /web-infra/);
    await page.getByLabel('Search').first().fill('');
    await page.locator('select[data-filter="way"]').selectOption('model-route');
    const routes = await visible.allTextContents();
    assert.ok(routes.length > 0 && routes.length < all);
    for (const text of routes) assert.match(text, /model route/);
    assert.equal(await page.locator('[data-count="rows"]').textContent(), `${routes.length} of ${all} rows`);
    // Credential holders: "also by other containers" leaves the agents without a broker (or with tokens outside).
    const holders = page.locator('#credential-holders tbody tr:visible');
    const before = await holders.count();
    await page.locator('select[data-filter="held"]').selectOption('containers');
    const outside = await holders.count();
    assert.ok(outside < before);
    // Each row left names a holder other than the broker, marked.
    for (const row of await holders.all()) assert.ok((await row.locator('td span.warn').count()) > 0);
    await page.screenshot({ path: join(RESULTS, 'fleet-hosts.png') });
    await page.close();
  });

  test('caches: every existing claim the fleet mounts with who writes and who reads it; the search narrows the claims; agent links resolve', async () => {
    const page = await context.newPage();
    const missing: string[] = [];
    page.on('response', (response) => {
      if (response.status() >= 400) missing.push(`${response.status()} ${response.url()}`);
    });
    await page.goto(`${server.origin}/caches/`);
    const text = (s: string | null) => (s ?? '').replace(/\s+/g, ' ').trim();
    const claimOf = (u: FleetCacheUse) => `${u.namespace}/${u.claim}`;
    const onClaims = cacheUses.filter((u) => u.claim !== undefined);
    const claims = [...new Set(onClaims.map(claimOf))].sort();
    const rows = page.locator('#cache-claims tbody tr');
    const visible = page.locator('#cache-claims tbody tr:visible');
    assert.deepEqual(await rows.locator('th code').allTextContents(), claims);
    // Each claim names the agents that mount it, each with its toolchain, once per use.
    for (const row of await rows.all()) {
      const claim = (await row.locator('th code').textContent())!;
      const uses = onClaims.filter((u) => claimOf(u) === claim);
      assert.deepEqual(
        (await row.locator('ul.calls li').allTextContents()).map((li) => text(li).split(':')[0]),
        uses.map((u) => `${u.agent}/${u.toolchain}`),
        claim,
      );
      const agents = new Set(uses.map((u) => u.agent)).size;
      assert.match(
        text(await row.locator('td > div').first().textContent()),
        agents > 1 ? new RegExp(`shared by ${agents} agents`) : /\b1 agent\b/,
        claim,
      );
    }
    // The fixture's shared claim: one agent writes it (its fetch calls only), another reads it.
    const shared = sharedClaims(cacheUses);
    assert.deepEqual(
      shared.map((c) => `${c.namespace}/${c.claim} ${c.agents.join(' ')}`),
      [`agents/${SHARED_CACHE_CLAIM} reviewer web-infra`],
    );
    const sharedRow = rows.filter({ has: page.getByText(`agents/${SHARED_CACHE_CLAIM}`, { exact: true }) });
    assert.match(text(await sharedRow.textContent()), /shared by 2 agents \(declared ReadWriteMany\)/);
    assert.deepEqual((await sharedRow.locator('ul.calls li').allTextContents()).map(text), [
      'reviewer/go-python: writes (fetch calls only) gomod (go, download)',
      'web-infra/node: reads gomod (go, download)',
    ]);
    // The search narrows the claims by agent, and by claim name; the count says how many are shown.
    const count = page.locator('[data-count="claims"]');
    assert.equal(await count.textContent(), `${claims.length} of ${claims.length} claims`);
    const search = page.getByLabel('Search claims');
    await search.fill('web-infra');
    assert.deepEqual(await visible.locator('th code').allTextContents(), [`agents/${SHARED_CACHE_CLAIM}`]);
    assert.equal(await count.textContent(), `1 of ${claims.length} claims`);
    const namespace = claims[0]!.split('/')[0]!;
    await search.fill(`${namespace}/`);
    const inNamespace = claims.filter((c) => c.startsWith(`${namespace}/`));
    assert.ok(inNamespace.length < claims.length);
    assert.deepEqual(await visible.locator('th code').allTextContents(), inNamespace);
    assert.equal(await count.textContent(), `${inNamespace.length} of ${claims.length} claims`);
    await search.fill('no such claim');
    assert.equal(await visible.count(), 0);
    assert.equal(await count.textContent(), `0 of ${claims.length} claims`);
    await search.fill('');
    assert.equal(await visible.count(), claims.length);
    assert.equal(await count.textContent(), `${claims.length} of ${claims.length} claims`);
    // The agents' own caches: one row per agent with a cache on no existing claim.
    const own = data.agents
      .filter((a) => cacheUses.some((u) => u.agent === a.name && u.claim === undefined))
      .map((a) => `${a.namespace}/${a.name}`);
    assert.deepEqual(await page.locator('#own-caches tbody th a').allTextContents(), own);
    // Every agent link opens that agent's page.
    const pages = new Set(data.agents.map((a) => `/${a.page}`));
    const hrefs = await page
      .locator('main a[href*="agents/"]')
      .evaluateAll((links) => [
        ...new Set(links.map((l) => new URL((l as HTMLAnchorElement).href).pathname)),
      ]);
    assert.ok(hrefs.length > 2);
    for (const href of hrefs) {
      assert.ok(pages.has(href), `${href} is no agent's page`);
      assert.equal((await page.request.get(`${server.origin}${href}`)).status(), 200, href);
    }
    await sharedRow.getByRole('link', { name: 'web-infra' }).click();
    await page.waitForURL(/\/agents\/web-infra\/$/);
    assert.match((await page.locator('h1').textContent()) ?? '', /web-infra/);
    assert.deepEqual(missing, []);
    await page.screenshot({ path: join(RESULTS, 'fleet-caches.png') });
    await page.close();
  });

  test("caches on a phone: a card's title (its claim, or its agent) spans the card: one line, not a narrow column", async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.origin}/caches/`);
    const broken = await page
      .locator('#cache-claims tbody th code, #own-caches tbody th a')
      .evaluateAll((names) =>
        names.flatMap((n) => {
          // The line boxes of its text (the element itself may be a block: one rectangle however many lines).
          const range = document.createRange();
          range.selectNodeContents(n);
          const lines = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size;
          return lines > 1 ? [n.textContent ?? ''] : [];
        }),
      );
    assert.deepEqual(broken, [], 'names split over lines');
    await page.close();
  });

  test('390 px: the agent page, the catalog and the hosts page — nothing wider than the viewport, no table cell narrower than its longest word', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    // The examples and a generated agent (long generated names), the catalog and the hosts page.
    const generated = data.agents.find((a) => a.name.startsWith('gen-'))!.name;
    for (const path of ['/agents/reviewer/', '/agents/operator/', `/agents/${generated}/`, '/', '/hosts/']) {
      await page.goto(`${server.origin}${path}`);
      const problems = await narrowLayoutProblems(page);
      assert.deepEqual(problems.wide, [], `${path}: elements wider than the viewport`);
      assert.deepEqual(problems.brokenWords, [], `${path}: words broken or squeezed`);
      await page.screenshot({
        path: join(SCREENSHOTS, `fleet-390-${path.replaceAll('/', '_')}.png`),
        fullPage: true,
      });
    }
    // The control: the stylesheet as it was (cells broke words anywhere, the Role column was a letter wide).
    await page.goto(`${server.origin}/agents/reviewer/`);
    await page.addStyleTag({
      content:
        '.ty-table{display:table!important}.ty-table tr{display:table-row!important}.ty-table td{display:table-cell!important;overflow-wrap:anywhere}.w,.ty-table td code{white-space:normal!important}',
    });
    const before = await narrowLayoutProblems(page);
    assert.ok(
      before.brokenWords.some((w) => /^"backend" .*\(Role\)/.test(w)),
      `the old layout breaks the Role column: ${before.brokenWords.slice(0, 5).join('; ')}`,
    );
    await page.close();
  });

  test('390 px: the pod diagram at its natural size, in a region that scrolls sideways and shows its full height', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.origin}/agents/reviewer/`);
    const region = page.locator('.diagram').first();
    const sizes = await region.evaluate((element) => {
      const svg = element.querySelector('svg.tyd')!;
      const box = svg.getBoundingClientRect();
      return {
        drawn: { width: box.width, height: box.height },
        natural: { width: Number(svg.getAttribute('width')), height: Number(svg.getAttribute('height')) },
        region: {
          right: element.getBoundingClientRect().right,
          clientHeight: element.clientHeight,
          scrollWidth: element.scrollWidth,
          clientWidth: element.clientWidth,
        },
        viewport: document.documentElement.clientWidth,
      };
    });
    assert.deepEqual(sizes.drawn, sizes.natural, 'drawn at the size it was made for, not shrunk');
    assert.ok(sizes.region.right <= sizes.viewport + 0.5, 'the region fits the viewport');
    assert.ok(sizes.region.scrollWidth > sizes.region.clientWidth, 'wider than a phone: it scrolls sideways');
    assert.ok(
      sizes.region.clientHeight >= sizes.natural.height,
      'its full height shows: no vertical clipping',
    );
    await page.close();
  });

  test("an agent page draws the playground's pod diagram and links its downloads", async () => {
    const page = await context.newPage();
    await page.goto(`${server.origin}/agents/reviewer/`);
    // The agent pod, the two toolchain pods and the broker.
    assert.equal(await page.locator('svg.tyd g.tyd-pod-group').count(), 4);
    const yaml = await page.request.get(`${server.origin}/agents/reviewer/reviewer.k8s.yaml`);
    assert.equal(yaml.status(), 200);
    const chart = await page.request.get(
      await page.locator('a[href$=".tgz"]').evaluate((a) => (a as HTMLAnchorElement).href),
    );
    assert.equal(chart.status(), 200);
    await page.close();
  });

  test('search finds what a row shows ("egress none"), keeps the query in ?q= and restores it on load', async () => {
    const page = await context.newPage();
    await page.goto(`${server.origin}/`);
    await page.getByLabel('Search').fill('egress none');
    await page.waitForURL(/\?q=egress(\+|%20)none$/);
    const texts = async (selector: string) =>
      page
        .locator(selector)
        .evaluateAll((rows) => rows.map((r) => (r.textContent ?? '').replace(/\s+/g, ' ').toLowerCase()));
    const shown = await texts('#catalog tbody tr:not([hidden])');
    const hidden = await texts('#catalog tbody tr[hidden]');
    assert.ok(shown.length > 0, 'no row found');
    for (const text of shown) assert.match(text, /egress none/);
    for (const text of hidden) assert.doesNotMatch(text, /egress none/);
    await page.reload();
    assert.equal(await page.getByLabel('Search').inputValue(), 'egress none');
    assert.equal(await page.locator('#catalog tbody tr:not([hidden])').count(), shown.length);
    assert.equal(
      await page.locator('[data-count]').first().textContent(),
      `${shown.length} of ${data.agents.length} agents`,
    );
    await page.getByLabel('Search').fill('');
    await page.waitForURL((url) => url.search === '');
    await page.close();
  });

  test('filtering the egress graph lays it out again: no gaps between the nodes left, a shorter graph', async () => {
    const page = await context.newPage();
    await page.goto(`${server.origin}/egress/`);
    const svg = page.locator('svg.fleet-graph');
    const before = Number(await svg.getAttribute('height'));
    await page.locator('select[data-filter="agent"]').selectOption('reviewer');
    const rows = await page
      .locator('svg.fleet-graph g.node:not([hidden])')
      .evaluateAll((nodes) =>
        nodes.map((n) => ({ peer: n.classList.contains('peer'), top: n.getBoundingClientRect().top })),
      );
    for (const column of [false, true]) {
      const tops = rows.filter((r) => r.peer === column).map((r) => r.top);
      assert.ok(tops.length > 0);
      for (let i = 1; i < tops.length; i++)
        assert.ok(
          Math.abs(tops[i]! - tops[i - 1]! - 22) < 1,
          `a gap between rows ${i - 1} and ${i}: ${tops.join(', ')}`,
        );
    }
    assert.ok(Number(await svg.getAttribute('height')) < before, 'the graph did not get shorter');
    // Every edge left still joins its two nodes.
    const joined = await page.locator('svg.fleet-graph path.edge:not([hidden])').evaluateAll((edges) =>
      edges.every((edge) => {
        const [from, to] = (edge.getAttribute('data-ends') ?? '').split(' ');
        const a = document.querySelector(`[data-node="${from}"] rect`)!.getBoundingClientRect();
        const b = document.querySelector(`[data-node="${to}"] rect`)!.getBoundingClientRect();
        const path = edge.getBoundingClientRect();
        return (
          Math.abs(path.top - Math.min(a.top, b.top) - 7) < 4 &&
          Math.abs(path.bottom - Math.max(a.bottom, b.bottom) + 7) < 4
        );
      }),
    );
    assert.ok(joined, 'an edge no longer joins its nodes');
    await page.close();
  });

  test('the theme toggle switches light and dark and is kept across pages', async () => {
    const page = await context.newPage();
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${server.origin}/`);
    const toggle = page.locator('[data-theme-toggle]');
    assert.equal(await toggle.textContent(), 'Theme: auto');
    await toggle.click();
    await toggle.click();
    assert.equal(await toggle.textContent(), 'Theme: dark');
    await page.goto(`${server.origin}/authority/`);
    assert.equal(await page.locator('html').getAttribute('data-theme'), 'dark');
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(background, 'rgb(23, 24, 28)');
    await page.locator('[data-theme-toggle]').click();
    assert.equal(await page.locator('html').getAttribute('data-theme'), null, 'back to auto');
    await page.close();
  });

  for (const [width, height] of [
    [390, 844],
    [768, 1024],
    [1440, 900],
  ] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      test(`${width}×${height} ${scheme}: every page readable — column names never narrower than their longest word, no sideways scroll, axe clean, no 404`, async () => {
        const page = await context.newPage();
        const missing: string[] = [];
        page.on('response', (response) => {
          if (response.status() >= 400) missing.push(`${response.status()} ${response.url()}`);
        });
        await page.setViewportSize({ width, height });
        await page.emulateMedia({ colorScheme: scheme });
        for (const [name, path] of [
          ['catalog', '/'],
          ['authority', '/authority/'],
          ['egress', '/egress/'],
          ['hosts', '/hosts/'],
          ['caches', '/caches/'],
          ['agent', '/agents/reviewer/'],
        ] as const) {
          await page.goto(`${server.origin}${path}`);
          assert.equal(
            await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth),
            false,
            `${path} scrolls sideways`,
          );
          // A column's name (a header, or the label of a cell when rows are cards) holds its longest word.
          const narrow = await page.evaluate(() => {
            const canvas = document.createElement('canvas').getContext('2d')!;
            const names = Array.from(document.querySelectorAll<HTMLElement>('thead th, .cell-label')).filter(
              // A header row kept only for screen readers (rows shown as cards) is 1 px wide: not read by eye.
              (e) =>
                e.checkVisibility() &&
                e.getBoundingClientRect().width > 2 &&
                (e.closest('thead')?.getBoundingClientRect().width ?? 3) > 2,
            );
            return names.flatMap((e) => {
              const style = getComputedStyle(e);
              canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
              const longest = Math.max(
                ...(e.textContent ?? '').split(/\s+/).map((w: string) => canvas.measureText(w).width),
              );
              const room =
                e.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
              // The line boxes of its text: more lines than words means a word was split.
              const range = document.createRange();
              range.selectNodeContents(e);
              const lines = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size;
              const words = (e.textContent ?? '').trim().split(/\s+/).length;
              return room + 0.5 < longest || lines > words ? [`${e.textContent} (${room} < ${longest})`] : [];
            });
          });
          assert.deepEqual(narrow, [], `${path}: column names narrower than a word`);
          const layout = await narrowLayoutProblems(page);
          assert.deepEqual(layout.wide, [], `${path}: elements wider than the viewport`);
          assert.deepEqual(layout.brokenWords, [], `${path}: table cells narrower than a word`);
          if (name === 'catalog' || width === 1440) {
            await page.addScriptTag({ content: axeSource });
            assert.deepEqual(await seriousViolations(page), [], `${path} ${scheme}`);
          }
          await page.screenshot({ path: join(SCREENSHOTS, `fleet-${name}-${width}-${scheme}.png`) });
        }
        assert.deepEqual(missing, []);
        await page.close();
      });
    }
  }

  for (const [name, path] of [
    ['catalog', '/'],
    ['authority', '/authority/'],
    ['egress', '/egress/'],
    ['egress by host', '/hosts/'],
    ['caches', '/caches/'],
    ['agent page', '/agents/operator/'],
  ] as const) {
    test(`axe: the ${name} (${path}) has no serious or critical violations`, async () => {
      const page = await context.newPage();
      await page.goto(`${server.origin}${path}`);
      await page.addScriptTag({ content: axeSource });
      const violations = await seriousViolations(page);
      await page.close();
      assert.deepEqual(violations, []);
    });
  }
});
