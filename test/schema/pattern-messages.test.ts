/**
 * Every `pattern` of the Agent schema has words (schema/src/pattern-messages.ts): a value that fails one gets a
 * message and a hint, never the regular expression.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import agentSchema from '../../schema/agent.schema.json' with { type: 'json' };
import { describedPatterns, describePatternFailure } from '../../schema/src/pattern-messages.ts';
import { validateAgentDocument } from '../../schema/src/validator.ts';
import { REPO_ROOT } from '../support/golden.ts';

function patternsOf(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) patternsOf(item, out);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string') out.add(value);
      else patternsOf(value, out);
    }
  }
  return out;
}

describe('pattern messages', () => {
  it('cover every pattern of the schema', () => {
    const described = new Set(describedPatterns());
    const missing = [...patternsOf(agentSchema)].filter((pattern) => !described.has(pattern));
    assert.deepEqual(missing, []);
  });

  it('are portable: no lookaround or backreference, which RE2 (Helm, Go validators) cannot read', () => {
    const re2Unsafe = (pattern: string) => /\(\?[=!<]|\\[1-9]/.test(pattern);
    const charts = readdirSync(join(REPO_ROOT, 'charts')).map((chart) =>
      JSON.parse(readFileSync(join(REPO_ROOT, 'charts', chart, 'values.schema.json'), 'utf8')),
    );
    const unsafe = [
      ...patternsOf(agentSchema),
      ...charts.flatMap((schema) => [...patternsOf(schema)]),
    ].filter(re2Unsafe);
    assert.deepEqual(unsafe, []);
    // The control: a lookahead is caught.
    assert.equal(re2Unsafe('^(?!\\.)x$'), true);
  });

  it('an unknown pattern has none (the control: the coverage test can fail)', () => {
    assert.equal(describePatternFailure('^[x]+$', 'y'), undefined);
  });

  it('word a refusal with the value, what is wrong and what to do', () => {
    const spec = (name: string, labels: Record<string, string>) => ({
      apiVersion: 'toolyard.dev/v1alpha1',
      kind: 'Agent',
      metadata: { name, labels },
      spec: {
        backends: [{ name: 'c', type: 'claude', image: { repository: 'x', tag: '1' }, port: 8080 }],
        networkPolicy: { apiServerEgress: { cidrs: ['10.96.0.1'], ports: [443] } },
      },
    });
    const problems = validateAgentDocument(spec('2fast', { 'a/b/c': 'ok', team: 'x'.repeat(64) }));
    const byPath = new Map(problems.map((p) => [p.path, p]));
    assert.match(
      byPath.get('/metadata/name')!.message,
      /"2fast" is not a DNS-1035 label: it starts with "2"/,
    );
    assert.match(byPath.get('/metadata/labels/a~1b~1c')!.message, /more than one "\/"/);
    assert.match(byPath.get('/metadata/labels/team')!.message, /must be at most 63 characters/);
    const cidr = byPath.get('/spec/networkPolicy/apiServerEgress/cidrs/0')!;
    assert.match(cidr.message, /"10.96.0.1" has no prefix length/);
    assert.match(cidr.hint ?? '', /"10.96.0.1\/32"/);
    for (const problem of problems) assert.doesNotMatch(problem.message, /\^|does not match/);
  });
});
