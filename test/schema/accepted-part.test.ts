/** What the schema accepts of an invalid document, and how its pointers lead back to the original. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceptedPart } from '../../schema/src/accepted-part.ts';
import { schemaErrors } from '../../schema/src/validator.ts';

const backend = (name: string, port: number, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'claude',
  image: { repository: 'ghcr.io/example/claude', tag: '1' },
  port,
  ...extra,
});
const agent = (spec: Record<string, unknown>) => ({
  apiVersion: 'toolyard.dev/v1alpha1',
  kind: 'Agent',
  metadata: { name: 'a' },
  spec,
});
const accept = (document: unknown) => acceptedPart(document, schemaErrors(document));

describe('acceptedPart', () => {
  it('drops an unknown field alone, and keeps the rest', () => {
    const part = accept(agent({ backends: [backend('c', 8080, { evn: {} })] }));
    assert.deepEqual(part?.removed, ['/spec/backends/0/evn']);
    assert.deepEqual(part?.agent.spec.backends[0], backend('c', 8080));
  });

  it('drops the whole list entry holding any other problem, and maps later entries back', () => {
    const document = agent({
      backends: [
        backend('a', 8080, { type: 'cluade' }),
        backend('b', 8081, {
          secretEnv: [
            { name: 'X', secretName: 's' },
            { name: 'Y', secretName: 's', key: 'k' },
          ],
        }),
      ],
    });
    const part = accept(document);
    assert.deepEqual([...(part?.removed ?? [])].sort(), ['/spec/backends/0', '/spec/backends/1/secretEnv/0']);
    assert.deepEqual(
      part?.agent.spec.backends.map((b) => b.name),
      ['b'],
    );
    assert.equal(
      part?.originalPointer('/spec/backends/0/secretEnv/0/name'),
      '/spec/backends/1/secretEnv/1/name',
    );
    assert.equal(part?.originalPointer('/metadata/name'), '/metadata/name');
    // The original document is left as it was.
    assert.equal((document.spec['backends'] as unknown[]).length, 2);
  });

  it('accepts nothing when the root would have to go', () => {
    assert.equal(accept(agent({ backends: [backend('a', 99999)] })), undefined);
    assert.equal(accept({ kind: 'Agent' }), undefined);
    const badName = { ...agent({ backends: [backend('a', 8080)] }), metadata: { name: 'Bad Name' } };
    assert.equal(accept(badName), undefined);
  });

  it('removes a rejected value outside list entries, and its parent when that leaves it incomplete', () => {
    const part = accept(
      agent({
        backends: [backend('a', 8080)],
        workspace: { mountPath: 'relative', volume: { emptyDir: 3 } },
      }),
    );
    assert.ok(part);
    assert.deepEqual(part.removed, [
      '/spec/workspace/mountPath',
      '/spec/workspace/volume/emptyDir',
      '/spec/workspace/volume',
    ]);
    assert.deepEqual(part.agent.spec.workspace, {});
  });
});
