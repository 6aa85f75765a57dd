/**
 * One version everywhere: package.json's version is the server's reported version (generated into
 * package-version.generated.ts), the tag of every toolyard image the renderer defaults to, the schema's
 * documented default, and the tag of every toolyard image the examples name.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_TOOLCHAIN_SERVER_IMAGE, TOOLYARD_IMAGE_PREFIX } from '../../constructs/src/defaults.ts';
import { PACKAGE_VERSION } from '../../toolchain-server/src/package-version.generated.ts';
import { SERVER_VERSION } from '../../toolchain-server/src/version.ts';
import { REPO_ROOT } from '../support/golden.ts';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };

describe('package version', () => {
  it('is the server version and the default toolchain server image tag', () => {
    assert.equal(PACKAGE_VERSION, pkg.version);
    assert.equal(SERVER_VERSION, pkg.version);
    assert.equal(DEFAULT_TOOLCHAIN_SERVER_IMAGE.tag, pkg.version);
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'schema', 'agent.schema.json'), 'utf8')) as {
      definitions: { ToolchainServer: { default: { image: { repository: string; tag: string } } } };
    };
    assert.deepEqual(schema.definitions.ToolchainServer.default.image, DEFAULT_TOOLCHAIN_SERVER_IMAGE);
  });

  it('tags every toolyard image the examples use', () => {
    const references = readdirSync(join(REPO_ROOT, 'examples'))
      .filter((name) => name.endsWith('.yaml'))
      .flatMap((name) => [
        ...readFileSync(join(REPO_ROOT, 'examples', name), 'utf8').matchAll(
          /repository: (\S+?),\s*tag: "([^"]+)"/g,
        ),
      ])
      .filter((match) => match[1]!.startsWith(`${TOOLYARD_IMAGE_PREFIX}/`));
    assert.ok(references.length > 0, 'the examples use no toolyard image');
    for (const [text, , tag] of references) assert.equal(tag, pkg.version, text);
  });

  it('the README shows examples/cdk8s-app/main.ts, the file the package test runs in a cdk8s app', () => {
    const main = readFileSync(join(REPO_ROOT, 'examples', 'cdk8s-app', 'main.ts'), 'utf8');
    assert.ok(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').includes(`\`\`\`ts\n${main}\`\`\``));
  });
});
