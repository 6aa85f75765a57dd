/**
 * A cache of one label-selected collection, kept current by list-then-watch (re-listing after a `410 Gone` or a
 * failed stream), with waits on an object's state. The manager reads quotas, sessions and readiness from these
 * caches, so a call costs no list request, and a claim's readiness is seen the moment its watch event arrives.
 */
import { type KubeClient, KubeError, type KubeObject } from './kube-client.ts';

type Listener = () => void;

export class Informer<T extends KubeObject> {
  private readonly objects = new Map<string, T>();
  /** Names whose last watch event was a deletion (a re-list may briefly miss an object just created). */
  private readonly gone = new Set<string>();
  private readonly listeners = new Set<Listener>();
  private readonly abort = new AbortController();
  private synced: Promise<void>;
  private markSynced: () => void = () => {};
  private resourceVersion = '';
  private stopped = false;

  private readonly client: KubeClient;
  private readonly collection: string;
  private readonly labelSelector: string;
  private readonly onError: (error: Error) => void;

  constructor(
    client: KubeClient,
    collection: string,
    labelSelector: string,
    onError: (error: Error) => void = () => {},
  ) {
    this.client = client;
    this.collection = collection;
    this.labelSelector = labelSelector;
    this.onError = onError;
    this.synced = new Promise((resolve) => {
      this.markSynced = resolve;
    });
  }

  /** Starts listing and watching; resolves once the first list is in the cache. */
  start(): Promise<void> {
    void this.run();
    return this.synced;
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }

  list(): T[] {
    return [...this.objects.values()];
  }

  get(name: string): T | undefined {
    return this.objects.get(name);
  }

  /** Whether the object's last event was its deletion. */
  deleted(name: string): boolean {
    return this.gone.has(name);
  }

  /** Calls `listener` after every change of the cache; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Puts an object the manager just wrote into the cache (its watch event may come later). */
  remember(object: T): void {
    const known = this.objects.get(object.metadata.name);
    if (known && Number(known.metadata.resourceVersion) > Number(object.metadata.resourceVersion)) return;
    this.gone.delete(object.metadata.name);
    this.objects.set(object.metadata.name, object);
    this.notify();
  }

  /** Resolves with the object once `check` holds for it (or for its absence), or rejects after `timeoutMs`. */
  waitFor<R>(
    name: string,
    check: (object: T | undefined) => R | undefined,
    timeoutMs: number,
    what: string,
  ): Promise<R> {
    return waitOn([this], () => check(this.objects.get(name)), timeoutMs, what);
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  private apply(type: string, object: T): void {
    if (type === 'BOOKMARK') {
      this.resourceVersion = object.metadata.resourceVersion ?? this.resourceVersion;
      return;
    }
    this.resourceVersion = object.metadata.resourceVersion ?? this.resourceVersion;
    if (type === 'DELETED') {
      this.objects.delete(object.metadata.name);
      this.gone.add(object.metadata.name);
    } else {
      this.objects.set(object.metadata.name, object);
      this.gone.delete(object.metadata.name);
    }
    this.notify();
  }

  private async relist(): Promise<void> {
    const { items, resourceVersion } = await this.client.list<T>(this.collection, this.labelSelector);
    this.objects.clear();
    for (const item of items) this.objects.set(item.metadata.name, item);
    this.resourceVersion = resourceVersion;
    this.notify();
  }

  private async run(): Promise<void> {
    let backoffMs = 200;
    let listed = false;
    while (!this.stopped) {
      try {
        if (!listed) {
          await this.relist();
          listed = true;
          this.markSynced();
        }
        await this.client.watch<T>(
          this.collection,
          this.labelSelector,
          this.resourceVersion,
          (event) => this.apply(event.type, event.object),
          this.abort.signal,
        );
        backoffMs = 200;
      } catch (error) {
        if (this.stopped) return;
        if (error instanceof KubeError && error.status === 410) listed = false;
        else {
          this.onError(error as Error);
          listed = false;
          await new Promise((resolve) => setTimeout(resolve, backoffMs));
          backoffMs = Math.min(backoffMs * 2, 5000);
        }
      }
    }
  }
}

/**
 * Resolves with `check()`'s first value other than undefined, tested now and after every change of any of the
 * caches; rejects when `check` throws or after `timeoutMs`. Its listeners are removed either way, and a throwing
 * check never reaches whoever changed the cache.
 */
export function waitOn<R>(
  informers: readonly { subscribe(listener: () => void): () => void }[],
  check: () => R | undefined,
  timeoutMs: number,
  what: string,
): Promise<R> {
  return new Promise((resolve, reject) => {
    let done = false;
    const unsubscribe: Array<() => void> = [];
    const finish = () => {
      done = true;
      clearTimeout(timer);
      for (const off of unsubscribe) off();
    };
    const test = () => {
      if (done) return;
      let value: R | undefined;
      try {
        value = check();
      } catch (error) {
        finish();
        reject(error);
        return;
      }
      if (value === undefined) return;
      finish();
      resolve(value);
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`));
    }, timeoutMs);
    for (const informer of informers) unsubscribe.push(informer.subscribe(test));
    test();
  });
}
