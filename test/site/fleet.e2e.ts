/**
 * The fleet site (`toolyard site`) in Chromium, served as a static host would serve it: the catalog's search
 * and filters, the authority matrix, the egress graph's filters, every agent page's diagram, and axe-core on
 * each kind of page. Nothing may leave 127.0.0.1 and no page may log an error.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { siteCommand } from '../../cli/src/commands/site.ts';
import type { FleetData } from '../../cli/src/fleet/fleet-site/fleet-data.ts';
import { captureIo } from '../cli/capture-io.ts';
import { writeFleet } from '../support/fleet-fixture.ts';
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
const temp = mkdtempSync(join(tmpdir(), 'toolyard-fleet-site-'));
const out = join(temp, 'site');

describe('the fleet site in Chromium', { skip }, () => {
  let server: StaticServer;
  let context: BrowserContext;
  let guard: PageGuard;
  let data: FleetData;
  const axeSource = readFileSync(join(REPO, 'node_modules/axe-core/axe.min.js'), 'utf8');

  before(async () => {
    writeFleet(join(temp, 'fleet'), 25);
    const io = captureIo();
    assert.equal(await siteCommand([join(temp, 'fleet'), '-o', out], io), 0, io.stderrText());
    data = JSON.parse(readFileSync(join(out, 'fleet.json'), 'utf8')) as FleetData;
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
      (await operator.locator('td[data-gateway="kubernetes"]').textContent()) ?? '',
      /can call operator-kubernetes\s*read-only in agents, apps/,
    );
    assert.match(
      (await operator.locator('td[data-gateway="github"]').textContent()) ?? '',
      /external https:\/\/mcp\.github\.example\/mcp/,
    );
    const calls = await page.locator('#matrix td:has-text("can call")').count();
    assert.equal(calls, new Set(data.matrix.map((c) => `${c.agent}|${c.gateway}`)).size);
    await page.getByLabel('Search grants').fill('operator-helm');
    const grants = page.locator('#can-i tbody tr:visible');
    assert.equal(await grants.count(), 1);
    assert.match(
      (await grants.textContent()) ?? '',
      /get, list, watch, create, patch, update: configmaps \(core\)/,
    );
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

  test("an agent page draws the playground's pod diagram and links its downloads", async () => {
    const page = await context.newPage();
    await page.goto(`${server.origin}/agents/reviewer/`);
    assert.equal(await page.locator('svg.tyd g.tyd-pod-group').count(), 3);
    const yaml = await page.request.get(`${server.origin}/agents/reviewer/reviewer.k8s.yaml`);
    assert.equal(yaml.status(), 200);
    const chart = await page.request.get(
      await page.locator('a[href$=".tgz"]').evaluate((a) => (a as HTMLAnchorElement).href),
    );
    assert.equal(chart.status(), 200);
    await page.close();
  });

  for (const [name, path] of [
    ['catalog', '/'],
    ['authority', '/authority/'],
    ['egress', '/egress/'],
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
