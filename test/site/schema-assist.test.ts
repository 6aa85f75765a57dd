/** Completion, hover and the cursor's place in a half-typed spec, as the playground's editor uses them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hoverDoc, suggestions } from '../../site/src/playground/schema-assist.ts';
import { yamlContext } from '../../site/src/playground/yaml-context.ts';

const spec = `apiVersion: toolyard.dev/v1alpha1
kind: Agent
metadata:
  name: reviewer
spec:
  backends:
    - name: claude
      type: cl
      image: { repository: ghcr.io/x, ta }
    - name: openai
      po
  toolchains:
    - name: rust
      tools:
        presets: [cargo, g]
        mo
  gateways:
    - name: gh
      url: https://mcp.example
      `;
const at = (needle: string) => spec.indexOf(needle) + needle.length;
const labels = (offset: number, explicit = false) =>
  suggestions(spec, offset, explicit)?.options.map((o) => o.label);

describe('yamlContext', () => {
  it('finds the mapping, key or value under the cursor from indentation, list markers and flow collections', () => {
    assert.deepEqual(yamlContext(spec, at('type: cl')), {
      path: ['spec', 'backends', '0'],
      kind: 'value',
      key: 'type',
      from: at('type: '),
      prefix: 'cl',
    });
    assert.deepEqual(yamlContext(spec, at('      po')).path, ['spec', 'backends', '1']);
    assert.equal(yamlContext(spec, at('      po')).kind, 'key');
    const flow = yamlContext(spec, at('ghcr.io/x, ta'));
    assert.deepEqual(
      [flow.path, flow.kind, flow.prefix, flow.siblings],
      [['spec', 'backends', '0', 'image'], 'key', 'ta', ['repository']],
    );
    const item = yamlContext(spec, at('[cargo, g'));
    assert.deepEqual(
      [item.path, item.kind, item.prefix],
      [['spec', 'toolchains', '0', 'tools', 'presets'], 'item', 'g'],
    );
    assert.deepEqual(yamlContext(spec, spec.length).path, ['spec', 'gateways', '0']);
  });
});

describe('suggestions', () => {
  it('offer enum values, the fields of a mapping not yet set, and list items', () => {
    assert.deepEqual(labels(at('type: cl')), ['claude', 'openai', 'gemini', 'custom']);
    assert.deepEqual(labels(at('ghcr.io/x, ta')), ['tag', 'digest', 'pullPolicy']);
    assert.deepEqual(labels(at('        mo')), ['mode', 'allowedCommands', 'codeMode']);
    assert.deepEqual(labels(at('[cargo, g')), ['go', 'python', 'cargo', 'node', 'terraform', 'helm']);
    assert.ok(labels(at('      po'))!.includes('port'));
  });

  it('offer only the fields of the form a gateway has chosen (url: an existing gateway)', () => {
    const external = labels(spec.length, true)!;
    for (const field of ['auth', 'egress']) assert.ok(external.includes(field), field);
    // Neither the fields already set nor those of a deployed gateway.
    for (const field of ['name', 'url', 'image', 'port', 'authority', 'replicas'])
      assert.ok(!external.includes(field), field);
    const undecided = spec.replace('      url: https://mcp.example\n', '');
    const options = suggestions(undecided, undecided.length, true)!.options.map((o) => o.label);
    for (const field of ['url', 'image', 'port', 'authority']) assert.ok(options.includes(field), field);
  });

  it('stay quiet on an empty key position until asked', () => {
    assert.equal(suggestions(spec, spec.length, false), undefined);
  });
});

describe('hoverDoc', () => {
  it('describes the field under the cursor from the schema', () => {
    const doc = hoverDoc(spec, spec.indexOf('presets') + 2)!;
    assert.equal(doc.field, 'spec.toolchains[0].tools.presets');
    assert.equal(doc.type, 'list');
    assert.match(doc.description ?? '', /Structured tool sets/);
    assert.equal(doc.default, '[]');
    assert.equal(hoverDoc(spec, spec.indexOf('claude')), undefined, 'a value is not a field');
  });
});
