/**
 * The toolyard-confine helper itself: reproducible static ELF builds for amd64 and arm64 (small), and its
 * process contract on this kernel — exit status and signal relay, the report protocol, degradation, timeout.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  buildConfine,
  CONFINE_ARCHITECTURES,
  type ConfineArchitecture,
  hostConfinePath,
} from '../../toolchain-server/scripts/build-confine.ts';
import { parseReports } from '../../toolchain-server/src/confinement/helper.ts';

const ARCHES = Object.keys(CONFINE_ARCHITECTURES) as ConfineArchitecture[];
const HOST: ConfineArchitecture = process.arch === 'arm64' ? 'arm64' : 'amd64';

/** Program headers of a 64-bit little-endian ELF: their types. */
function elfInfo(bytes: Buffer): { machine: number; type: number; phTypes: number[] } {
  assert.deepEqual([...bytes.subarray(0, 4)], [0x7f, 0x45, 0x4c, 0x46], 'ELF magic');
  assert.equal(bytes[4], 2, 'ELFCLASS64');
  assert.equal(bytes[5], 1, 'little-endian');
  const phoff = Number(bytes.readBigUInt64LE(32));
  const phentsize = bytes.readUInt16LE(54);
  const phnum = bytes.readUInt16LE(56);
  const phTypes = Array.from({ length: phnum }, (_, i) => bytes.readUInt32LE(phoff + i * phentsize));
  return { machine: bytes.readUInt16LE(18), type: bytes.readUInt16LE(16), phTypes };
}

function helper(args: string[], opts: { input?: string } = {}) {
  const r = spawnSync(hostConfinePath(), args, {
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    input: opts.input,
    timeout: 20_000,
  });
  const fd3 = (r.output[3] as string | null) ?? '';
  return {
    status: r.status,
    signal: r.signal,
    stdout: r.stdout,
    stderr: r.stderr,
    reports: parseReports(fd3),
  };
}

describe('toolyard-confine build', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolyard-confine-build-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const arch of ARCHES) {
    it(`builds ${arch} reproducibly into a small static ELF of the right machine`, async (t) => {
      const a = readFileSync(await buildConfine(arch, join(dir, `${arch}-1`)));
      const b = readFileSync(await buildConfine(arch, join(dir, `${arch}-2`)));
      assert.ok(a.equals(b), `${arch}: two builds differ`);
      const info = elfInfo(a);
      assert.equal(info.machine, CONFINE_ARCHITECTURES[arch].elfMachine);
      assert.equal(info.type, 2, 'ET_EXEC: static, not PIE');
      assert.ok(!info.phTypes.includes(3), 'no PT_INTERP: no dynamic loader');
      assert.ok(!info.phTypes.includes(2), 'no PT_DYNAMIC');
      assert.ok(!info.phTypes.includes(4), 'no PT_NOTE: no build id');
      assert.ok(a.length < 16 * 1024, `${arch}: ${a.length} bytes`);
      t.diagnostic(`${arch}: ${a.length} bytes`);
    });
  }

  it('runs the arm64 build under qemu-user (which offers no Landlock and no seccomp filter: best-effort, --no-wall)', (t) => {
    const qemu = spawnSync('qemu-aarch64-static', ['--version']);
    if (qemu.error) return t.skip('qemu-aarch64-static is not installed');
    const bin = join(dir, 'arm64-1');
    const probe = spawnSync('qemu-aarch64-static', [bin, '--probe', '--mode', 'best-effort'], {
      encoding: 'utf8',
    });
    assert.equal(parseReports(probe.stdout)[0]?.wall, 'unavailable', probe.stdout);
    const r = spawnSync(
      'qemu-aarch64-static',
      [bin, '--mode', 'best-effort', '--no-wall', '--report-fd', '3', '--', '/bin/sh', '-c', 'exit 7'],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      },
    );
    assert.equal(r.status, 7, r.stderr);
    const reports = parseReports((r.output[3] as string | null) ?? '');
    assert.equal(reports[0]?.status, 'unavailable');
    assert.equal(reports.at(-1)?.killed, '0');
  });
});

describe('toolyard-confine on this kernel', () => {
  before(async () => {
    await buildConfine(HOST);
  });

  it('probes the best ABI and the rights it handles', () => {
    const r = helper(['--probe']);
    assert.equal(r.status, 0);
    const [report] = parseReports(r.stdout);
    assert.ok(Number(report?.abi) >= 1, r.stdout);
    assert.equal(report?.status, 'enforced');
  });

  it('relays the exit code and the killing signal, and reports applied + done on the report fd', () => {
    const ok = helper([
      '--ro',
      '/',
      '--report-fd',
      '3',
      '--',
      '/bin/sh',
      '-c',
      'echo out; echo err >&2; exit 7',
    ]);
    assert.equal(ok.status, 7);
    assert.equal(ok.stdout, 'out\n');
    assert.equal(ok.stderr, 'err\n');
    assert.equal(ok.reports.length, 2);
    assert.equal(ok.reports[0]?.rules, '1');
    assert.deepEqual(ok.reports[1], { done: '', killed: '0', timeout: '0', status: String(7 << 8) });
    const killed = helper(['--ro', '/', '--', '/bin/sh', '-c', 'kill -USR1 $$']);
    assert.equal(killed.signal, 'SIGUSR1');
  });

  it('does not give the command its report fd', () => {
    const r = helper(['--ro', '/', '--report-fd', '3', '--', '/bin/sh', '-c', 'echo forged >&3']);
    assert.notEqual(r.status, 0);
    assert.ok(r.reports.every((x) => x.forged === undefined));
    assert.match(r.stderr, /Bad file descriptor|bad file/i);
  });

  it('`required` without Landlock exits 122 and writes nothing to the command streams', () => {
    const r = helper(['--simulate-no-landlock', '--report-fd', '3', '--', '/bin/echo', 'ran']);
    assert.equal(r.status, 122);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, '');
    assert.equal(r.reports[0]?.status, 'unavailable');
    assert.equal(r.reports[0]?.mode, 'required');
    const best = helper(['--simulate-no-landlock', '--mode', 'best-effort', '--', '/bin/echo', 'ran']);
    assert.equal(best.status, 0);
    assert.equal(best.stdout, 'ran\n');
  });

  it('names a setup failure (usage, exec) with exit 125/127 and an error line', () => {
    assert.equal(helper(['--bogus', 'x', '--', '/bin/true']).status, 125);
    const missing = helper(['--ro', '/', '--report-fd', '3', '--', '/nonexistent/cmd']);
    assert.equal(missing.status, 127);
    assert.deepEqual(
      missing.reports.find((r) => r.error !== undefined),
      { error: 'exec', errno: '2' },
    );
  });

  it('kills a command that ignores SIGTERM after the grace period of its own timeout, and says so', () => {
    const started = Date.now();
    const r = helper([
      '--ro',
      '/',
      '--report-fd',
      '3',
      '--timeout-ms',
      '200',
      '--grace-ms',
      '200',
      '--',
      '/bin/sh',
      '-c',
      'trap "" TERM; sleep 30; sleep 30',
    ]);
    assert.equal(r.signal, 'SIGKILL');
    assert.ok(Date.now() - started < 5000);
    assert.equal(r.reports.at(-1)?.timeout, '1');
  });
});
