/**
 * No Docker engine runs here, so the images are checked as a contract: non-root uid 65532, the /opt/toolyard
 * layout and entrypoint that bundle.test.ts exercises, `cp` available for the init container, and toolchain
 * images built from official language images.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { serverCommand } from '../../toolchain-server/src/launch.ts';

const read = (path: string) =>
  readFileSync(new URL(`../../toolchain-server/${path}`, import.meta.url), 'utf8');
// The entrypoint is the launch command the renderer and the tests use.
const ENTRYPOINT = `ENTRYPOINT [${serverCommand()
  .map((arg) => JSON.stringify(arg))
  .join(', ')}]`;
const CMD = 'CMD ["--config", "/etc/toolyard/config.json"]';

function finalStage(dockerfile: string): string {
  const stages = dockerfile.split(/^FROM /m);
  return `FROM ${stages[stages.length - 1]}`;
}

describe('Dockerfiles', () => {
  it('server image: /opt/toolyard with node + bundle, non-root, cp available, entrypoint as tested', () => {
    const file = read('Dockerfile');
    const last = finalStage(file);
    assert.match(file, /scripts\/bundle\.ts \/opt\/toolyard\/toolchain-server\.mjs/);
    assert.match(file, /cp "\$\(command -v node\)" \/opt\/toolyard\/bin\/node/);
    assert.match(
      last,
      /^FROM docker\.io\/library\/debian:bookworm-slim/,
      'glibc base with coreutils (cp) for the init container',
    );
    assert.match(last, /^COPY --from=build .* \/opt\/toolyard \/opt\/toolyard$/m);
    assert.match(last, /^USER 65532:65532$/m);
    assert.ok(last.includes(ENTRYPOINT));
    assert.ok(last.includes(CMD));
    assert.doesNotMatch(last, /^RUN /m, 'nothing written into the final image at build time beyond the copy');
  });

  for (const [image, base] of [
    ['go-python', /^FROM docker\.io\/library\/golang:\$\{GO_VERSION\}-bookworm$/m],
    ['rust', /^FROM docker\.io\/library\/rust:\$\{RUST_VERSION\}-bookworm$/m],
    ['node', /^FROM docker\.io\/library\/node:\$\{NODE_VERSION\}-bookworm$/m],
  ] as const) {
    it(`${image} toolchain image: official base, server copied in, non-root, same entrypoint`, () => {
      const file = read(`images/${image}/Dockerfile`);
      const last = finalStage(file);
      assert.match(last, base);
      assert.match(last, /^COPY --from=server \/opt\/toolyard \/opt\/toolyard$/m);
      assert.match(last, /^USER 65532:65532$/m);
      assert.ok(last.includes(ENTRYPOINT));
      assert.ok(last.includes(CMD));
      assert.match(last, /HOME=\/tmp\/home/, 'HOME on a writable volume for a read-only root filesystem');
    });
  }
});
