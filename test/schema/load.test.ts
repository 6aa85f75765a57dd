import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatSpecError, loadSpecText } from '../../schema/src/load.ts';

const valid = `apiVersion: toolyard.dev/v1alpha1
kind: Agent
metadata:
  name: tiny
spec:
  backends:
    - name: claude
      type: claude
      image: { repository: ghcr.io/example/claude, tag: "1" }
      port: 8080
`;

function errorsOf(text: string): string[] {
  const result = loadSpecText(text, 'spec.yaml');
  assert.equal(result.ok, false, 'expected the spec to be rejected');
  return result.ok ? [] : result.errors.map(formatSpecError);
}

describe('loadSpecText', () => {
  it('accepts a valid YAML spec and locates its fields', () => {
    const result = loadSpecText(valid, 'spec.yaml');
    assert.ok(result.ok);
    assert.equal(result.specs[0]!.agent.metadata.name, 'tiny');
    assert.equal(result.specs[0]!.lineOf('/spec/backends/0/port'), 10);
    assert.equal(result.specs[0]!.lineOf('/spec/backends/0/missing'), 7);
  });

  it('accepts JSON, which is YAML', () => {
    const json = JSON.stringify({
      apiVersion: 'toolyard.dev/v1alpha1',
      kind: 'Agent',
      metadata: { name: 'tiny' },
      spec: {
        backends: [
          {
            name: 'c',
            type: 'custom',
            image: { repository: 'x', digest: `sha256:${'a'.repeat(64)}` },
            port: 1,
          },
        ],
      },
    });
    assert.ok(loadSpecText(json, 'spec.json').ok);
  });

  it('reports file:line: /json/path: message, with a hint', () => {
    assert.deepEqual(errorsOf(valid.replace('port: 8080', 'port: 99999')), [
      'spec.yaml:10: /spec/backends/0/port: must be <= 65535',
    ]);
    assert.deepEqual(errorsOf(valid.replace('type: claude', 'type: claud')), [
      'spec.yaml:8: /spec/backends/0/type: must be one of "claude", "openai", "gemini", "custom"\n  hint: got "claud"; did you mean "claude"?',
    ]);
    assert.deepEqual(
      errorsOf(valid.replace('  backends:', '  backend:')),
      [
        'spec.yaml:6: /spec/backend: unknown field "backend"\n  hint: did you mean "backends"?',
        'spec.yaml:5: /spec/backends: missing required field "backends"',
      ].sort((a, b) => Number(a.split(':')[1]) - Number(b.split(':')[1])),
    );
    assert.deepEqual(errorsOf(valid.replace(', tag: "1"', '')), [
      'spec.yaml:9: /spec/backends/0/image/tag: missing required field "tag"\n  hint: pin the image with "tag" or "digest"',
    ]);
    assert.deepEqual(errorsOf(valid.replace('name: tiny', 'name: Tiny')), [
      'spec.yaml:4: /metadata/name: "Tiny" is not a DNS-1035 label: it has upper-case letters (e.g. write "tiny")\n  hint: use lower-case letters, digits and "-", starting with a letter and ending with a letter or digit',
    ]);
  });

  it('reports every problem, not just the first', () => {
    const text = valid.replace('port: 8080', 'port: -1').replace('kind: Agent', 'kind: Pod');
    assert.deepEqual(errorsOf(text), [
      'spec.yaml:2: /kind: must be "Agent"\n  hint: got "Pod"; toolyard.dev/v1alpha1 has one kind, "Agent"',
      'spec.yaml:10: /spec/backends/0/port: must be >= 1',
    ]);
  });

  it('names the one gateway branch that applies', () => {
    const text = `${valid}  gateways:\n    - name: gh\n      url: https://gh.example/mcp\n      port: 8000\n`;
    assert.deepEqual(errorsOf(text), [
      'spec.yaml:14: /spec/gateways/0/port: unknown field "port"\n  hint: allowed in ExternalGateway: name, url, auth, egress, preApproved, toolTimeoutSeconds',
    ]);
  });

  it('reports YAML syntax errors and duplicate keys with their line', () => {
    assert.deepEqual(errorsOf(`${valid}  rbac: [unclosed\n`), [
      'spec.yaml:12: not YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
    const duplicate = errorsOf(valid.replace('kind: Agent', 'kind: Agent\nkind: Agent'));
    assert.equal(duplicate.length, 1);
    assert.match(duplicate[0]!, /^spec\.yaml:3: not YAML: Map keys must be unique/);
  });

  it('rejects an empty file', () => {
    assert.deepEqual(errorsOf('# nothing here\n'), [
      'spec.yaml: no YAML document in this file, only comments\n  hint: write an Agent spec (apiVersion: toolyard.dev/v1alpha1, kind: Agent)',
    ]);
  });

  it('loads every document of a multi-document file, and prefixes errors with the document', () => {
    const two = `${valid}---\n${valid.replace('name: tiny', 'name: other')}`;
    const result = loadSpecText(two, 'spec.yaml');
    assert.ok(result.ok);
    assert.deepEqual(
      result.specs.map((s) => s.agent.metadata.name),
      ['tiny', 'other'],
    );
    assert.equal(result.specs[1]!.lineOf('/metadata/name'), 15);
    assert.deepEqual(errorsOf(`${valid}---\n${valid.replace('port: 8080', 'port: 0')}`), [
      'spec.yaml:21: /spec/backends/0/port: [document 2] must be >= 1',
    ]);
  });
});

describe('hints', () => {
  it('suggest a field whose letters are swapped', () => {
    const result = loadSpecText(valid.replace('  backends:', '  bakcends:'), 'spec.yaml');
    assert.ok(!result.ok);
    assert.equal(result.errors.find((e) => e.path === '/spec/bakcends')?.hint, 'did you mean "backends"?');
  });

  it('say a gateway is either deployed or referenced', () => {
    const result = loadSpecText(`${valid}  gateways:\n    - name: gh\n`, 'spec.yaml');
    assert.ok(!result.ok);
    assert.deepEqual(
      result.errors.map((e) => [e.path, e.hint]),
      [
        [
          '/spec/gateways/0/image',
          'a gateway is either deployed (image and port) or an existing one referenced by url',
        ],
        ['/spec/gateways/0/port', undefined],
      ],
    );
  });
});
