/**
 * Bounded concurrency with a bounded FIFO queue. Beyond both bounds a call is refused at once with
 * TOOLYARD_BUSY instead of piling up memory or latency.
 */
import { ToolError } from './errors.ts';

interface Waiter {
  readonly grant: (release: () => void) => void;
  readonly fail: (error: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

export class Limiter {
  readonly maxConcurrency: number;
  readonly maxQueue: number;
  private running = 0;
  private readonly waiters: Waiter[] = [];

  constructor(maxConcurrency: number, maxQueue: number) {
    this.maxConcurrency = maxConcurrency;
    this.maxQueue = maxQueue;
  }

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiters.length;
  }

  /** Resolves with a release function once a slot is free; rejects with TOOLYARD_BUSY or the abort reason. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.running < this.maxConcurrency) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiters.length >= this.maxQueue) {
      return Promise.reject(
        new ToolError(
          'TOOLYARD_BUSY',
          `all ${this.maxConcurrency} slots are running and the queue of ${this.maxQueue} is full.`,
          { allowed: 'retry after the running calls finish' },
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: resolve,
        fail: reject,
        signal,
        onAbort: () => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          reject(signal?.reason);
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next) {
        next.signal?.removeEventListener('abort', next.onAbort);
        next.grant(this.releaser());
      } else {
        this.running--;
      }
    };
  }
}
