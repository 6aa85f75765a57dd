/**
 * Renders many agents into their fleet view (`fleetAgent`) on worker threads, for a diff that changes hundreds
 * of agents at once; a few render in this thread. A spec the renderer refuses comes back as its problems, which
 * the caller reports with the spec's lines.
 */
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { AgentSpecError } from '../../../constructs/src/agent-spec-error.ts';
import { renderAgent } from '../../../constructs/src/render.ts';
import type { ToolyardAgent } from '../../../schema/src/types.generated.ts';
import type { SpecProblem } from '../../../schema/src/validator.ts';
import { type FleetAgent, fleetAgent } from './fleet-model.ts';

export interface RenderItem {
  readonly file: string;
  readonly agent: ToolyardAgent;
}

export type RenderOutcome = { readonly agent: FleetAgent } | { readonly problems: readonly SpecProblem[] };

export function renderItems(items: readonly RenderItem[]): RenderOutcome[] {
  return items.map((item) => {
    try {
      return { agent: fleetAgent(item.file, renderAgent(item.agent)) };
    } catch (error) {
      if (!(error instanceof AgentSpecError)) throw error;
      return { problems: error.problems };
    }
  });
}

interface WorkerInput {
  readonly toolyardRenderSlice: true;
  readonly items: readonly RenderItem[];
}

// This module's own file, as source (ESM) or compiled (CommonJS, where import.meta is empty).
const SELF = typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url);

if (!isMainThread && (workerData as WorkerInput | undefined)?.toolyardRenderSlice) {
  parentPort!.postMessage(renderItems((workerData as WorkerInput).items));
}

/** Outcomes in the items' order, on up to `jobs` threads. */
export async function renderInParallel(items: readonly RenderItem[], jobs: number): Promise<RenderOutcome[]> {
  if (jobs <= 1 || items.length < 2) return renderItems(items);
  const size = Math.ceil(items.length / jobs);
  const slices = Array.from({ length: jobs }, (_, i) => items.slice(i * size, (i + 1) * size)).filter(
    (slice) => slice.length > 0,
  );
  const results = await Promise.all(
    slices.map(
      (slice) =>
        new Promise<RenderOutcome[]>((resolve, reject) => {
          const input: WorkerInput = { toolyardRenderSlice: true, items: slice };
          const worker = new Worker(SELF, { workerData: input });
          worker.once('message', (message: RenderOutcome[]) => resolve(message));
          worker.once('error', reject);
          worker.once('exit', (code) => {
            if (code !== 0) reject(new Error(`render worker exited with code ${code}`));
          });
        }),
    ),
  );
  return results.flat();
}
