/**
 * The OCI archives `npm run images` wrote to dist/images/, run for real, on every architecture of their image
 * index: each unpacked with umoci, its entrypoint and command started in its root filesystem with chroot as uid
 * 65532 — arm64 under qemu-user through binfmt_misc —, driven over MCP (initialize, tools/list,
 * describe_toolchain, the language's version commands through exec_allowed). Then injection, per architecture:
 * the server image's /opt/toolyard copied into a minimal Debian root filesystem of that architecture without Node
 * (what the init container does for a stock image: the kubelet pulls the server image for the node's
 * architecture) and started with the renderer's own sidecar command.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import { renderAgent } from '../../constructs/src/render.ts';
import {
  ARCHITECTURES,
  IMAGE_USER,
  IMAGES,
  imageEnv,
  imageProgram,
  imageRepository,
} from '../../images/definitions.ts';
import { debianRootfs } from '../../images/src/rootfs.ts';
import { pypiTool } from '../../release/src/pypi-tools.ts';
import { BROKER_PATHS } from '../../toolchain-server/broker/config.ts';
import { BROKER_CMD, brokerCommand } from '../../toolchain-server/broker/launch.ts';
import { serverCommand } from '../../toolchain-server/src/launch.ts';
import { PACKAGE_VERSION } from '../../toolchain-server/src/package-version.generated.ts';
import { REPO_ROOT } from '../support/golden.ts';
import { rawSession } from '../toolchain-server/process-helpers.ts';
import { startInRootfs, type UnpackedImage, unpackImage, writeConfigInRootfs } from './rootfs-server.ts';

const run = promisify(execFile);
const IMAGES_DIR = join(REPO_ROOT, 'dist', 'images');

interface ToolResult {
  isError?: boolean;
  structuredContent?: { exitCode?: number; stdout?: string; stderr?: string; name?: string };
}

/** Request ids: MCP forbids reusing one within a session, and the server refuses a reused id. */
let nextRequestId = 100;

async function callTool(
  call: Awaited<ReturnType<typeof rawSession>>,
  name: string,
  args: unknown,
): Promise<ToolResult> {
  const response = await call({
    jsonrpc: '2.0',
    id: nextRequestId++,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  const body = (await response.json()) as { result: ToolResult };
  return body.result;
}

/**
 * uv and ruff at work in an image that ships them, as the server's children (uid 65532): each is the pinned
 * release for the image's architecture, ruff lints and checks formatting of a workspace file, uv makes a virtual
 * environment from the image's own Python (offline, no interpreter download) and lists it; what they write is
 * 65532's. uvx (a package runner) is not in the image.
 */
async function pypiToolsAtWork(
  call: Awaited<ReturnType<typeof rawSession>>,
  rootfs: string,
  architecture: string,
): Promise<void> {
  const project = join(rootfs, IMAGE_USER.workspace.slice(1), 'pyproj');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'bad.py'), 'import os\n');
  writeFileSync(join(project, 'good.py'), 'print("hello")\n');
  await run('chown', ['-R', `${IMAGE_USER.id}:${IMAGE_USER.id}`, project]);
  assert.equal(existsSync(join(rootfs, 'usr', 'local', 'bin', 'uvx')), false, 'uvx is in the image');
  for (const name of ['uv', 'ruff'] as const)
    assert.match(
      (await run('file', ['-L', join(rootfs, 'usr', 'local', 'bin', name)])).stdout,
      architecture === 'arm64' ? /ARM aarch64/ : /x86-64/,
      `${name} is the ${architecture} build`,
    );
  const exec = async (command: string[]) => {
    const result = await callTool(call, 'exec_allowed', { command, cwd: 'pyproj' });
    // A refusal has no structured result: its text is what a failure shows.
    const out = result.structuredContent
      ? `${result.structuredContent.stdout ?? ''}${result.structuredContent.stderr ?? ''}`
      : JSON.stringify(result);
    return { ...result, out };
  };
  const versions = await Promise.all(
    (['uv', 'ruff'] as const).map(async (name) => (await exec([name, '--version'])).out),
  );
  assert.match(versions[0]!, new RegExp(`^uv ${pypiTool('uv').version.replaceAll('.', '\\.')}\\b`));
  assert.match(versions[1]!, new RegExp(`^ruff ${pypiTool('ruff').version.replaceAll('.', '\\.')}\\b`));
  const lint = await exec(['ruff', 'check', '--no-cache', '--output-format', 'concise', 'bad.py']);
  assert.equal(lint.structuredContent?.exitCode, 1, lint.out);
  assert.match(lint.out, /bad\.py:1:8: F401/);
  const format = await exec(['ruff', 'format', '--no-cache', '--check', 'good.py']);
  assert.equal(format.structuredContent?.exitCode, 0, format.out);
  const venv = await exec(['uv', 'venv', '--offline', '--no-python-downloads', '--python', '3', '.venv']);
  assert.equal(venv.structuredContent?.exitCode, 0, venv.out);
  assert.match(venv.out, /Using CPython 3\.\d+/);
  const listed = await exec(['uv', 'pip', 'list', '--offline', '--python', '.venv/bin/python']);
  assert.equal(listed.structuredContent?.exitCode, 0, listed.out);
  const owner = await exec(['ls', '-ld', '.venv']);
  assert.match(
    owner.out,
    new RegExp(`^\\S+ \\d+ ${IMAGE_USER.name} ${IMAGE_USER.name} `),
    'uv wrote as 65532',
  );
}

describe('OCI images from npm run images', { timeout: 900_000 }, () => {
  let work: string;
  const unpacked = new Map<string, UnpackedImage>();

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'toolyard-images-'));
    const manifest = JSON.parse(readFileSync(join(IMAGES_DIR, 'images.json'), 'utf8')) as {
      images: {
        name: string;
        archive: string;
        reference: string;
        digest: string;
        platforms: string[];
        sboms: Record<string, string>;
      }[];
    };
    assert.deepEqual(
      manifest.images.map((image) => image.name),
      IMAGES.map((image) => image.name),
      'dist/images/images.json lists every image: run `npm run images`',
    );
    for (const image of IMAGES) {
      const entry = manifest.images.find((candidate) => candidate.name === image.name)!;
      assert.equal(entry.reference, `${imageRepository(image)}:${PACKAGE_VERSION}`);
      assert.deepEqual(
        entry.platforms,
        ARCHITECTURES.map((a) => `linux/${a}`),
      );
      for (const architecture of ARCHITECTURES) {
        const sbom = JSON.parse(readFileSync(join(IMAGES_DIR, entry.sboms[architecture]!), 'utf8')) as {
          packages: { name: string; externalRefs?: { referenceLocator: string }[] }[];
        };
        const purls = sbom.packages.flatMap((p) => p.externalRefs?.map((r) => r.referenceLocator) ?? []);
        assert.ok(
          purls.includes(`pkg:npm/toolyard@${PACKAGE_VERSION}`),
          `${image.name} ${architecture} SBOM`,
        );
        for (const name of image.packages)
          assert.ok(
            purls.some((purl) => purl.startsWith(`pkg:deb/debian/${name}@`)),
            `${image.name} ${architecture} SBOM lists ${name}`,
          );
        assert.ok(
          purls.some((purl) => purl.includes(`?arch=${architecture}&`)),
          `${image.name} ${architecture} SBOM lists ${architecture} packages`,
        );
        for (const name of image.pypiTools ?? []) {
          const { version, wheels } = pypiTool(name);
          assert.ok(
            purls.includes(
              `pkg:pypi/${name}@${version}?file_name=${encodeURIComponent(wheels[architecture].file)}`,
            ),
            `${image.name} ${architecture} SBOM lists ${name} ${version} from its ${architecture} wheel`,
          );
        }
      }
      for (const architecture of ARCHITECTURES)
        unpacked.set(
          `${image.name}/${architecture}`,
          await unpackImage(
            join(IMAGES_DIR, entry.archive),
            join(work, image.name, architecture),
            architecture,
          ),
        );
    }
  });

  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  for (const image of IMAGES.filter((i) => imageProgram(i).name === 'toolyard-broker'))
    for (const architecture of ARCHITECTURES) {
      it(`${image.name} (${architecture}): labels, user, entrypoint; the broker runs as uid 65532 and answers with coded JSON`, async () => {
        const { rootfs, config, tag } = unpacked.get(`${image.name}/${architecture}`)!;
        assert.equal(tag, PACKAGE_VERSION);
        assert.equal(config.architecture, architecture);
        assert.equal(config.config.User, '65532:65532');
        assert.deepEqual(config.config.Entrypoint, brokerCommand());
        assert.deepEqual(config.config.Cmd, [...BROKER_CMD]);
        const tokenFile = `${BROKER_PATHS.callerTokensDir}/claude`;
        mkdirSync(join(rootfs, BROKER_PATHS.callerTokensDir), { recursive: true });
        writeFileSync(join(rootfs, tokenFile), 'image-test-token\n', { mode: 0o644 });
        writeConfigInRootfs(rootfs, BROKER_PATHS.configFile, {
          agent: 'image-test',
          listen: { host: '127.0.0.1', port: 0 },
          health: { host: '127.0.0.1', port: 0 },
          callers: [{ name: 'claude', tokenFile }],
        });
        const broker = await startInRootfs({
          rootfs,
          argv: [...config.config.Entrypoint, ...config.config.Cmd],
          env: config.config.Env,
          user: config.config.User,
        });
        try {
          const response = await fetch(`${broker.url}/anthropic/v1/messages`);
          assert.equal(response.status, 401);
          assert.equal(
            ((await response.json()) as { error: { code: string } }).error.code,
            'TOOLYARD_BROKER_UNAUTHENTICATED',
          );
        } finally {
          await broker.stop();
        }
      });
    }

  for (const image of IMAGES.filter((i) => imageProgram(i).name === 'toolchain-server'))
    for (const architecture of ARCHITECTURES) {
      it(`${image.name} (${architecture}): labels, user, entrypoint; serves MCP as uid 65532 with its language`, async () => {
        const { rootfs, config, tag } = unpacked.get(`${image.name}/${architecture}`)!;
        assert.equal(tag, PACKAGE_VERSION);
        assert.equal(config.architecture, architecture);
        assert.match(
          (await run('file', ['-L', join(rootfs, 'opt', 'toolyard', 'bin', 'node')])).stdout,
          architecture === 'arm64' ? /ARM aarch64/ : /x86-64/,
          'the image carries its architecture’s Node',
        );
        assert.equal(config.config.User, '65532:65532');
        assert.deepEqual(config.config.Entrypoint, serverCommand());
        assert.deepEqual(
          config.config.Env,
          Object.entries(imageEnv(image)).map(([k, v]) => `${k}=${v}`),
        );
        const labels = config.config.Labels;
        assert.equal(labels['org.opencontainers.image.version'], PACKAGE_VERSION);
        assert.match(labels['org.opencontainers.image.revision'] ?? '', /^[0-9a-f]{40}$/);
        assert.match(labels['org.opencontainers.image.source'] ?? '', /^https:\/\//);

        const commands = [...new Set([...image.versionCommands.map((argv) => argv[0]!), 'touch', 'ls'])];
        const [configFlag, configPath] = config.config.Cmd;
        assert.equal(configFlag, '--config');
        writeConfigInRootfs(rootfs, configPath!, {
          name: image.name,
          listen: { host: '127.0.0.1', port: 0 },
          workspaceRoots: [IMAGE_USER.workspace],
          tools: { mode: 'exec', allowedCommands: commands },
          env: { passthrough: ['PATH', 'HOME'] },
        });
        const server = await startInRootfs({
          rootfs,
          argv: [...config.config.Entrypoint, ...config.config.Cmd],
          env: config.config.Env,
          user: config.config.User,
        });
        try {
          const call = await rawSession(server.url);
          const listed = (await (await call({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).json()) as {
            result: { tools: { name: string }[] };
          };
          const names = listed.result.tools.map((tool) => tool.name);
          assert.ok(names.includes('describe_toolchain') && names.includes('exec_allowed'), names.join(', '));
          const described = await callTool(call, 'describe_toolchain', {});
          assert.equal(described.structuredContent?.name, image.name);
          // The confinement helper ships in /opt/toolyard/bin and is found next to the bundle (docs/confinement.md):
          // enforced on a Landlock kernel, `unavailable` under qemu-user (no Landlock syscalls), never missing.
          const ready = (await (await fetch(`${server.url}/readyz`)).json()) as {
            confinement: { status: string };
          };
          assert.notEqual(ready.confinement.status, 'no-helper', JSON.stringify(ready));
          // Whose files the server's children write: the owner `ls -l` shows.
          await callTool(call, 'exec_allowed', { command: ['touch', 'owned-by'] });
          const owner = await callTool(call, 'exec_allowed', { command: ['ls', '-l', 'owned-by'] });
          assert.match(
            owner.structuredContent?.stdout ?? JSON.stringify(owner),
            new RegExp(`^\\S+ \\d+ ${IMAGE_USER.name} ${IMAGE_USER.name} `),
            'the server and its children run as 65532',
          );
          for (const argv of image.versionCommands) {
            const result = await callTool(call, 'exec_allowed', { command: argv });
            assert.equal(
              result.structuredContent?.exitCode,
              0,
              `${argv.join(' ')}: ${JSON.stringify(result)}`,
            );
            const output = `${result.structuredContent?.stdout ?? ''}${result.structuredContent?.stderr ?? ''}`;
            assert.match(output, /\d+\.\d+/, `${argv.join(' ')} printed no version: ${output}`);
          }
          if (image.pypiTools?.length) await pypiToolsAtWork(call, rootfs, architecture);
        } finally {
          await server.stop();
        }
      });
    }

  for (const architecture of ARCHITECTURES)
    it(`injection (${architecture}): the server image’s /opt/toolyard runs in a Debian root filesystem without Node, started with the renderer’s sidecar command`, async () => {
      // A stock image stand-in: Debian bookworm minbase (glibc 2.36, libstdc++6), no Node anywhere.
      const base = await debianRootfs({
        suite: 'bookworm',
        architecture,
        packages: [],
        dpkgFilters: ['force-unsafe-io'],
        setup: [],
      });
      const rootfs = join(work, 'stock', architecture, 'rootfs');
      mkdirSync(rootfs, { recursive: true });
      await run('tar', ['-xf', base.tar, '-C', rootfs]);
      for (const node of ['usr/bin/node', 'usr/bin/nodejs', 'usr/local/bin/node'])
        assert.equal(existsSync(join(rootfs, node)), false, `${node} exists in the stock root filesystem`);
      // What the init container does: cp -R /opt/toolyard/. into the emptyDir mounted at /opt/toolyard.
      cpSync(
        join(unpacked.get(`toolchain-server/${architecture}`)!.rootfs, 'opt', 'toolyard'),
        join(rootfs, 'opt', 'toolyard'),
        {
          recursive: true,
        },
      );

      const spec = readFileSync(join(REPO_ROOT, 'examples', 'polyglot-reviewer.yaml'), 'utf8');
      const checked = checkSpecText(spec, 'polyglot-reviewer.yaml');
      assert.ok(checked.ok);
      const { objects } = renderAgent(checked.specs[0]!.agent);
      type PodSpec = {
        containers: { name: string; image: string; command: string[] }[];
        volumes: { name: string; configMap?: { name: string } }[];
      };
      // The rust toolchain runs in the agent pod or (placement: pod) in a pod of its own: either way, its pod.
      const pods = objects
        .filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet')
        .map((o) => (o as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec);
      const pod = pods.find((p) => p.containers.some((c) => c.image.startsWith('docker.io/library/rust')));
      const sidecar = pod?.containers.find((c) => c.image.startsWith('docker.io/library/rust'));
      assert.ok(sidecar, 'the example injects the server into the stock rust image');
      assert.deepEqual(sidecar.command.slice(0, serverCommand().length), serverCommand());
      const configPath = sidecar.command.at(-1)!;
      const configMapName = pod!.volumes.find((v) => v.name === `${sidecar.name}-config`)?.configMap?.name;
      const configMap = objects.find(
        (o) => o.kind === 'ConfigMap' && o.metadata.name === configMapName,
      ) as unknown as {
        data: Record<string, string>;
      };
      const rendered = JSON.parse(configMap.data['config.json']!) as Record<string, unknown>;
      assert.equal(typeof rendered['name'], 'string', 'the rendered toolchain config');
      writeConfigInRootfs(rootfs, configPath, {
        ...rendered,
        listen: { host: '127.0.0.1', port: 0 },
        health: undefined,
        // Bearer auth and the telemetry export read mounted Secret files (the example enables observability);
        // this test is about the runtime, so it calls without a token and exports nothing.
        auth: undefined,
        telemetry: undefined,
        workspaceRoots: ['/tmp'],
      });
      const server = await startInRootfs({
        rootfs,
        argv: sidecar.command,
        env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'HOME=/tmp'],
        user: `${IMAGE_USER.id}:${IMAGE_USER.id}`,
      });
      try {
        const call = await rawSession(server.url);
        const described = await callTool(call, 'describe_toolchain', {});
        assert.equal(described.structuredContent?.name, rendered['name']);
      } finally {
        await server.stop();
      }
    });
});
