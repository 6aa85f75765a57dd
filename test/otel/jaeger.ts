/**
 * A real OTLP backend for the observability tests: Jaeger v2 (an OpenTelemetry Collector distribution with an
 * OTLP receiver, in-memory storage and the query API), built from its pinned Go module (`test/otel/jaeger`,
 * `github.com/jaegertracing/jaeger` v1.76.0) with the machine's Go — never a downloaded binary — static and
 * cached under a key of the module's go.mod and go.sum, the Go version and this recipe (as the test cluster's
 * binaries are: test/cluster/binaries.ts). `npm run otel:build` builds it; a cold build takes long (tens of
 * minutes on 2 loaded cores), a warm one nothing.
 *
 * `startJaeger` runs it on loopback (or an address in a network namespace) with a config written here: OTLP/HTTP
 * in, memory storage, the query API out; `trace(id)` reads one trace back through `/api/v3/traces/<id>`.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir } from '../../release/src/cache-dir.ts';
import { fillCacheDir, goBuild, hasFile } from '../support/go-build.ts';
import { type AnyValue, attributes } from '../support/otlp-receiver.ts';

const MODULE = join(dirname(fileURLToPath(import.meta.url)), 'jaeger');
export const JAEGER_VERSION = 'v1.76.0';
const RECIPE = 'static, trimpath, stripped: 1';

function goVersion(): string {
  return execFileSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' }).trim();
}

export function jaegerKey(): string {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum']) hash.update(readFileSync(join(MODULE, file)));
  hash.update(goVersion()).update(RECIPE);
  return `jaeger-${JAEGER_VERSION}-${hash.digest('hex').slice(0, 16)}`;
}

export function jaegerBinary(): string {
  return join(cacheDir('otel', jaegerKey()), 'jaeger');
}

/** Builds Jaeger unless the cache has it; returns the binary. Atomic: a half-done build never counts. */
export function buildJaeger(log: (line: string) => void = () => {}): string {
  const binary = jaegerBinary();
  fillCacheDir(dirname(binary), hasFile('jaeger'), (staging) => {
    log(`building Jaeger ${JAEGER_VERSION} from its Go module (cold: tens of minutes)`);
    goBuild({
      moduleDir: MODULE,
      output: `${staging}/`,
      packages: ['github.com/jaegertracing/jaeger/cmd/jaeger'],
    });
  });
  return binary;
}

/** Why the tests cannot run Jaeger here, or undefined. */
export function jaegerMissing(): string | undefined {
  return existsSync(jaegerBinary())
    ? undefined
    : `Jaeger is not built in ${dirname(jaegerBinary())}; run: npm run otel:build`;
}

/** A span as the query API returns it (OTLP JSON), flattened with its service. */
export interface StoredSpan {
  readonly service: string;
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  readonly resource: Readonly<Record<string, string | number | boolean>>;
}

export interface Jaeger {
  /** OTLP/HTTP base URL (`<url>/v1/traces`). */
  readonly otlpUrl: string;
  readonly queryUrl: string;
  /** One trace by id (empty when Jaeger has none). */
  trace(traceId: string): Promise<StoredSpan[]>;
  /** The ids of traces of a service (most recent first). */
  traceIds(service: string): Promise<string[]>;
  /** What Jaeger printed: its own log and every OTLP log record and metric received, in full. */
  output(): string;
  stop(): Promise<void>;
}

export interface StartJaegerOptions {
  /** Where it listens (default 127.0.0.1); an address inside a namespace with `exec`. */
  readonly host?: string;
  readonly otlpPort: number;
  readonly queryPort: number;
  /** argv prefix that enters a network namespace (`ip netns exec <ns>`). */
  readonly exec?: readonly string[];
  /** How the query API is reached from this process (default: fetch). */
  readonly get?: (url: string) => Promise<string>;
}

export async function startJaeger(options: StartJaegerOptions): Promise<Jaeger> {
  const host = options.host ?? '127.0.0.1';
  const dir = mkdtempSync(join(tmpdir(), 'toolyard-jaeger-'));
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      'service:',
      '  extensions: [jaeger_storage, jaeger_query]',
      '  pipelines:',
      '    traces: { receivers: [otlp], processors: [batch], exporters: [jaeger_storage_exporter] }',
      // Log records and metrics are not stored: the debug exporter prints each one in full (output()).
      '    logs: { receivers: [otlp], exporters: [debug] }',
      '    metrics: { receivers: [otlp], exporters: [debug] }',
      '  telemetry: { metrics: { level: none }, logs: { level: info } }',
      'extensions:',
      '  jaeger_storage: { backends: { memstore: { memory: { max_traces: 100000 } } } }',
      `  jaeger_query: { storage: { traces: memstore }, http: { endpoint: "${host}:${options.queryPort}" }, grpc: { endpoint: "127.0.0.1:0" } }`,
      `receivers: { otlp: { protocols: { http: { endpoint: "${host}:${options.otlpPort}" } } } }`,
      'processors: { batch: { timeout: 100ms } }',
      'exporters: { jaeger_storage_exporter: { trace_storage: memstore }, debug: { verbosity: detailed } }',
      '',
    ].join('\n'),
  );
  const argv = [...(options.exec ?? []), jaegerBinary(), '--config', `file:${config}`];
  const child: ChildProcess = spawn(argv[0] as string, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const queryUrl = `http://${host}:${options.queryPort}`;
  const get = options.get ?? (async (url: string) => (await fetch(url)).text());
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`jaeger exited ${child.exitCode}: ${output}`);
    try {
      if ((await get(`${queryUrl}/api/services`)).includes('"data"')) break;
    } catch {}
    if (Date.now() > deadline) throw new Error(`jaeger did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    output: () => output,
    otlpUrl: `http://${host}:${options.otlpPort}`,
    queryUrl,
    async trace(traceId) {
      let text: string;
      try {
        text = await get(`${queryUrl}/api/v3/traces/${traceId}`);
      } catch {
        return []; // not (yet) stored
      }
      const body = (text.trim() ? JSON.parse(text) : {}) as {
        result?: {
          resourceSpans?: {
            resource?: { attributes?: { key: string; value: AnyValue }[] };
            scopeSpans?: { spans?: Record<string, unknown>[] }[];
          }[];
        };
      };
      const spans: StoredSpan[] = [];
      for (const rs of body.result?.resourceSpans ?? []) {
        const resource = attributes(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              service: String(resource['service.name'] ?? ''),
              name: String(s.name),
              kind: Number(s.kind ?? 0),
              traceId: String(s.traceId),
              spanId: String(s.spanId),
              parentSpanId: (s.parentSpanId as string | undefined) || undefined,
              attributes: attributes(s.attributes as { key: string; value: AnyValue }[]),
              resource,
            });
      }
      return spans;
    },
    async traceIds(service) {
      const text = await get(
        `${queryUrl}/api/traces?service=${encodeURIComponent(service)}&limit=100&lookback=1h`,
      );
      const body = JSON.parse(text) as { data?: { traceID: string }[] };
      return (body.data ?? []).map((t) => t.traceID);
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  process.stdout.write(`${buildJaeger((line) => process.stderr.write(`${line}\n`))}\n`);
