/**
 * What `validate` accepts, `synth` renders; what it refuses, every command refuses the same way, located and in
 * words (issue 31): a bad `broker.deniedCidrs` used to pass `validate --strict` and then crash `synth` with
 * "internal error … breaks the contract" and a Node stack trace.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { main } from '../../cli/src/main.ts';
import { captureIo } from './capture-io.ts';

const temp = mkdtempSync(join(tmpdir(), 'toolyard-truth-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const spec = (broker: string, apiServer: string) => `apiVersion: toolyard.dev/v1alpha1
kind: Agent
metadata: { name: cidr }
spec:
  backends:
    - name: claude
      type: claude
      image: { repository: ghcr.io/example/claude, tag: "1.2.3" }
      port: 8080
      model: { apiKeySecret: { name: model-credentials, key: api-key } }
  broker:
    deniedCidrs: [${broker}]
  networkPolicy:
    apiServerEgress: { cidrs: [${apiServer}], ports: [443] }
`;

async function run(...argv: string[]) {
  const io = captureIo();
  const code = await main(argv, io);
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

describe('validate is the truth', () => {
  it('a bad broker.deniedCidrs and apiServerEgress CIDRs: validate --strict and synth refuse them alike, located', async () => {
    const file = join(temp, 'bad.yaml');
    writeFileSync(file, spec('"10.0.0.1/33"', '"300.96.0.1/32", "::::/129", "10.96.0.1"'));
    const validate = await run('validate', '--strict', file);
    const out = join(temp, 'dist');
    const synth = await run('synth', file, '-o', out);
    assert.equal(validate.code, 1);
    assert.equal(synth.code, 1);
    assert.equal(existsSync(out), false, 'synth wrote nothing');
    for (const { stderr } of [validate, synth]) {
      assert.match(
        stderr,
        /bad\.yaml:12: \/spec\/broker\/deniedCidrs\/0: the prefix length \/33 is more than an IPv4 address has \(32 bits\)/,
      );
      assert.match(
        stderr,
        /bad\.yaml:14: \/spec\/networkPolicy\/apiServerEgress\/cidrs\/0: 300 in "300\.96\.0\.1" is not an IPv4 octet/,
      );
      assert.match(stderr, /\/cidrs\/1: "::::" is not an IPv6 address/);
      assert.match(
        stderr,
        /\/cidrs\/2: "10\.96\.0\.1" has no prefix length\n {2}hint: a CIDR is an address and a prefix length: write "10\.96\.0\.1\/32"/,
      );
      assert.doesNotMatch(stderr, /internal error|breaks the contract|\n\s+at |does not match \^/);
    }
    // Both list the same problems.
    const problems = (text: string) => text.split('\n').filter((l) => l.includes('bad.yaml:'));
    assert.deepEqual(problems(synth.stderr), problems(validate.stderr));
  });

  it('host bits in deniedCidrs are refused with both ways to write it (the broker needs none)', async () => {
    const file = join(temp, 'host-bits.yaml');
    writeFileSync(file, spec('"10.0.0.1/8"', '"10.96.0.0/12"'));
    const validate = await run('validate', file);
    assert.equal(validate.code, 1);
    assert.match(
      validate.stderr,
      /\/spec\/broker\/deniedCidrs\/0: "10\.0\.0\.1\/8" has bits set after its \/8 prefix\n {2}hint: write "10\.0\.0\.0\/8" for the range, or "10\.0\.0\.1\/32" for this one address/,
    );
  });

  it('the control: the same spec with good CIDRs validates and renders', async () => {
    const file = join(temp, 'good.yaml');
    writeFileSync(file, spec('"10.0.0.0/8", "fd00::/8"', '"10.96.0.0/12", "2001:db8::/32"'));
    assert.equal((await run('validate', '--strict', file)).code, 0);
    const synth = await run('synth', file, '-o', join(temp, 'good-dist'));
    assert.equal(synth.code, 0, synth.stderr);
    assert.ok(existsSync(join(temp, 'good-dist', 'cidr.k8s.yaml')));
  });
});
