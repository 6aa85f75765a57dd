/**
 * The red team: every attack of the corpus (redteam/corpus.ts), run over MCP HTTP against the real server
 * process with real binaries, a canary secret in the server's environment and the bearer token in a file
 * outside the roots. Each case must be refused with its rule, or run with no effect: no mark left by its
 * payload, no canary or token in anything returned, nothing new outside the roots. Tracing is on, every call
 * sampled, exporting to a stand-in OTLP receiver: no exported span holds the canary, the token or an argument.
 *
 * Controls show the payloads are live (they bite when run without the server), and a last block pins down
 * what only the container bounds, as docs/toolchain-server.md says. Everything runs as the pods' uid (65532) when
 * the test runs as root: root's capabilities would hold what only the uid's own rules should.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cachedPypiTool } from '../../release/src/pypi-tools.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts';
import { asPodUser, chownForPod } from '../support/pod-user.ts';
import { connectClient } from './helpers.ts';

type Client = Awaited<ReturnType<typeof connectClient>>;

import { type ServerProcess, startServerProcess } from './process-helpers.ts';
import { type Attack, type AttackClass, CORPUS, corpusCommands } from './redteam/corpus.ts';
import { GIT_IDENTITY, makePlayground, type Playground, tarArchive } from './redteam/fixtures.ts';

interface ToolResult {
  isError?: boolean;
  structuredContent?: { stdout: string; stderr: string; exitCode: number | null };
  _meta?: Record<string, { code: string; rule: string | null; allowed: string | null } | undefined>;
  content?: unknown;
}

function fill(text: string, pg: Playground, id: string, pid: number): string {
  return text
    .replaceAll('@MARK@', pg.marker(id))
    .replaceAll('@OUT@', pg.outside)
    .replaceAll('@PID@', String(pid));
}

function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

describe('red-team corpus against the real server', () => {
  let pg: Playground;
  let server: ServerProcess;
  let client: Client;
  let outsideBefore: string[];
  let receiver: OtlpReceiver;

  before(async () => {
    receiver = await startOtlpReceiver();
    pg = makePlayground();
    chownForPod(pg.base);
    outsideBefore = listing(pg.outside);
    server = await startServerProcess({
      dir: pg.base,
      user: asPodUser(),
      // Secrets in the server's own environment: a child must never see them, not even in /proc.
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        LANG: 'C.UTF-8',
        TOOLYARD_CANARY: pg.canary,
        AWS_SECRET_ACCESS_KEY: pg.canary,
      },
      config: {
        name: 'redteam',
        listen: { host: '127.0.0.1', port: 0 },
        workspaceRoots: [pg.root],
        tools: { mode: 'exec', allowedCommands: corpusCommands() },
        env: { passthrough: ['PATH', 'LANG'], set: { HOME: pg.home } },
        limits: { defaultTimeoutSeconds: 30, maxTimeoutSeconds: 60 },
        auth: { bearerTokenFile: pg.tokenFile },
        telemetry: { endpoint: receiver.url, sampleRatio: 1, resource: { 'toolyard.agent': 'redteam' } },
      },
    });
    client = await connectClient(server.url, { authorization: `Bearer ${pg.token}` });
  });

  after(async () => {
    await client?.close();
    server?.child.kill('SIGTERM');
    await server?.exited;
    await receiver?.close();
    pg?.cleanup();
  });

  it('has at least 150 attacks, and every class of the issue has its share', () => {
    assert.ok(CORPUS.length >= 150, `${CORPUS.length} attacks`);
    const classes: AttackClass[] = [
      'secrets',
      'option-parsing',
      'config-write',
      'interpreter-code',
      'environment',
      'paths',
      'wrappers',
    ];
    for (const cls of classes)
      assert.ok(CORPUS.filter((a) => a.class === cls).length >= 10, `class ${cls} has fewer than 10 attacks`);
    assert.equal(new Set(CORPUS.map((a) => a.id)).size, CORPUS.length, 'ids are unique');
  });

  const run = async (attack: Attack): Promise<ToolResult> => {
    const pid = server.child.pid!;
    const args: Record<string, unknown> = { command: attack.argv.map((a) => fill(a, pg, attack.id, pid)) };
    if (attack.env)
      args.env = Object.fromEntries(
        Object.entries(attack.env).map(([k, v]) => [k, fill(v, pg, attack.id, pid)]),
      );
    return (await client.callTool({ name: 'exec_allowed', arguments: args })) as ToolResult;
  };

  for (const attack of CORPUS) {
    it(`${attack.id} [${attack.class}] ${attack.env ? `${Object.keys(attack.env).join(',')} ` : ''}${JSON.stringify(attack.argv)}`, async () => {
      const result = await run(attack);
      const error = result._meta?.['dev.toolyard/error'];
      const expect = attack.expect;
      if ('refused' in expect) {
        assert.equal(result.isError, true);
        assert.equal(error?.code, 'TOOLYARD_POLICY_DENIED', JSON.stringify(result.content));
        assert.equal(error?.rule, expect.refused, JSON.stringify(result.content));
        assert.ok(error?.allowed, 'the refusal says what is allowed instead');
      } else if ('envRefused' in expect) {
        assert.equal(error?.code, 'TOOLYARD_ENV_REFUSED', JSON.stringify(result.content));
        assert.equal(error?.rule, 'env-allowlist');
      } else if ('commandRefused' in expect) {
        assert.match(error?.code ?? '', /^TOOLYARD_COMMAND_(PATH_REFUSED|NOT_ALLOWED)$/);
      } else {
        assert.ok(result.structuredContent, `expected the command to run: ${JSON.stringify(result.content)}`);
        if (expect.stdout) assert.match(result.structuredContent.stdout, expect.stdout);
        for (const mark of expect.markers ?? [])
          assert.equal(existsSync(pg.marker(mark)), false, `the ${mark} payload left its mark`);
      }
      assert.equal(existsSync(pg.marker(attack.id)), false, 'the payload left its mark');
      const returned = JSON.stringify(result);
      assert.ok(!returned.includes(pg.canary), 'the canary from the server environment leaked');
      assert.ok(!returned.includes(pg.token), 'the bearer token leaked');
    });
  }

  it('left nothing new outside the roots, and no secret in any audit line', () => {
    assert.deepEqual(listing(pg.outside), outsideBefore);
    const audit = JSON.stringify(server.lines);
    assert.ok(!audit.includes(pg.canary) && !audit.includes(pg.token));
  });

  it('exported a span per call, and no span holds the canary, the token or an argument', async () => {
    const calls = (n: readonly { name: string }[]) =>
      n.filter((s) => s.name === 'tools/call exec_allowed').length;
    await receiver.waitFor((spans) => calls(spans) >= CORPUS.length, 15_000);
    const exported = receiver.requests.map((r) => r.body).join('\n');
    // Control: the arguments did hold the outside directory (the cases name it); no span does.
    assert.ok(CORPUS.some((a) => a.argv.some((arg) => arg.includes('@OUT@'))));
    for (const secret of [pg.canary, pg.token, pg.outside])
      assert.ok(!exported.includes(secret), `an exported span holds ${secret.slice(0, 24)}`);
  });
});

describe('controls: the payloads bite when run without the server', () => {
  let dir: string;
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent', ...GIT_IDENTITY };
  before(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolyard-control-')));
    writeFileSync(join(dir, 'f'), 'a\n');
    chownForPod(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const bites = (label: string, run: (mark: string) => void) =>
    it(label, () => {
      const mark = join(dir, `mark-${label.replace(/\W+/g, '-')}`);
      run(mark);
      assert.ok(existsSync(mark), `${label} did not bite`);
    });

  bites('tar --checkpoint-action=exec', (mark) =>
    execFileSync(
      'tar',
      ['-cf', '/dev/null', '--checkpoint=1', `--checkpoint-action=exec=touch ${mark}`, 'f'],
      {
        cwd: dir,
        env,
        ...asPodUser(),
      },
    ),
  );
  bites('make --eval', (mark) => {
    // make then stops for want of a target; the --eval has run by then.
    spawnSync('make', ['-f', '/dev/null', `--eval=$(shell touch ${mark})`], {
      cwd: dir,
      env,
      ...asPodUser(),
    });
  });
  bites('sed without --sandbox', (mark) =>
    execFileSync('sed', ['-n', `1e touch ${mark}`, 'f'], { cwd: dir, env, ...asPodUser() }),
  );
  bites('a planted core.fsmonitor on git status', (mark) => {
    execFileSync('git', ['init', '-q', 'repo-fs'], { cwd: dir, env, ...asPodUser() });
    execFileSync('git', ['-C', 'repo-fs', 'config', 'core.fsmonitor', `touch ${mark}`], {
      cwd: dir,
      env,
      ...asPodUser(),
    });
    spawnSync('git', ['-C', 'repo-fs', 'status'], { cwd: dir, env, ...asPodUser() });
  });
  bites('a planted pre-commit hook', (mark) => {
    execFileSync('git', ['init', '-q', 'repo-hook'], { cwd: dir, env, ...asPodUser() });
    writeFileSync(join(dir, 'repo-hook/.git/hooks/pre-commit'), `#!/bin/sh\ntouch ${mark}\n`, {
      mode: 0o755,
    });
    chownForPod(join(dir, 'repo-hook/.git/hooks/pre-commit'));
    execFileSync('git', ['-C', 'repo-hook', 'commit', '-q', '--allow-empty', '-m', 'x'], {
      cwd: dir,
      env,
      ...asPodUser(),
    });
  });
  bites("tar extracting through the workspace's own symlink", (mark) => {
    mkdirSync(join(dir, 'ws'));
    execFileSync('ln', ['-s', dir, join(dir, 'ws', 'out')]);
    writeFileSync(join(dir, 't.tar'), tarArchive([{ name: `out/${mark.split('/').pop()}`, data: 'x' }]));
    chownForPod(join(dir, 'ws'));
    execFileSync('tar', ['-xf', '../t.tar'], { cwd: join(dir, 'ws'), env, ...asPodUser() });
  });

  // uv (the pinned wheel, npm run pypi-tools): what the U rows refuse does run a program when uv is asked directly.
  const uv = () => {
    const tool = cachedPypiTool('uv');
    assert.ok(tool, 'uv is not fetched: run npm run pypi-tools');
    return tool.executable;
  };
  const uvEnv = () => ({ ...env, UV_CACHE_DIR: join(dir, 'uv-cache'), UV_PYTHON_DOWNLOADS: 'never' });
  bites('uv run <any program>', (mark) =>
    execFileSync(uv(), ['run', '--no-project', '--offline', 'sh', '-c', `touch ${mark}`], {
      cwd: dir,
      env: uvEnv(),
      ...asPodUser(),
    }),
  );
  bites('uv --python <a program>', (mark) => {
    writeFileSync(join(dir, 'evil-python'), `#!/bin/sh\ntouch ${mark}\nexit 1\n`, { mode: 0o755 });
    spawnSync(uv(), ['run', '--no-project', '--offline', '--python', join(dir, 'evil-python'), 'true'], {
      cwd: dir,
      env: uvEnv(),
      ...asPodUser(),
    });
  });
  bites('uv run --env-file (variables from a file reach the program)', (mark) => {
    writeFileSync(join(dir, 'evil.env'), `MARK=${mark}\n`);
    execFileSync(
      uv(),
      ['run', '--no-project', '--offline', '--env-file', 'evil.env', 'sh', '-c', 'touch "$MARK"'],
      { cwd: dir, env: uvEnv(), ...asPodUser() },
    );
  });

  it("a child reads its parent's environment from /proc, which is why the server re-executes itself", () => {
    const secret = `control-${Date.now()}`;
    const out = execFileSync(
      process.execPath,
      [
        '-e',
        "process.stdout.write(require('child_process').execFileSync('sh', ['-c', 'tr \"\\\\000\" \"\\\\n\" < /proc/$PPID/environ']))",
      ],
      { env: { ...env, SECRET: secret }, encoding: 'utf8', ...asPodUser() },
    );
    assert.match(out, new RegExp(`SECRET=${secret}`));
  });
});

// With `limits.confinement: off` (the argv policy alone); confinement-server.test.ts shows the kernel closing both.
describe('what only the container bounds without kernel confinement (docs/toolchain-server.md, threat model)', () => {
  let pg: Playground;
  let server: ServerProcess;
  let client: Client;
  before(async () => {
    pg = makePlayground();
    chownForPod(pg.base);
    server = await startServerProcess({
      dir: pg.base,
      user: asPodUser(),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      config: {
        name: 'limits',
        listen: { host: '127.0.0.1', port: 0 },
        workspaceRoots: [pg.root],
        tools: { mode: 'exec', allowedCommands: ['sh', 'tar'] },
        auth: { bearerTokenFile: pg.tokenFile },
        limits: { confinement: 'off' },
      },
    });
    client = await connectClient(server.url, { authorization: `Bearer ${pg.token}` });
  });
  after(async () => {
    await client?.close();
    server?.child.kill('SIGTERM');
    await server?.exited;
    pg?.cleanup();
  });

  it("code a toolchain runs (a script in the workspace) can read that toolchain's own token file", async () => {
    const result = (await client.callTool({
      name: 'exec_allowed',
      arguments: { command: ['sh', 'scripts/read-token.sh'] },
    })) as ToolResult;
    assert.equal(result.structuredContent?.stdout.trim(), pg.token);
  });

  it('tar follows a symlink the workspace already has when it extracts below it', async () => {
    const result = (await client.callTool({
      name: 'exec_allowed',
      arguments: { command: ['tar', '-xf', 'through.tar'] },
    })) as ToolResult;
    assert.equal(result.structuredContent?.exitCode, 0);
    assert.equal(existsSync(join(pg.outside, 'pwned-through')), true);
  });
});
