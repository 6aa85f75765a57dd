/**
 * The chart's instructions say what `explain` and docs/broker.md say (issue 31): the broker-tokens Secret holds
 * one random token per caller — never one token copied to every backend, which would let any container use
 * another's routes and egress — with exactly the callers `explain` lists; toolchain tokens are random too;
 * and NOTES.txt describes toolchain egress in the spec's words, not the renderer's old "registries".
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { generateChart } from '../../chart-generator/src/generate.ts';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import { explainAgent } from '../../constructs/src/explain.ts';
import { renderAgent } from '../../constructs/src/render.ts';
import { exampleFiles, REPO_ROOT } from '../support/golden.ts';

/** `--from-literal=<key>=<value>` pairs of the `create secret` line for `secret` in `text`. */
function literals(text: string, secret: string): Map<string, string> {
  const line = text.split('\n').find((l) => l.includes('create secret generic') && l.includes(secret));
  assert.ok(line, `a create secret line for ${secret}`);
  return new Map(
    [...line.matchAll(/--from-literal=([^=\s]+)=(\$\([^)]*\)|\S+)/g)].map((m) => [m[1]!, m[2]!]),
  );
}

const examples = exampleFiles().flatMap((file) => {
  const checked = checkSpecText(readFileSync(join(REPO_ROOT, file), 'utf8'), file);
  assert.ok(checked.ok);
  return checked.specs.map((spec) => ({ file, rendered: renderAgent(spec.agent, spec.plan) }));
});

describe('chart instructions', () => {
  for (const { file, rendered } of examples) {
    it(`${file}: README and NOTES create one random broker token per caller, as explain does`, () => {
      const chart = generateChart(rendered);
      const plan = rendered.plan;
      const broker = explainAgent(plan).broker;
      assert.ok(broker, 'the broker is on in every example');
      const explained = [...broker.createTokensCommand.matchAll(/--from-literal=([^=\s]+)=/g)].map(
        (m) => m[1]!,
      );
      for (const doc of ['README.md', 'templates/NOTES.txt']) {
        const text = chart.files.get(doc)!;
        const tokens = literals(text, plan.broker.tokensSecret);
        assert.deepEqual(
          [...tokens.keys()].sort(),
          [...explained].sort(),
          `${doc}: the callers explain lists`,
        );
        for (const [caller, value] of tokens)
          assert.equal(value, '$(openssl rand -hex 32)', `${doc}: ${caller} gets a random token of its own`);
        assert.doesNotMatch(text, /\$TOOLYARD_BROKER_TOKEN/, `${doc}: no token shared through one variable`);
        for (const toolchain of plan.toolchains.filter((t) => t.auth)) {
          const value = literals(text, toolchain.auth!.secret.name).get(toolchain.auth!.secret.key);
          assert.equal(value, '$(openssl rand -hex 32)', `${doc}: toolchain ${toolchain.name}'s token`);
        }
      }
    });

    it(`${file}: NOTES.txt speaks of egress as the spec does`, () => {
      const notes = generateChart(rendered).files.get('templates/NOTES.txt')!;
      assert.doesNotMatch(notes, /egress registries/);
      for (const toolchain of rendered.plan.toolchains) {
        const line = notes
          .split('\n')
          .find((l) => new RegExp(`toolchain ${toolchain.name}(:| in its own pod)`).test(l))!;
        const expected =
          toolchain.namedEgress.kind === 'named'
            ? /egress by name through the broker \(/
            : toolchain.namedEgress.kind === 'none'
              ? /no egress/
              : /open egress/;
        assert.match(line, expected, line);
      }
    });
  }

  it('the control: a chart whose README copied one token to every caller would fail the check', () => {
    const text = 'kubectl create secret generic x-broker-tokens --from-literal=a="$TOOLYARD_BROKER_TOKEN"';
    assert.notEqual(literals(text, 'x-broker-tokens').get('a'), '$(openssl rand -hex 32)');
  });
});
