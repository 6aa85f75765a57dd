/**
 * `toolyard site` over a fleet (every example and generated specs): every page is there and every link
 * resolves; each agent's manifests are `toolyard synth`'s bytes and its chart is `toolyard chart --package`'s;
 * and the authority matrix, the ServiceAccount grants and the egress graph that the site publishes equal what
 * this test computes from the rendered objects alone — Roles and RoleBindings, and the NetworkPolicies read by
 * the evaluator with Kubernetes' semantics (test/support/network-policy.ts).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { chartCommand } from '../../cli/src/commands/chart.ts';
import { siteCommand } from '../../cli/src/commands/site.ts';
import type { FleetData } from '../../cli/src/fleet/fleet-site/fleet-data.ts';
import { readSpecs } from '../../cli/src/read-specs.ts';
import { type KubeObject, renderAgent, toYamlDocuments } from '../../constructs/src/render.ts';
import { writeFleet } from '../support/fleet-fixture.ts';
import { REPO_ROOT } from '../support/golden.ts';
import { allowed, egressDestinations, type PodEndpoint } from '../support/network-policy.ts';
import { podSpecsOf } from '../support/pod-security.ts';
import { captureIo } from './capture-io.ts';

const GENERATED = 40;
const temp = mkdtempSync(join(tmpdir(), 'toolyard-site-'));
const fleet = join(temp, 'fleet');
const out = join(temp, 'site');
after(() => rmSync(temp, { recursive: true, force: true }));

interface Agent {
  readonly name: string;
  readonly namespace: string;
  readonly objects: readonly KubeObject[];
}
let agents: Agent[] = [];
let data: FleetData;
let count = 0;

before(async () => {
  count = writeFleet(fleet, GENERATED);
  const io = captureIo();
  const code = await siteCommand([fleet, '-o', out, '--title', 'Test fleet'], io);
  assert.equal(code, 0, io.stderrText());
  const { specs, errors } = await readSpecs([fleet]);
  assert.deepEqual(errors, []);
  agents = specs.map((s) => ({
    name: s.agent.metadata.name,
    namespace: s.agent.metadata.namespace ?? 'default',
    objects: renderAgent(s.agent).objects,
  }));
  data = JSON.parse(readFileSync(join(out, 'fleet.json'), 'utf8')) as FleetData;
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(out, join(e.parentPath, e.name)));
}

type Json = Record<string, unknown>;
const labelsOf = (template: ReturnType<typeof podSpecsOf>[number]) =>
  (template.podMetadata?.['labels'] ?? {}) as Record<string, string>;

/** Every pod of an agent: its workload name, endpoint and the ports its containers listen on. */
function podsOf(agent: Agent) {
  return agent.objects.flatMap((o) =>
    podSpecsOf(o).map((t) => ({
      name: o.metadata.name,
      component: labelsOf(t)['app.kubernetes.io/component'] ?? '',
      endpoint: { namespace: agent.namespace, labels: labelsOf(t) } satisfies PodEndpoint,
      ports: ((t.podSpec['containers'] ?? []) as Json[]).flatMap((c) =>
        ((c['ports'] ?? []) as Json[]).map((p) => Number(p['containerPort'])),
      ),
    })),
  );
}

describe('toolyard site over a fleet', () => {
  it('writes every page: catalog, authority, egress, a page, manifests and a chart per agent, schema, index', () => {
    const files = new Set(filesUnder(out));
    for (const page of ['index.html', 'authority/index.html', 'egress/index.html', 'fleet.json'])
      assert.ok(files.has(page), page);
    assert.equal(data.agents.length, count);
    for (const a of agents) {
      assert.ok(files.has(`agents/${a.name}/index.html`), a.name);
      assert.ok(files.has(`agents/${a.name}/${a.name}.k8s.yaml`), a.name);
      assert.ok(files.has(`charts/${a.name}-0.1.0.tgz`), a.name);
    }
    assert.deepEqual(
      JSON.parse(readFileSync(join(out, 'schema/v1alpha1/agent.json'), 'utf8')),
      JSON.parse(readFileSync(join(REPO_ROOT, 'schema/agent.schema.json'), 'utf8')),
    );
  });

  it('every link and asset of every page resolves inside the site; every agent page is linked from the catalog and the matrix', () => {
    const problems: string[] = [];
    const linked = new Map<string, Set<string>>();
    for (const file of filesUnder(out).filter((f) => f.endsWith('.html'))) {
      const htmlText = readFileSync(join(out, file), 'utf8');
      for (const [, url] of htmlText.matchAll(/(?:href|src)="([^"]*)"/g)) {
        if (url!.startsWith('#')) {
          if (!htmlText.includes(` id="${url!.slice(1)}"`))
            problems.push(`${file}: no element has the id of ${url}`);
          continue;
        }
        if (/^[a-z]+:/.test(url!) || url!.startsWith('/')) {
          problems.push(`${file}: absolute link ${url}`);
          continue;
        }
        const target = join(dirname(join(out, file)), url!.replace(/[?#].*$/, '').replace(/&amp;/g, '&'));
        const resolved =
          existsSync(target) && statSync(target).isDirectory() ? join(target, 'index.html') : target;
        if (!resolved.startsWith(out) || !existsSync(resolved))
          problems.push(`${file}: ${url} does not resolve`);
        const set = linked.get(file) ?? new Set<string>();
        set.add(relative(out, resolved));
        linked.set(file, set);
      }
    }
    assert.deepEqual(problems.slice(0, 10), [], `${problems.length} broken link(s)`);
    for (const page of ['index.html', 'authority/index.html'])
      for (const a of agents)
        assert.ok(linked.get(page)?.has(`agents/${a.name}/index.html`), `${page} → ${a.name}`);
    for (const a of agents) {
      const own = linked.get(`agents/${a.name}/index.html`)!;
      assert.ok(
        own.has(`agents/${a.name}/${a.name}.k8s.yaml`) && own.has(`charts/${a.name}-0.1.0.tgz`),
        a.name,
      );
    }
  });

  it("each agent's manifests are toolyard synth's bytes; the charts and index are toolyard chart --package's", async () => {
    for (const a of agents)
      assert.equal(
        readFileSync(join(out, `agents/${a.name}/${a.name}.k8s.yaml`), 'utf8'),
        toYamlDocuments(a.objects),
      );
    const charts = join(temp, 'charts');
    const io = captureIo();
    assert.equal(await chartCommand([fleet, '-o', charts, '--package'], io), 0, io.stderrText());
    for (const a of agents) {
      const file = `${a.name}-0.1.0.tgz`;
      assert.ok(readFileSync(join(out, 'charts', file)).equals(readFileSync(join(charts, file))), file);
    }
    assert.equal(
      readFileSync(join(out, 'charts/index.yaml'), 'utf8'),
      readFileSync(join(charts, 'index.yaml'), 'utf8'),
    );
    const index = parse(readFileSync(join(out, 'charts/index.yaml'), 'utf8')) as {
      entries: Record<string, { digest: string; urls: string[] }[]>;
    };
    for (const [name, [entry]] of Object.entries(index.entries)) {
      const archive = readFileSync(join(out, 'charts', entry!.urls[0]!));
      assert.equal(createHash('sha256').update(archive).digest('hex'), entry!.digest, name);
    }
  });

  it("the matrix: which agent can call which deployed gateway, by the whole fleet's NetworkPolicies", () => {
    const everything = agents.flatMap((a) => a.objects);
    const gateways = agents.flatMap((a) =>
      podsOf(a)
        .filter((p) => p.component.startsWith('gateway-'))
        .map((p) => ({ agent: a.name, gateway: p.component.slice('gateway-'.length), pod: p })),
    );
    assert.ok(gateways.length >= 5, 'the fleet has deployed gateways');
    const expected = new Set<string>();
    for (const a of agents) {
      const agentPod = podsOf(a).find((p) => p.component === 'agent')!;
      // Its broker calls its own gateways for it (the broker holds their tokens); it routes nowhere else.
      const brokerPod = podsOf(a).find((p) => p.component === 'broker');
      for (const g of gateways) {
        const viaBroker =
          g.agent === a.name &&
          brokerPod !== undefined &&
          allowed(everything, brokerPod.endpoint, g.pod.endpoint, g.pod.ports[0]!);
        if (viaBroker || allowed(everything, agentPod.endpoint, g.pod.endpoint, g.pod.ports[0]!))
          expected.add(`${a.name} → ${g.agent}/${g.gateway}`);
      }
    }
    const published = new Set(
      data.matrix.filter((c) => c.kind === 'deployed').map((c) => `${c.agent} → ${c.owner}/${c.gateway}`),
    );
    assert.deepEqual([...published].sort(), [...expected].sort());
    assert.ok(
      data.matrix.some((c) => c.owner !== c.agent),
      'the fixture has a gateway that admits anyone (an agent with NetworkPolicies disabled)',
    );
    // External gateways: the URL is one the agent's backends are configured to call.
    for (const cell of data.matrix.filter((c) => c.kind === 'external')) {
      const agent = agents.find((a) => a.name === cell.agent)!;
      const configs = agent.objects
        .filter((o) => o.kind === 'ConfigMap')
        .map((o) => JSON.stringify(o['data']));
      assert.ok(
        configs.some((c) => c.includes(cell.url)),
        `${cell.agent}: ${cell.url}`,
      );
    }
  });

  it('the grants: per ServiceAccount and namespace, exactly what the rendered Roles and RoleBindings give', () => {
    const fromObjects = new Set<string>();
    for (const a of agents) {
      const roles = new Map(
        a.objects
          .filter((o) => o.kind === 'Role')
          .map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o]),
      );
      for (const binding of a.objects.filter((o) => o.kind === 'RoleBinding')) {
        const ref = binding['roleRef'] as Json;
        assert.equal(ref['kind'], 'Role', 'toolyard binds Roles only');
        const role = roles.get(`${binding.metadata.namespace}/${String(ref['name'])}`)!;
        for (const subject of binding['subjects'] as Json[]) {
          for (const rule of role['rules'] as Json[])
            for (const group of rule['apiGroups'] as string[])
              for (const resource of rule['resources'] as string[])
                for (const verb of rule['verbs'] as string[])
                  fromObjects.add(
                    `${String(subject['namespace'])}/${String(subject['name'])} in ${binding.metadata.namespace}: ${verb} ${resource}${group === '' ? '' : `.${group}`}`,
                  );
        }
      }
    }
    const agentNamespace = new Map(agents.map((a) => [a.name, a.namespace]));
    const published = new Set(
      data.authority.flatMap((g) =>
        g.can.map((can) => `${agentNamespace.get(g.agent)}/${g.serviceAccount} in ${g.namespace}: ${can}`),
      ),
    );
    assert.ok(published.size > 0);
    assert.deepEqual([...published].sort(), [...fromObjects].sort());
  });

  it("the egress graph: every pod's (peer, port) pairs equal what its rendered NetworkPolicies allow", () => {
    const published = new Map<string, string[]>();
    for (const e of data.egress) {
      const key = `${e.namespace}/${e.pod}`;
      published.set(key, [...(published.get(key) ?? []), ...e.ports.map((p) => `${e.peer} ${p}`)]);
    }
    let pods = 0;
    for (const a of agents) {
      for (const pod of podsOf(a)) {
        pods++;
        const actual = egressDestinations(a.objects, pod.endpoint);
        const key = `${a.namespace}/${pod.name}`;
        assert.deepEqual([...(published.get(key) ?? [])].sort(), actual.destinations, key);
      }
    }
    assert.equal(new Set(data.egress.map((e) => `${e.namespace}/${e.pod}`)).size <= pods, true);
    // The graph draws every edge the data has.
    const page = readFileSync(join(out, 'egress/index.html'), 'utf8');
    assert.equal(page.match(/<path class="edge/g)?.length, data.egress.length);
  });

  it('names specs by relative paths only: no page, data file or manifest carries the build machine’s path', () => {
    assert.ok(fleet.startsWith('/'), 'the fleet is outside the working directory, by an absolute path');
    for (const file of filesUnder(out).filter((f) => /\.(html|json|yaml)$/.test(f))) {
      const text = readFileSync(join(out, file), 'utf8');
      assert.ok(!text.includes(temp), `${file} names ${temp}`);
    }
    assert.deepEqual(
      data.agents.filter((a) => a.name === 'reviewer').map((a) => a.file),
      ['fleet/examples/polyglot-reviewer.yaml'],
    );
  });

  it('every page links the favicon, and /favicon.ico is a real icon', () => {
    for (const file of filesUnder(out).filter((f) => f.endsWith('.html')))
      assert.match(
        readFileSync(join(out, file), 'utf8'),
        /<link rel="icon" href="(\.\.\/)*(\.\/)?favicon\.svg"/,
        file,
      );
    const ico = readFileSync(join(out, 'favicon.ico'));
    assert.deepEqual([...ico.subarray(0, 6)], [0, 0, 1, 0, 1, 0], 'ICO header: one icon');
    assert.equal(ico.readUInt32LE(18), 22, 'the image follows the directory');
    assert.equal(ico.length, 22 + ico.readUInt32LE(14));
    assert.match(readFileSync(join(out, 'favicon.svg'), 'utf8'), /^<svg /);
  });

  it('the first screen answers what the fleet can reach and who holds credentials and authority', () => {
    const page = readFileSync(join(out, 'index.html'), 'utf8');
    const cards = page.slice(page.indexOf('<div class="cards">'), page.indexOf('id="agents-heading"'));
    const outside = new Set(
      data.egress.filter((e) => !e.peer.startsWith('pods ')).map((e) => `${e.peer} ${e.ports}`),
    );
    assert.match(cards, new RegExp(`${outside.size} destinations? <span>outside the cluster`));
    const open = data.egress.filter((e) => e.peer === '*').length;
    assert.match(cards, new RegExp(`${open} pods? may reach anything`));
    const accounts = new Set(data.authority.map((a) => `${a.agent}/${a.serviceAccount}`)).size;
    assert.match(cards, new RegExp(`${accounts} ServiceAccounts? <span>with Kubernetes API access`));
    assert.match(cards, /\d+ containers? <span>in \d+ agents? read \d+ secrets?/);
    assert.match(cards, new RegExp(`${count} agents <span>in`));
  });

  it('the catalog lists every agent with what the filters match; bad input writes nothing', async () => {
    const page = readFileSync(join(out, 'index.html'), 'utf8');
    assert.equal(page.match(/<tr data-item/g)?.length, count);
    assert.match(page, /<input type="search" data-filter="search"/);
    const empty = join(temp, 'not-written');
    const io = captureIo();
    const code = await siteCommand(
      [join(REPO_ROOT, 'test/invalid-specs/port-out-of-range.yaml'), '-o', empty],
      io,
    );
    assert.equal(code, 1);
    assert.equal(existsSync(empty), false);
  });

  it('stages agents as they are built and leaves nothing behind when a later spec is invalid', async () => {
    const target = join(temp, 'half-built');
    const code = await siteCommand(
      [
        join(REPO_ROOT, 'examples/polyglot-reviewer.yaml'),
        join(REPO_ROOT, 'test/invalid-specs/port-out-of-range.yaml'),
        '-o',
        target,
        '--jobs',
        '1',
      ],
      captureIo(),
    );
    assert.equal(code, 1);
    assert.equal(existsSync(target), false);
    assert.deepEqual(
      readdirSync(temp).filter((name) => name.startsWith('half-built')),
      [],
      'the staging directory is removed',
    );
    // The control: the valid spec alone builds, and leaves no staging directory either.
    assert.equal(
      await siteCommand([join(REPO_ROOT, 'examples/polyglot-reviewer.yaml'), '-o', target], captureIo()),
      0,
    );
    assert.deepEqual(
      readdirSync(temp).filter((name) => name.startsWith('half-built')),
      ['half-built'],
    );
    assert.ok(existsSync(join(target, 'agents')));
    assert.deepEqual(
      readdirSync(target).filter((name) => name.includes('staging')),
      [],
      'no staging directory left in the output',
    );
  });

  it('on worker threads (--jobs 3) writes the same bytes as one thread, and reads problems the same', async () => {
    const onWorkers = join(temp, 'site-on-workers');
    const io = captureIo();
    assert.equal(await siteCommand([fleet, '-o', onWorkers, '--title', 'Test fleet', '--jobs', '3'], io), 0);
    const files = filesUnder(out).sort();
    assert.deepEqual(
      readdirSync(onWorkers, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => relative(onWorkers, join(e.parentPath, e.name)))
        .sort(),
      files,
    );
    for (const file of files)
      assert.ok(readFileSync(join(onWorkers, file)).equals(readFileSync(join(out, file))), file);
    // Problems in every slice, and a name used in two slices (in one thread, in one slice).
    const invalid = ['port-out-of-range', 'bad-yaml', 'reserved-env'].map((name) =>
      join(REPO_ROOT, 'test/invalid-specs', `${name}.yaml`),
    );
    const web = join(REPO_ROOT, 'examples/web-infra.yaml');
    const specs = [...invalid, web, join(fleet, 'examples', 'web-infra.yaml')];
    const problems = async (jobs: string) => {
      const bad = captureIo();
      const code = await siteCommand([...specs, '-o', join(temp, `bad-${jobs}`), '--jobs', jobs], bad);
      return { code, err: bad.stderrText() };
    };
    const one = await problems('1');
    assert.equal(one.code, 1);
    assert.match(one.err, /^5 errors; nothing was written\.$/m);
    assert.match(
      one.err,
      /agent "web-infra" is also defined in .*\n {2}hint: agent names must be unique across the specs of one site: /,
    );
    assert.deepEqual(await problems('3'), one);
  });
});
