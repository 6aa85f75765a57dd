/**
 * `npm run bench:tracing` (and the last section of `npm run bench:toolchain-server`): what tracing costs a tool
 * call of the toolchain server, in process, with no spawn to drown it — `describe_toolchain` calls through
 * `Toolchain.callTool` (policy, audit line, metrics, span) in rotating blocks of tracing off, on but sampled
 * out (no parent, ratio 0), and on and sampled (ratio 1, spans batched to an exporter whose transport answers at
 * once); and the span work of one exec call on its own (call span, process span, TRACEPARENT, ~20 attributes,
 * end, queue). Figures: p50/p99 per call in microseconds and the difference to tracing off (aim: sampled out
 * <= 0.1 ms p50).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OtlpExporter } from '../toolchain-server/kit/otlp-exporter.ts';
import { parseTraceparent } from '../toolchain-server/kit/trace-context.ts';
import { Tracer } from '../toolchain-server/kit/tracing.ts';
import { toolchainServerConfigSchema } from '../toolchain-server/src/config.ts';
import { Toolchain } from '../toolchain-server/src/toolchain.ts';

const CALLS = 6000;
const BLOCK = 200;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function exporter(): OtlpExporter {
  return new OtlpExporter({
    transport: async () => 200,
    resource: { 'service.name': 'bench' },
    scope: { name: 'toolyard', version: 'bench' },
  });
}

export interface TracingCost {
  readonly callP50Us: Record<'off' | 'sampledOut' | 'sampledIn', number>;
  readonly callP99Us: Record<'off' | 'sampledOut' | 'sampledIn', number>;
  readonly addedP50Us: { readonly sampledOut: number; readonly sampledIn: number };
  readonly spanWorkP50Us: { readonly sampledOut: number; readonly sampledIn: number };
}

export async function measureTracingCost(): Promise<TracingCost> {
  const root = mkdtempSync(join(tmpdir(), 'toolyard-bench-tracing-'));
  try {
    const config = toolchainServerConfigSchema.parse({
      name: 'bench',
      listen: { port: 0 },
      workspaceRoots: [root],
      tools: { mode: 'exec', allowedCommands: ['true'] },
      limits: { confinement: 'off' },
      env: { passthrough: ['PATH'] },
    });
    const make = (tracer: Tracer) => new Toolchain({ config, log: () => {}, probeVersions: false, tracer });
    const variants = {
      off: make(Tracer.off),
      sampledOut: make(new Tracer({ sink: exporter(), sampleRatio: 0 })),
      sampledIn: make(new Tracer({ sink: exporter(), sampleRatio: 1 })),
    } as const;
    const samples: Record<keyof typeof variants, number[]> = { off: [], sampledOut: [], sampledIn: [] };
    for (const t of Object.values(variants))
      for (let i = 0; i < 200; i++) await t.callTool('describe_toolchain', {});
    for (let done = 0; done < CALLS; done += BLOCK)
      for (const [name, toolchain] of Object.entries(variants) as [keyof typeof variants, Toolchain][])
        for (let i = 0; i < BLOCK; i++) {
          const started = performance.now();
          await toolchain.callTool('describe_toolchain', {});
          samples[name].push((performance.now() - started) * 1000);
        }
    for (const list of Object.values(samples)) list.sort((a, b) => a - b);
    const p50 = (name: keyof typeof variants) => round(percentile(samples[name], 50));
    const p99 = (name: keyof typeof variants) => round(percentile(samples[name], 99));

    // The span work of one exec call by itself.
    const parent = parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    const spanWork = (tracer: Tracer, withParent: boolean) => {
      const times: number[] = [];
      for (let block = 0; block < 200; block++) {
        const started = performance.now();
        for (let i = 0; i < 100; i++) {
          const call = tracer.start('tools/call exec_allowed', {
            kind: 'server',
            parent: withParent ? parent : undefined,
            class: 'local-execution',
          });
          call
            .set('toolyard.component', 'toolchain-server')
            .set('toolyard.toolchain', 'bench')
            .set('mcp.method.name', 'tools/call');
          call.set('gen_ai.operation.name', 'execute_tool').set('gen_ai.tool.name', 'exec_allowed');
          call
            .set('toolyard.routing.decision', 'matched')
            .set('toolyard.routing.reason', 'command true is in toolchain bench tools.allowedCommands');
          const child = tracer.start('exec true', {
            kind: 'internal',
            parent: call.context,
            class: 'local-execution',
          });
          const env = { TRACEPARENT: child.traceparent() };
          child
            .set('process.executable.name', 'true')
            .set('process.exit.code', 0)
            .set('toolyard.stdout_bytes', 0);
          child.end();
          call
            .set('toolyard.decision', 'allowed')
            .set('process.exit.code', 0)
            .set('toolyard.stdout_bytes', 0)
            .set('toolyard.stderr_bytes', 0);
          call
            .set('toolyard.truncated', false)
            .set('toolyard.timed_out', false)
            .set('toolyard.cancelled', false)
            .set('toolyard.confinement.abi', 0);
          call.set('toolyard.egress', false).set('toolyard.session', 'abcdef0123456789');
          call.end();
          if (env.TRACEPARENT.length === 0) throw new Error('unreachable');
        }
        times.push(((performance.now() - started) * 1000) / 100);
      }
      times.sort((a, b) => a - b);
      return round(percentile(times, 50));
    };
    const outTracer = new Tracer({ sink: exporter(), sampleRatio: 0 });
    const inTracer = new Tracer({ sink: exporter(), sampleRatio: 1 });
    spanWork(inTracer, true);
    return {
      callP50Us: { off: p50('off'), sampledOut: p50('sampledOut'), sampledIn: p50('sampledIn') },
      callP99Us: { off: p99('off'), sampledOut: p99('sampledOut'), sampledIn: p99('sampledIn') },
      addedP50Us: {
        sampledOut: round(p50('sampledOut') - p50('off')),
        sampledIn: round(p50('sampledIn') - p50('off')),
      },
      spanWorkP50Us: { sampledOut: spanWork(outTracer, false), sampledIn: spanWork(inTracer, true) },
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

export function formatTracingCost(c: TracingCost): string[] {
  return [
    `tracing, describe_toolchain in process (us)  off p50 ${c.callP50Us.off} p99 ${c.callP99Us.off} | sampled out p50 ${c.callP50Us.sampledOut} p99 ${c.callP99Us.sampledOut} | sampled p50 ${c.callP50Us.sampledIn} p99 ${c.callP99Us.sampledIn}`,
    `tracing added per call p50  sampled out +${c.addedP50Us.sampledOut} us (aim <= 100 us)   sampled +${c.addedP50Us.sampledIn} us`,
    `span work of an exec call   sampled out ${c.spanWorkP50Us.sampledOut} us   sampled ${c.spanWorkP50Us.sampledIn} us (2 spans, ~20 attributes, TRACEPARENT, queued)`,
  ];
}

if (import.meta.main) {
  const cost = await measureTracingCost();
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(cost, null, 2)}\n`);
  else process.stdout.write(`${formatTracingCost(cost).join('\n')}\n`);
}
