/** Bounded concurrency with a bounded queue: a clear busy error beyond both. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Limiter } from '../../toolchain-server/src/limiter.ts';

describe('Limiter', () => {
  it('runs up to maxConcurrency, queues up to maxQueue, refuses beyond with TOOLYARD_BUSY', async () => {
    const limiter = new Limiter(2, 1);
    const a = await limiter.acquire();
    const b = await limiter.acquire();
    assert.equal(limiter.active, 2);
    let cGranted = false;
    const c = limiter.acquire().then((release) => {
      cGranted = true;
      return release;
    });
    assert.equal(limiter.queued, 1);
    await assert.rejects(limiter.acquire(), (error: { code?: string; message: string }) => {
      assert.equal(error.code, 'TOOLYARD_BUSY');
      assert.match(error.message, /2 slots .* queue of 1/);
      return true;
    });
    a();
    a(); // releasing twice must not free a second slot
    const releaseC = await c;
    assert.equal(cGranted, true);
    assert.equal(limiter.active, 2);
    assert.equal(limiter.queued, 0);
    b();
    releaseC();
    assert.equal(limiter.active, 0);
  });

  it('grants in FIFO order', async () => {
    const limiter = new Limiter(1, 3);
    const first = await limiter.acquire();
    const order: number[] = [];
    const waiters = [1, 2, 3].map((n) =>
      limiter.acquire().then((release) => {
        order.push(n);
        release();
      }),
    );
    first();
    await Promise.all(waiters);
    assert.deepEqual(order, [1, 2, 3]);
    assert.equal(limiter.active, 0);
  });

  it('removes a queued waiter whose signal aborts', async () => {
    const limiter = new Limiter(1, 1);
    const held = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    assert.equal(limiter.queued, 1);
    controller.abort(new Error('cancelled'));
    await assert.rejects(waiting, /cancelled/);
    assert.equal(limiter.queued, 0);
    held();
    assert.equal(limiter.active, 0);
  });

  it('with maxQueue 0 refuses as soon as all slots run', async () => {
    const limiter = new Limiter(1, 0);
    const held = await limiter.acquire();
    await assert.rejects(limiter.acquire(), { code: 'TOOLYARD_BUSY' });
    held();
  });
});
