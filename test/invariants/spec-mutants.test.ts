/**
 * `validate` is the truth (issue 31): thousands of seeded mutants of the examples (test/support/spec-mutants.ts).
 * Every mutant `checkSpecText` accepts renders without throwing, explains, becomes a chart, and yields objects
 * that the Kubernetes OpenAPI schemas, the API server's own validation (test/support/api-server-rules.ts) and
 * Pod Security "restricted" accept. Every mutant it refuses gets located problems (file, line, JSON path) in
 * words — no stack trace, no "internal error", no regular expression.
 *
 * TOOLYARD_MUTANTS sets how many run (default 4000), TOOLYARD_SEED the seed; a failure names the mutant's index
 * and edits, and `specMutant(seed, index)` rebuilds it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { generateChart } from '../../chart-generator/src/generate.ts';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import { explainAgent, formatExplainReport } from '../../constructs/src/explain.ts';
import { renderAgent } from '../../constructs/src/render.ts';
import { formatSpecError, type SpecError } from '../../schema/src/load.ts';
import { apiServerProblems } from '../support/api-server-rules.ts';
import { validateKubeObject } from '../support/kubernetes-schema.ts';
import { checkRestricted, podSpecsOf } from '../support/pod-security.ts';
import {
  acceptedMutantManifests,
  MUTANT_SEED,
  type SpecMutant,
  specMutant,
} from '../support/spec-mutants.ts';

const COUNT = Number(process.env['TOOLYARD_MUTANTS'] ?? 4000);
const SEED = Number(process.env['TOOLYARD_SEED'] ?? MUTANT_SEED);

/** What an accepted mutant must never do; empty when it renders, explains, charts and applies. */
function acceptedProblems(
  mutant: SpecMutant,
  specs: Extract<ReturnType<typeof checkSpecText>, { ok: true }>['specs'],
): string[] {
  const problems: string[] = [];
  for (const spec of specs) {
    let rendered: ReturnType<typeof renderAgent>;
    try {
      rendered = renderAgent(spec.agent, spec.plan);
    } catch (error) {
      problems.push(`renderAgent threw: ${(error as Error).message}`);
      continue;
    }
    try {
      formatExplainReport(explainAgent(rendered.plan));
      generateChart(rendered);
    } catch (error) {
      problems.push(`explain or chart threw: ${(error as Error).message}`);
    }
    for (const object of rendered.objects) {
      problems.push(...validateKubeObject(object), ...apiServerProblems(object));
      for (const pod of podSpecsOf(object))
        problems.push(...checkRestricted(pod.podSpec, pod.podMetadata).map((v) => `${pod.where}: ${v}`));
    }
  }
  return problems.map((p) => `mutant ${mutant.index} (${mutant.example}: ${mutant.edits.join('; ')}): ${p}`);
}

/** What a refusal must be: located, in words. */
function refusalProblems(mutant: SpecMutant, errors: readonly SpecError[]): string[] {
  const problems: string[] = [];
  if (errors.length === 0) problems.push('refused without a problem');
  for (const error of errors) {
    const text = formatSpecError(error);
    if (error.file !== mutant.file) problems.push(`names file ${error.file}: ${text}`);
    if (error.line < 1) problems.push(`has no line: ${text}`);
    if (error.path !== '' && !error.path.startsWith('/')) problems.push(`has no JSON path: ${text}`);
    if (error.message.trim() === '') problems.push(`has no message: ${text}`);
    if (/\n\s+at |internal error|breaks the contract/.test(error.message))
      problems.push(`is a crash: ${text}`);
    if (/does not match \^|\$$/.test(error.message)) problems.push(`shows a regular expression: ${text}`);
  }
  return problems.map((p) => `mutant ${mutant.index} (${mutant.example}: ${mutant.edits.join('; ')}): ${p}`);
}

describe('spec mutants: accepted ⇒ renders and applies; refused ⇒ explained', () => {
  it(`${COUNT} mutants of the examples (seed ${SEED})`, () => {
    let accepted = 0;
    let refused = 0;
    const failures: string[] = [];
    for (let index = 0; index < COUNT; index++) {
      const mutant = specMutant(SEED, index);
      let checked: ReturnType<typeof checkSpecText>;
      try {
        checked = checkSpecText(mutant.text, mutant.file);
      } catch (error) {
        failures.push(
          `mutant ${index} (${mutant.edits.join('; ')}): checkSpecText threw: ${(error as Error).stack}`,
        );
        continue;
      }
      if (checked.ok) {
        accepted++;
        failures.push(...acceptedProblems(mutant, checked.specs));
      } else {
        refused++;
        failures.push(...refusalProblems(mutant, checked.errors));
      }
      if (failures.length > 20) break;
    }
    console.log(
      `spec mutants: ${accepted + refused} run (seed ${SEED}): ${accepted} accepted, ${refused} refused`,
    );
    assert.deepEqual(failures, []);
    // A stream that is all refusals (or all acceptances) would prove nothing about the other side.
    assert.ok(accepted >= COUNT * 0.15, `only ${accepted} of ${COUNT} mutants were accepted`);
    assert.ok(refused >= COUNT * 0.15, `only ${refused} of ${COUNT} mutants were refused`);
  });

  it('mutants are deterministic: the same seed and index give the same text', () => {
    for (const index of [0, 17, 999])
      assert.equal(specMutant(SEED, index).text, specMutant(SEED, index).text);
    assert.notEqual(specMutant(SEED, 1).text, specMutant(SEED + 1, 1).text);
  });

  it('the checks can fail: a refusal without a line, a crash and a regex are reported', () => {
    const mutant = specMutant(SEED, 0);
    const bad: SpecError[] = [
      { file: mutant.file, line: 0, path: '/spec', message: 'no line' },
      { file: mutant.file, line: 3, path: '/spec', message: 'internal error: x\n    at y' },
      { file: mutant.file, line: 3, path: '/spec/x', message: '"a" does not match ^[a-z]+$' },
    ];
    const problems = refusalProblems(mutant, bad);
    assert.equal(problems.length, 3, problems.join('\n'));
  });
});

describe('acceptedMutantManifests: a sample for a real API server', () => {
  it('is deterministic, distinct, and every manifest parses', () => {
    const first = acceptedMutantManifests(12);
    const again = acceptedMutantManifests(12);
    assert.equal(first.length, 12);
    assert.deepEqual(
      first.map((m) => m.yaml),
      again.map((m) => m.yaml),
    );
    assert.equal(new Set(first.map((m) => m.yaml)).size, 12);
    for (const manifest of first) {
      const documents = parseAllDocuments(manifest.yaml);
      assert.ok(Array.isArray(documents) && documents.length > 0);
      for (const doc of documents) {
        assert.deepEqual(doc.errors, []);
        const namespace = (doc.toJS() as { metadata: { namespace: string } }).metadata.namespace;
        assert.ok(
          manifest.namespaces.includes(namespace),
          `${namespace} is listed for mutant ${manifest.mutant.index}`,
        );
      }
    }
  });
});
