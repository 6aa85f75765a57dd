/**
 * Stock agent CLIs driven by scripted fake models, for tests that run each CLI several times with a different plan:
 * one fake model API per CLI (in its wire format) for the whole test, the spec's `backends` pointing at them, and
 * `run`, which replans the CLI's script, runs its headless command in its backend container as rendered and
 * returns what happened with a context string for assertion messages.
 */
import type { AgentSpec } from '../../schema/src/types.generated.ts';
import { type FakeApi, ModelScript, type PlannedCall } from './fake-model.ts';
import type { PodVolumes, RunResult } from './pod-emulation.ts';
import { type CliName, type CliRunOptions, runStockCli, type StockCli, specBackends } from './stock-clis.ts';

/** One run of a CLI against its script. */
export interface ScriptedRun {
  readonly script: ModelScript;
  readonly result: RunResult;
  readonly seconds: number;
  /** Exit, duration, the tails of stdout and stderr, then `extra`: what an assertion message needs. */
  context(extra?: string): string;
}

export class ScriptedClis {
  private readonly entries: ReadonlyMap<CliName, { readonly cli: StockCli; readonly script: ModelScript }>;
  private readonly apis: readonly FakeApi[];

  private constructor(
    entries: ReadonlyMap<CliName, { readonly cli: StockCli; readonly script: ModelScript }>,
    apis: readonly FakeApi[],
  ) {
    this.entries = entries;
    this.apis = apis;
  }

  /** Starts one fake model API per CLI, each answering from a script with no plan yet. */
  static async start(clis: readonly StockCli[]): Promise<ScriptedClis> {
    const entries = new Map<CliName, { cli: StockCli; script: ModelScript }>();
    const apis: FakeApi[] = [];
    try {
      for (const cli of clis) {
        const script = new ModelScript([]);
        entries.set(cli.name, { cli, script });
        apis.push(await cli.startApi(script));
      }
    } catch (error) {
      await Promise.all(apis.map((api) => api.close()));
      throw error;
    }
    return new ScriptedClis(entries, apis);
  }

  /** The spec's `backends`: each CLI's entry, calling its own fake API. */
  backends(): AgentSpec['backends'] {
    return specBackends([...this.entries.values()].map(({ cli }, i) => [cli, this.apis[i] as FakeApi]));
  }

  /** `cli`'s script (its calls so far, its problems). */
  script(cli: StockCli): ModelScript {
    const entry = this.entries.get(cli.name);
    if (!entry) throw new Error(`no fake model was started for ${cli.name}`);
    return entry.script;
  }

  /** Replans `cli`'s script with `plan`, then runs `cli` with `prompt` in its backend container. */
  async run(
    volumes: PodVolumes,
    cli: StockCli,
    prompt: string,
    plan: readonly PlannedCall[],
    options: CliRunOptions,
  ): Promise<ScriptedRun> {
    const script = this.script(cli);
    script.restart(plan);
    const started = Date.now();
    const result = await runStockCli(volumes, cli, prompt, options);
    const seconds = (Date.now() - started) / 1000;
    return {
      script,
      result,
      seconds,
      context: (extra = '') =>
        `exit ${result.code} in ${seconds} s\nstdout: ${result.stdout.slice(-2000)}\nstderr: ${result.stderr.slice(-3000)}${extra ? `\n${extra}` : ''}`,
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.apis.map((api) => api.close()));
  }
}
