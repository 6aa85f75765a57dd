/**
 * The chart's `broker.egress` schema accepts exactly the hosts and ecosystems the spec accepts: the hosts
 * pattern against the spec's own check (`hostPatternProblem` plus the port rule of `broker.egressPorts`) over
 * thousands of generated host strings, and the ecosystems enum against the ecosystem table.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  brokerEgressValues,
  ECOSYSTEMS_SCHEMA,
  egressHostsSchema,
} from '../../chart-generator/src/broker-config-template.ts';
import { isGroup, type ValueNode } from '../../chart-generator/src/values-model.ts';
import { hostPatternProblem } from '../../constructs/src/broker-checks.ts';
import { splitHostPort } from '../../constructs/src/broker-plan.ts';
import { ECOSYSTEM_NAMES } from '../../constructs/src/ecosystems.ts';
import { examples } from './support.ts';

const LABELS = ['a', 'a-b', '-a', 'b-', '0a', 'A', '*', 'xn--p', '1', '', 'com'];
const PORTS = ['', ':443', ':8443', ':22', ':0', ':99999', ':443x', ':'];

function* hostStrings(): Generator<string> {
  const names: string[] = [];
  for (const a of LABELS) {
    names.push(a);
    for (const b of LABELS) {
      names.push(`${a}.${b}`);
      for (const c of LABELS) names.push(`${a}.${b}.${c}`);
    }
  }
  for (const name of names) for (const port of PORTS) yield `${name}${port}`;
  yield* ['10.0.0.1', '10.0.0.1:443', '[::1]', '[::1]:443', '::1', '*.*', '*', 'api.*.example.com', 'a..b'];
}

function specAccepts(text: string, egressPorts: readonly number[]): boolean {
  if (hostPatternProblem(text) !== undefined) return false;
  const { port } = splitHostPort(text);
  return port === undefined || egressPorts.includes(port);
}

describe('broker.egress schema = the spec checks', () => {
  for (const ports of [[443], [443, 8443]]) {
    it(`hosts with egressPorts [${ports.join(', ')}]: the pattern accepts what the spec accepts`, () => {
      const schema = egressHostsSchema(ports) as { items: { pattern: string } };
      const pattern = new RegExp(schema.items.pattern, 'u');
      let accepted = 0;
      let total = 0;
      for (const text of hostStrings()) {
        total++;
        const expected = specAccepts(text, ports);
        assert.equal(
          pattern.test(text),
          expected,
          `"${text}": the spec ${expected ? 'accepts' : 'refuses'} it`,
        );
        if (expected) accepted++;
      }
      // The controls: the corpus has both kinds, in numbers.
      assert.ok(accepted > 100 && total - accepted > 1000, `${accepted} of ${total} accepted`);
    });
  }

  it('ecosystems: exactly the table', () => {
    assert.deepEqual((ECOSYSTEMS_SCHEMA as { items: { enum: string[] } }).items.enum, ECOSYSTEM_NAMES);
  });

  it('defaults: each caller with egress by name, with the lists its spec declares; no other container', () => {
    const byFile = new Map(examples().map((e) => [e.file.replace(/^.*\//, ''), e]));
    const keys = (node: ValueNode | undefined) =>
      node && isGroup(node)
        ? Object.fromEntries(
            node.children.map((c) => [
              c.key,
              isGroup(c)
                ? Object.fromEntries(c.children.map((l) => [l.key, 'default' in l ? l.default : undefined]))
                : {},
            ]),
          )
        : undefined;
    assert.deepEqual(keys(brokerEgressValues(byFile.get('web-infra.yaml')!.rendered.plan)), {
      claude: { hosts: ['api.github.com'], ecosystems: [] },
      toolchainNode: { hosts: [], ecosystems: ['npm'] },
      toolchainTerraform: { hosts: [], ecosystems: ['terraform'] },
    });
    // polyglot-reviewer: rust has egress none and the backends none: only go-python is a value.
    assert.deepEqual(keys(brokerEgressValues(byFile.get('polyglot-reviewer.yaml')!.rendered.plan)), {
      toolchainGoPython: { hosts: [], ecosystems: ['go', 'pypi'] },
    });
  });
});
