/**
 * The output cap holds for what is sent (issue 18's protocol bugs): a stream's kept tail, JSON-escaped and UTF-8
 * encoded, is at most `limits.maxOutputBytes`, so control bytes (six bytes each once escaped) or multi-byte text
 * can no longer make a capped call's response several times the cap.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tailWithinSentBytes } from '../../toolchain-server/src/sent-size.ts';
import { Toolchain } from '../../toolchain-server/src/toolchain.ts';
import { makeConfig, makeWorkspace, type Workspace } from './helpers.ts';

const sent = (text: string) => Buffer.byteLength(JSON.stringify(text), 'utf8') - 2;

describe('tailWithinSentBytes', () => {
  const samples = [
    'plain ascii output\n'.repeat(50),
    '\u0001'.repeat(300),
    'quote " and backslash \\ and tab \t\n'.repeat(20),
    'héllo wörld — ✓ 🚀 '.repeat(40),
    `lone ${'\ud800'} surrogate ${'\udfff'} `.repeat(30),
  ];
  for (const text of samples) {
    it(`keeps the longest tail that fits: ${JSON.stringify(text.slice(0, 24))}…`, () => {
      for (const cap of [1, 7, 64, 500, 4096]) {
        const { text: kept, droppedBytes } = tailWithinSentBytes(text, cap);
        assert.ok(text.endsWith(kept));
        assert.ok(sent(kept) <= cap, `cap ${cap}: sent ${sent(kept)}`);
        const dropped = text.slice(0, text.length - kept.length);
        assert.equal(droppedBytes, Buffer.byteLength(dropped, 'utf8'));
        if (dropped.length > 0) {
          // One more code unit (or pair) would not fit.
          const back =
            /[\udc00-\udfff]$/.test(dropped.slice(-1)) && /[\ud800-\udbff]/.test(dropped.slice(-2, -1))
              ? 2
              : 1;
          assert.ok(
            sent(text.slice(text.length - kept.length - back)) > cap,
            `cap ${cap}: not the longest tail`,
          );
        }
      }
    });
  }

  it('leaves a text that fits untouched', () => {
    assert.deepEqual(tailWithinSentBytes('ok\n', 1024), { text: 'ok\n', droppedBytes: 0 });
  });
});

describe('a call whose output escapes to more than the cap', () => {
  let ws: Workspace;
  let toolchain: Toolchain;
  const cap = 64 * 1024;
  before(() => {
    ws = makeWorkspace();
    // 64 KiB of control bytes on each stream: within the raw cap, six times over it once escaped.
    writeFileSync(
      join(ws.root, 'noisy.sh'),
      "head -c 65536 /dev/zero | tr '\\000' '\\001'\nhead -c 65536 /dev/zero | tr '\\000' '\\002' >&2\n",
    );
    toolchain = new Toolchain({
      config: makeConfig(ws, { limits: { maxOutputBytes: cap } }),
      env: { PATH: process.env.PATH },
      log: () => {},
      probeVersions: false,
    });
  });
  after(() => ws?.cleanup());

  it('sends at most the cap per stream, says it truncated, and counts what it left out', async () => {
    const result = await toolchain.callTool('exec_allowed', { command: ['sh', 'noisy.sh'], cwd: ws.root });
    const out = result.structuredContent as {
      exitCode: number;
      stdout: string;
      stderr: string;
      truncated: boolean;
      stdoutBytes: number;
      stdoutDroppedBytes: number;
      stderrDroppedBytes: number;
    };
    assert.equal(out.exitCode, 0);
    assert.equal(out.stdoutBytes, 65536, 'the process wrote all of it');
    assert.ok(sent(out.stdout) <= cap && sent(out.stderr) <= cap);
    assert.ok(out.truncated);
    assert.equal(out.stdoutDroppedBytes, 65536 - out.stdout.length);
    assert.equal(out.stderrDroppedBytes, 65536 - out.stderr.length);
    const response = Buffer.byteLength(JSON.stringify(result), 'utf8');
    assert.ok(response <= 2 * cap + 8192, `response ${response} bytes (cap ${cap} per stream)`);
  });
});
