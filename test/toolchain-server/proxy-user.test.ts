import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseProxyUser, tracedProxyUser } from '../../toolchain-server/kit/proxy-user.ts';
import { parseTraceparent } from '../../toolchain-server/kit/trace-context.ts';

const CONTEXT = parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');

describe('the proxy user: the caller, and the trace context of a traced call', () => {
  it('carries the context after a ~ and reads it back', () => {
    assert.ok(CONTEXT);
    const user = tracedProxyUser('toolchain-node', CONTEXT);
    assert.equal(user, 'toolchain-node~00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    // Unreserved URL characters only: every tool puts it in Proxy-Authorization as written.
    assert.equal(encodeURIComponent(user), user);
    assert.deepEqual(parseProxyUser(user), { caller: 'toolchain-node', parent: CONTEXT });
  });

  it('reads a plain caller name as that name, with no context', () => {
    assert.deepEqual(parseProxyUser('toolchain-node'), { caller: 'toolchain-node' });
  });

  it('drops an invalid context (the span starts a trace of its own), keeping the caller to check', () => {
    assert.deepEqual(parseProxyUser('toolchain-node~not-a-traceparent'), { caller: 'toolchain-node' });
    assert.deepEqual(parseProxyUser(`toolchain-node~00-${'0'.repeat(32)}-00f067aa0ba902b7-01`), {
      caller: 'toolchain-node',
    });
    assert.deepEqual(parseProxyUser('~00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01').caller, '');
  });
});
