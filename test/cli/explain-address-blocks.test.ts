/**
 * Issue 32's proof, read off `toolyard explain`: on every example and on generated specs whose pods hold
 * Kubernetes authority (rbac.preset, gateways with authority.kubernetes), no pod but the broker has an address
 * block wider than a control plane's (/24, IPv6 /64) unless the spec acknowledges it — and one it does not
 * acknowledge is a warning explain prints, which `validate --strict` fails on (the control: the same spec with the
 * acknowledgement removed).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { main } from '../../cli/src/main.ts';
import { widerThanControlPlane } from '../../constructs/src/api-server-egress.ts';
import type { ToolyardAgent } from '../../schema/src/types.generated.ts';
import { REPO_ROOT } from '../support/golden.ts';
import { generateSpec } from '../support/spec-generator.ts';
import { captureIo } from './capture-io.ts';

const EXAMPLES = ['cluster-operator', 'polyglot-reviewer', 'web-infra'].map((n) =>
  join(REPO_ROOT, 'examples', `${n}.yaml`),
);
const CIDR = /(?<![\w:.])(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7})\/\d{1,3}\b/gi;
const temp = mkdtempSync(join(tmpdir(), 'toolyard-blocks-'));
after(() => rmSync(temp, { recursive: true, force: true }));

async function run(...argv: string[]) {
  const io = captureIo();
  const code = await main(argv, io);
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

/** Wide blocks per pod from explain's effective egress (a broker's own internet rule excepted), and its warnings. */
function readExplain(text: string, agent: string) {
  const wide: string[] = [];
  let pod = '';
  let inEgress = false;
  for (const line of text.split('\n')) {
    const header = /^(?:Deployment|StatefulSet) (\S+) /.exec(line);
    if (header) [pod, inEgress] = [header[1]!, false];
    else if (line.startsWith('  effective egress')) inEgress = !line.includes('unrestricted');
    else if (!line.startsWith('    ')) inEgress = false;
    else if (inEgress && pod !== `${agent}-broker`)
      for (const cidr of line.split(' except ')[0]!.match(CIDR) ?? [])
        if (widerThanControlPlane(cidr)) wide.push(`${pod}: ${cidr}`);
  }
  const section = (title: string) => {
    const start = text.indexOf(title);
    if (start < 0) return '';
    const rest = text.slice(start + title.length);
    const next = rest.search(/\n(?:Warnings:|Acknowledged warnings)/);
    return next < 0 ? rest : rest.slice(0, next);
  };
  return { wide, warned: section('Warnings:'), acknowledged: section('Acknowledged warnings') };
}

/** The warnings that stand for wide blocks: API server, a gateway's own egress, the broker off (CIDR egress). */
const WIDE_PATHS =
  /\/spec\/networkPolicy\/apiServerEgress\/cidrs|\/spec\/gateways\/\d+\/egress\/cidrs|\/spec\/broker\/enabled/;

function withAuthority(count: number): ToolyardAgent[] {
  const specs: ToolyardAgent[] = [];
  for (let seed = 1; specs.length < count && seed < 20 * count; seed++) {
    const spec = generateSpec(seed);
    const gateways = spec.spec.gateways ?? [];
    const authority =
      (spec.spec.rbac?.preset ?? 'none') !== 'none' ||
      gateways.some((g) => 'authority' in g && g.authority?.kubernetes);
    if (authority && spec.spec.networkPolicy?.enabled !== false) specs.push(spec);
  }
  return specs;
}

describe('toolyard explain: address blocks of pods other than the broker', () => {
  it('every example: none wider than a control plane (or acknowledged), and validate --strict passes', async () => {
    for (const file of EXAMPLES) {
      const { code, stdout } = await run('explain', file);
      assert.equal(code, 0);
      const agent = /^Agent \S+\/(\S+)/.exec(stdout)![1]!;
      const { wide, acknowledged } = readExplain(stdout, agent);
      for (const block of wide) assert.match(acknowledged, WIDE_PATHS, `${file}: ${block} unacknowledged`);
      assert.equal((await run('validate', '--strict', file)).code, 0, file);
    }
  });

  it('generated specs with Kubernetes authority: every wide block is warned or acknowledged; --strict fails on a warned one', async () => {
    const specs = withAuthority(40);
    assert.ok(specs.length >= 30, `${specs.length} specs`);
    let wideSeen = 0;
    for (const [i, spec] of specs.entries()) {
      // Half of them ask for the old default: the whole internet on 443 and 6443.
      const internet = i % 2 === 0;
      const agent: ToolyardAgent = internet
        ? {
            ...spec,
            spec: {
              ...spec.spec,
              networkPolicy: {
                ...spec.spec.networkPolicy,
                apiServerEgress: { cidrs: ['0.0.0.0/0'], ports: [443, 6443] },
              },
            },
          }
        : spec;
      const file = join(temp, `spec-${i}.yaml`);
      writeFileSync(file, stringify(agent));
      const { code, stdout } = await run('explain', file);
      assert.equal(code, 0, stdout);
      const { wide, warned, acknowledged } = readExplain(stdout, agent.metadata.name);
      if (wide.length === 0) continue;
      wideSeen++;
      assert.match(`${warned}${acknowledged}`, WIDE_PATHS, `spec ${i}: ${wide.join(', ')} said nowhere`);
      if (internet) {
        assert.match(
          warned,
          /\/spec\/networkPolicy\/apiServerEgress\/cidrs: networkPolicy\.apiServerEgress allows 0\.0\.0\.0\/0/,
        );
        const strict = await run('validate', '--strict', file);
        assert.equal(strict.code, 1, `spec ${i}: --strict passed a warned 0.0.0.0/0`);
        // Acknowledged, the same block passes --strict (as far as this warning goes) and explain says why.
        const acked: ToolyardAgent = {
          ...agent,
          spec: {
            ...agent.spec,
            acknowledgedWarnings: [
              ...(agent.spec.acknowledgedWarnings ?? []),
              {
                warning: 'wide-api-server-egress',
                reason: 'a CNI that sees the API server only before DNAT',
              },
            ],
          },
        };
        writeFileSync(file, stringify(acked));
        const after = readExplain((await run('explain', file)).stdout, agent.metadata.name);
        assert.match(
          after.acknowledged,
          /apiServerEgress\/cidrs[^\n]*\n\s+reason: a CNI that sees the API server only before DNAT/,
        );
        assert.doesNotMatch(after.warned, /apiServerEgress/);
      }
    }
    assert.ok(
      wideSeen >= specs.length / 2,
      `only ${wideSeen} specs had a wide block: the test proves little`,
    );
  });
});
