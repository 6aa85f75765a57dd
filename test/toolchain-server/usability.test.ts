/**
 * The usability corpus (usability/corpus.ts): every command run directly in one copy of the projects and
 * through the real server (over MCP, `exec_allowed`, kernel confinement at its default) in another, then
 * compared. The figure is allowed-and-equivalent over everything run; it must stay at or above 98 %, and
 * every refusal must say what to run instead. The report (refusals, differences, skipped entries) is printed.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cachedPypiTool } from '../../release/src/pypi-tools.ts';
import { findOnPath } from '../../toolchain-server/src/policy/commands.ts';
import { rustToolchain } from '../support/rust-toolchain.ts';
import { connectClient } from './helpers.ts';
import { type ServerProcess, startServerProcess } from './process-helpers.ts';
import { equivalent, firstDifference, normalise, type Paths, type RunOutcome } from './usability/compare.ts';
import { CORPUS, type CorpusEntry } from './usability/corpus.ts';
import { buildWorkspace, GIT_ENV } from './usability/fixtures.ts';

/**
 * Debian's programs, rustup's current Rust toolchain (its own directory: cargo, rustc, rustfmt, clippy, as the
 * stock rust images carry them; Debian's cargo is years behind) and uv and ruff from their pinned PyPI wheels
 * (`npm run pypi-tools`, as toolchain-go-python has them in /usr/local/bin): what CI and the images have.
 */
const PATH = [
  ...(rustToolchain() ? [rustToolchain()!.bin] : []),
  ...(['uv', 'ruff'] as const).flatMap((name) => cachedPypiTool(name)?.binDir ?? []),
  '/usr/local/bin:/usr/bin:/bin',
].join(':');
const CANARY = 'usability-canary-7f3a9c';
const CONCURRENCY = 4;

interface ServerResult {
  isError?: boolean;
  structuredContent?: { stdout: string; stderr: string; exitCode: number | null };
  _meta?: Record<
    string,
    { code: string; rule: string | null; message: string; allowed: string | null } | undefined
  >;
  content?: Array<{ text?: string }>;
}

type Verdict =
  | { readonly kind: 'equivalent' }
  | {
      readonly kind: 'refused';
      readonly code: string;
      readonly rule: string | null;
      readonly message: string;
      readonly allowed: string | null;
    }
  | { readonly kind: 'different'; readonly detail: string };

interface Result {
  readonly entry: CorpusEntry;
  readonly verdict: Verdict;
}

function available(needs: string | undefined): boolean {
  if (!needs) return true;
  if (needs.startsWith('python3:'))
    return spawnSync('python3', ['-c', `import ${needs.slice(8)}`], { env: { PATH } }).status === 0;
  return findOnPath(needs, PATH) !== undefined;
}

function runDirect(
  argv: readonly string[],
  cwd: string,
  env: Record<string, string>,
): Promise<RunOutcome & { stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', (e) => resolve({ exitCode: 127, stdout: '', stderr: e.message }));
    child.on('close', (code) => resolve({ exitCode: code, stdout, stderr }));
  });
}

async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

describe('usability corpus: allowed and equivalent, or refused with what to run instead', () => {
  let base: string;
  let server: ServerProcess;
  let client: Awaited<ReturnType<typeof connectClient>>;
  let paths: Paths;
  let directEnv: Record<string, string>;
  const results: Result[] = [];
  const skipped: CorpusEntry[] = [];
  const runnable = CORPUS.filter((e) => available(e.needs));
  for (const e of CORPUS) if (!runnable.includes(e)) skipped.push(e);

  before(async () => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'toolyard-usability-')));
    // Same-length names: column widths in `ls -l`, `df` and `git worktree list` stay alike.
    for (const dir of ['a', 'b', 'cache-a', 'cache-b', 'tmp-a', 'tmp-b', 'tmp-a/home'])
      mkdirSync(join(base, dir));
    buildWorkspace(join(base, 'a'));
    buildWorkspace(join(base, 'b'));
    paths = {
      pairs: [
        [join(base, 'cache-a'), join(base, 'cache-b'), '<cache>'],
        [join(base, 'tmp-a'), join(base, 'tmp-b'), '<tmp>'],
        [join(base, 'a'), join(base, 'b'), '<ws>'],
      ],
    };
    const caches = (side: 'a' | 'b') => ({
      GOCACHE: join(base, `cache-${side}`, 'go-build'),
      GOPATH: join(base, `cache-${side}`, 'go'),
      npm_config_cache: join(base, `cache-${side}`, 'npm'),
      UV_CACHE_DIR: join(base, `cache-${side}`, 'uv'),
      UV_PYTHON_DOWNLOADS: 'never',
      npm_config_update_notifier: 'false',
      ...GIT_ENV,
    });
    directEnv = {
      PATH,
      LANG: 'C.UTF-8',
      HOME: join(base, 'tmp-a', 'home'),
      TMPDIR: join(base, 'tmp-a'),
      CARGO_HOME: join(base, 'tmp-a', 'home', '.cargo'),
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      NPM_CONFIG_USERCONFIG: '/dev/null',
      PIP_CONFIG_FILE: '/dev/null',
      GOENV: 'off',
      ...caches('a'),
    };
    server = await startServerProcess({
      dir: base,
      env: { PATH, LANG: 'C.UTF-8', TOOLYARD_CANARY: CANARY },
      config: {
        name: 'usability',
        listen: { host: '127.0.0.1', port: 0 },
        workspaceRoots: [join(base, 'b')],
        tools: { mode: 'exec', allowedCommands: [...new Set(runnable.map((e) => e.argv[0]!))].sort() },
        env: { passthrough: ['PATH', 'LANG'], set: { TMPDIR: join(base, 'tmp-b'), ...caches('b') } },
        limits: {
          defaultTimeoutSeconds: 240,
          maxTimeoutSeconds: 300,
          maxConcurrency: CONCURRENCY,
          maxQueue: 64,
          // As rendered for a pod whose NetworkPolicy and broker bound egress: loopback test servers reachable.
          connect: 'pod',
        },
      },
    });
    client = await connectClient(server.url);
  });

  after(async () => {
    await client?.close();
    server?.child.kill('SIGTERM');
    await server?.exited;
    if (base) rmSync(base, { recursive: true, force: true });
  });

  const runEntry = async (entry: CorpusEntry): Promise<Result> => {
    const cwdA = join(base, 'a', entry.cwd);
    const cwdB = join(base, 'b', entry.cwd);
    const [direct, viaServer] = await Promise.all([
      runDirect(entry.argv, cwdA, directEnv),
      client.callTool(
        { name: 'exec_allowed', arguments: { command: [...entry.argv], cwd: cwdB } },
        undefined,
        { timeout: 300_000 },
      ) as Promise<ServerResult>,
    ]);
    const error = viaServer._meta?.['dev.toolyard/error'];
    if (error) return { entry, verdict: { kind: 'refused', ...error } };
    const ran = viaServer.structuredContent;
    if (!ran)
      return {
        entry,
        verdict: { kind: 'different', detail: `no result: ${JSON.stringify(viaServer.content)}` },
      };
    if (equivalent(direct, ran, entry.normalise, paths)) return { entry, verdict: { kind: 'equivalent' } };
    const detail =
      direct.exitCode !== ran.exitCode
        ? `exit ${direct.exitCode} directly, ${ran.exitCode} through the server; server stderr: ${ran.stderr.trim().slice(-400)}; direct stderr: ${direct.stderr.trim().slice(-200)}`
        : firstDifference(
            normalise(direct.stdout, entry.normalise, paths),
            normalise(ran.stdout, entry.normalise, paths),
          );
    return { entry, verdict: { kind: 'different', detail } };
  };

  it('runs with kernel confinement enforced (the figure is for confined calls)', async () => {
    const ready = (await (await fetch(`${server.url}/readyz`)).json()) as {
      confinement: { status: string; abi: number };
    };
    assert.equal(ready.confinement.status, 'enforced');
    assert.ok(ready.confinement.abi >= 4, `Landlock ABI ${ready.confinement.abi}: no TCP rules to test`);
  });

  it('runs every entry directly and through the server, and reports the figure', {
    timeout: 900_000,
  }, async () => {
    const groups = new Map<string, CorpusEntry[]>();
    for (const entry of runnable) {
      const key = entry.group ?? entry.id;
      groups.set(key, [...(groups.get(key) ?? []), entry]);
    }
    // The longest groups (builds) first, so they overlap with the many short entries.
    const ordered = [...groups.values()].sort((x, y) => y.length - x.length);
    await pool(ordered, CONCURRENCY, async (group) => {
      for (const entry of group) results.push(await runEntry(entry));
    });
    const equivalentCount = results.filter((r) => r.verdict.kind === 'equivalent').length;
    const refused = results.filter((r) => r.verdict.kind === 'refused');
    const different = results.filter((r) => r.verdict.kind === 'different');
    const figure = (100 * equivalentCount) / results.length;
    const lines = [
      `usability corpus: ${results.length} commands run, ${equivalentCount} allowed and equivalent (${figure.toFixed(1)} %), ${refused.length} refused, ${different.length} different; ${skipped.length} skipped (program missing)`,
      ...refused.map((r) => {
        const v = r.verdict as Extract<Verdict, { kind: 'refused' }>;
        return `  refused ${r.entry.id} ${JSON.stringify(r.entry.argv)}: [${v.rule ?? v.code}] ${v.message} — instead: ${v.allowed}`;
      }),
      ...different.map(
        (r) =>
          `  different ${r.entry.id} ${JSON.stringify(r.entry.argv)}: ${(r.verdict as { detail: string }).detail}`,
      ),
      ...skipped.map((e) => `  skipped ${e.id} ${JSON.stringify(e.argv)}: ${e.needs} is not installed`),
    ];
    console.log(lines.join('\n'));
    assert.ok(results.length >= 250, `only ${results.length} commands ran`);
    for (const r of refused) {
      const v = r.verdict as Extract<Verdict, { kind: 'refused' }>;
      assert.ok(v.allowed && v.allowed.length > 0, `${r.entry.id}: the refusal names no alternative`);
    }
    assert.ok(figure >= 98, `${figure.toFixed(1)} % allowed and equivalent, below 98 %`);
    // The loopback entries (Go httptest, a pytest server on 127.0.0.1:0) passed under confinement.
    for (const argv of [
      ['go', 'test', '-count=1', './web/'],
      ['pytest', '-q', 'tests/test_live.py'],
    ]) {
      const r = results.find((x) => x.entry.argv.join(' ') === argv.join(' '));
      assert.equal(r?.verdict.kind, 'equivalent', `${argv.join(' ')}: ${JSON.stringify(r?.verdict)}`);
    }
  });

  it('keeps the server environment out of the children: `env` shows no secret', async () => {
    const r = (await client.callTool({
      name: 'exec_allowed',
      arguments: { command: ['env'] },
    })) as ServerResult;
    const shown = r.structuredContent?.stdout ?? JSON.stringify(r);
    assert.ok(!shown.includes(CANARY), 'the canary from the server environment reached a child');
    if (r.structuredContent) assert.match(shown, /^PATH=/m);
  });
});
