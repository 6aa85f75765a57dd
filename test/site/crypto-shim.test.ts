/**
 * The browser build's SHA-1 (constructs' node addresses, which end up in selector labels) must equal
 * Node's, or the playground would render different bytes than `toolyard synth`.
 */
import assert from 'node:assert/strict';
import { createHash as nodeCreateHash } from 'node:crypto';
import { test } from 'node:test';
import { createHash } from '../../site/src/playground/shims/crypto.ts';

test('the SHA-1 shim matches node:crypto on boundary lengths and multi-part input', () => {
  const inputs = [
    '',
    'abc',
    'a'.repeat(55),
    'a'.repeat(56),
    'a'.repeat(64),
    'a'.repeat(1000),
    'Ünïcødé/路径\n',
  ];
  for (const input of inputs) {
    assert.equal(
      createHash('sha1').update(input).digest('hex'),
      nodeCreateHash('sha1').update(input).digest('hex'),
    );
  }
  const parts = ['reviewer', '\n', 'agent', '\n', 'Deployment'];
  const shim = createHash('sha1');
  const node = nodeCreateHash('sha1');
  for (const part of parts) {
    shim.update(part);
    node.update(part);
  }
  assert.equal(shim.digest('hex'), node.digest('hex'));
});

test('the shim refuses what it does not implement instead of returning a wrong hash', () => {
  assert.throws(() => createHash('sha256'), /not supported/);
  assert.throws(() => createHash('sha1').update('x').digest('base64'), /not supported/);
});
