/**
 * toolyard's images, one definition each: the Debian packages of the root filesystem, and what every image
 * shares — /opt/toolyard (a Node runtime + the server bundle), user 65532, the server as entrypoint with the
 * renderer's launch command, the config path the renderer mounts, OCI labels. `npm run images` builds them
 * without Docker (images/src/), and the Dockerfiles under images/<name>/ are generated from the same
 * definitions (`npm run gen`), so the two ways of building cannot drift apart.
 */
import {
  DEFAULT_WORKSPACE_MOUNT_PATH,
  PATHS,
  RUN_AS_ID,
  TOOLYARD_IMAGE_PREFIX,
} from '../constructs/src/defaults.ts';
import { TOOLCHAIN_CONFIG_FILE } from '../constructs/src/toolchain-config.ts';
import { BROKER_BUNDLE_FILE, BROKER_CMD, brokerCommand } from '../toolchain-server/broker/launch.ts';
import { SANDBOX_MANAGER_CONFIG_PATH } from '../toolchain-server/sandbox-manager/constants.ts';
import {
  SANDBOX_MANAGER_BUNDLE_FILE,
  sandboxManagerCommand,
  serverCommand,
} from '../toolchain-server/src/launch.ts';

/**
 * The architectures of every image: one OCI image index per image, with a manifest for each. Root filesystems for
 * a foreign architecture are built under qemu-user (binfmt_misc), Node comes from the npm registry per
 * architecture, and the server bundle is the same JavaScript in every one.
 */
export const ARCHITECTURES = ['amd64', 'arm64'] as const;
export type Architecture = (typeof ARCHITECTURES)[number];

/** Debian release of every image: the current stable, for current language toolchains from Debian itself. */
export const DEBIAN_SUITE = 'trixie';

/**
 * dpkg options of Debian's own slim images: path filters (docs, man pages, locales left out; copyright files
 * kept), so that an image built here and its Dockerfile on `debian:<suite>-slim` hold the same files, and
 * unsafe I/O (no fsync per unpacked file: a build that fails is thrown away anyway), which the slim images also
 * set and which makes unpacking several times faster.
 */
export const SLIM_DPKG_FILTERS = [
  'force-unsafe-io',
  'path-exclude=/usr/share/doc/*',
  'path-include=/usr/share/doc/*/copyright',
  'path-exclude=/usr/share/man/*',
  'path-exclude=/usr/share/info/*',
  'path-exclude=/usr/share/locale/*',
  'path-exclude=/usr/share/lintian/*',
] as const;

/** The account the images run as: the uid/gid of every generated container, with a home and a workspace. */
export const IMAGE_USER = {
  name: 'toolyard',
  id: RUN_AS_ID,
  home: PATHS.home,
  workspace: DEFAULT_WORKSPACE_MOUNT_PATH,
} as const;

/** Shell commands run as root in the finished root filesystem (a mmdebstrap hook; a Dockerfile RUN). */
export const ACCOUNT_SETUP = [
  `groupadd --gid ${IMAGE_USER.id} ${IMAGE_USER.name}`,
  `useradd --uid ${IMAGE_USER.id} --gid ${IMAGE_USER.id} --home-dir ${IMAGE_USER.home} --shell /usr/sbin/nologin ${IMAGE_USER.name}`,
  `install -d -o ${IMAGE_USER.id} -g ${IMAGE_USER.id} -m 0755 ${IMAGE_USER.home} ${IMAGE_USER.workspace}`,
] as const;

/** Where the server reads its config by default: the path the renderer mounts its ConfigMap at. */
export const DEFAULT_CONFIG_PATH = `${PATHS.toolchainConfigDir}/${TOOLCHAIN_CONFIG_FILE}`;
export const ENTRYPOINT = serverCommand();
export const CMD = ['--config', DEFAULT_CONFIG_PATH] as const;

/** What an image runs from /opt/toolyard: its bundle, entrypoint and default arguments. */
export interface ImageProgram {
  readonly name: 'toolchain-server' | 'toolyard-broker' | 'toolyard-sandbox-manager';
  /** The bundle's path in the repository (`npm run build:server`) and its file name under /opt/toolyard. */
  readonly bundleSource: string;
  readonly bundleFile: string;
  readonly entrypoint: readonly string[];
  readonly cmd: readonly string[];
  /** What the /opt/toolyard layer holds, for the image history. */
  readonly layerDescription: string;
}

export const PROGRAMS = {
  'toolchain-server': {
    name: 'toolchain-server',
    bundleSource: 'toolchain-server/dist/toolchain-server.mjs',
    bundleFile: 'toolchain-server.mjs',
    entrypoint: ENTRYPOINT,
    cmd: CMD,
    layerDescription: 'Node runtime + toolchain server bundle',
  },
  'toolyard-broker': {
    name: 'toolyard-broker',
    bundleSource: `toolchain-server/dist/${BROKER_BUNDLE_FILE}`,
    bundleFile: BROKER_BUNDLE_FILE,
    entrypoint: brokerCommand(),
    cmd: BROKER_CMD,
    layerDescription: 'Node runtime + broker bundle',
  },
  'toolyard-sandbox-manager': {
    name: 'toolyard-sandbox-manager',
    bundleSource: `toolchain-server/dist/${SANDBOX_MANAGER_BUNDLE_FILE}`,
    bundleFile: SANDBOX_MANAGER_BUNDLE_FILE,
    entrypoint: sandboxManagerCommand(),
    cmd: ['--config', SANDBOX_MANAGER_CONFIG_PATH],
    layerDescription: 'Node runtime + sandbox manager bundle',
  },
} as const satisfies Record<string, ImageProgram>;

export type ImageName =
  | 'toolchain-server'
  | 'toolchain-node'
  | 'toolchain-go-python'
  | 'toolchain-rust'
  | 'toolyard-broker'
  | 'toolyard-sandbox-manager';

export interface ImageDefinition {
  readonly name: ImageName;
  readonly title: string;
  readonly description: string;
  /** Debian packages beyond the minbase variant (what `debian:<suite>-slim` holds). */
  readonly packages: readonly string[];
  /** Image environment beyond PATH and HOME. */
  readonly env: Readonly<Record<string, string>>;
  /** Commands the image test runs through the server's exec_allowed tool, each printing a version. */
  readonly versionCommands: readonly (readonly string[])[];
  /** What the image runs. Default: the toolchain server. */
  readonly program?: keyof typeof PROGRAMS;
  /**
   * Tools taken from their pinned PyPI wheels (release/src/pypi-tools.ts) into /usr/local/bin, a layer of their
   * own: uv and ruff, which Debian does not package.
   */
  readonly pypiTools?: readonly PypiToolName[];
}

export type PypiToolName = 'uv' | 'ruff';

/** Where an image's PyPI tools go: on the image's PATH, their wheels' licence files beside them. */
export const PYPI_TOOLS_DIR = '/usr/local/bin';
export const PYPI_LICENSES_DIR = '/usr/local/share/doc';

export function imageProgram(image: ImageDefinition): ImageProgram {
  return PROGRAMS[image.program ?? 'toolchain-server'];
}

/**
 * Version control, builds and TLS roots for registries: in every toolchain image. gawk: the awk the server can run
 * in its --sandbox, so inline awk programs work (Debian's default mawk has none; docs/confinement.md).
 */
const COMMON_TOOLS = ['ca-certificates', 'git', 'make', 'gawk'] as const;

export const IMAGES: readonly ImageDefinition[] = [
  {
    name: 'toolchain-server',
    title: 'toolyard toolchain server',
    description:
      'The toolyard toolchain server: /opt/toolyard (Node runtime + server bundle), copied by the init container into bring-your-own toolchain images.',
    packages: [],
    env: {},
    // coreutils, which the init container's `cp -R` needs (the server's policy refuses `cp --version`).
    versionCommands: [['ls', '--version']],
  },
  {
    name: 'toolchain-node',
    title: 'toolyard Node.js toolchain',
    description: 'Node.js and npm from Debian, git and make, behind the toolyard toolchain server.',
    packages: [...COMMON_TOOLS, 'nodejs', 'npm'],
    env: { npm_config_update_notifier: 'false' },
    // npm runs on the image's node (the server's policy refuses a bare `node --version` as reading stdin).
    versionCommands: [['npm', '--version']],
  },
  {
    name: 'toolchain-go-python',
    title: 'toolyard Go and Python toolchain',
    description:
      'Go, Python 3 and pytest from Debian, uv and ruff from PyPI, a C toolchain for cgo and extensions, git and make, behind the toolyard toolchain server.',
    packages: [...COMMON_TOOLS, 'golang-go', 'gcc', 'libc6-dev', 'python3', 'python3-pytest', 'python3-venv'],
    // The python preset's linter and Astral's package manager: not in Debian, so from their PyPI wheels.
    pypiTools: ['uv', 'ruff'],
    // The image's Go, never a toolchain download that go.mod asks for (toolchains have no egress by default).
    env: { GOTOOLCHAIN: 'local' },
    // pytest's version line proves Python too (the server's policy refuses a bare `python3 --version`).
    versionCommands: [
      ['go', 'version'],
      ['pytest', '--version'],
      ['uv', '--version'],
      ['ruff', '--version'],
    ],
  },
  {
    name: 'toolchain-rust',
    title: 'toolyard Rust toolchain',
    description:
      'rustc, cargo, rustfmt and clippy from Debian, git and make, behind the toolyard toolchain server.',
    packages: [...COMMON_TOOLS, 'cargo', 'rustc', 'rustfmt', 'rust-clippy'],
    env: {},
    versionCommands: [
      ['cargo', '--version'],
      ['rustc', '--version'],
    ],
  },
  {
    name: 'toolyard-broker',
    title: 'toolyard broker',
    description:
      "The toolyard broker: an agent's model and gateway routes (keys held here alone) and its CONNECT proxy for egress by name.",
    // Upstream TLS is verified against Node's bundled roots (plus the config's extraCaFile): no Debian CA store.
    packages: [],
    env: {},
    versionCommands: [],
    program: 'toolyard-broker',
  },
  {
    name: 'toolyard-sandbox-manager',
    title: 'toolyard sandbox manager',
    description:
      "The toolyard sandbox manager: an agent's sandboxes (warm pools, sessions, lifecycle, quotas) as MCP tools, the only holder of Kubernetes authority over them.",
    // The API server's CA comes from the ServiceAccount mount: no Debian CA store.
    packages: [],
    env: {},
    versionCommands: [],
    program: 'toolyard-sandbox-manager',
  },
];

export const IMAGE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The environment of an image's config (and its Dockerfile's ENV). */
export function imageEnv(image: ImageDefinition): Record<string, string> {
  return { PATH: IMAGE_PATH, HOME: IMAGE_USER.home, ...image.env };
}

export function imageRepository(image: ImageDefinition): string {
  return `${TOOLYARD_IMAGE_PREFIX}/${image.name}`;
}

export function imageNamed(name: string): ImageDefinition {
  const image = IMAGES.find((candidate) => candidate.name === name);
  if (!image) throw new Error(`unknown image "${name}"; images: ${IMAGES.map((i) => i.name).join(', ')}`);
  return image;
}

export interface ImageMetadata {
  readonly version: string;
  /** Commit the image was built from (`org.opencontainers.image.revision`); none for a label-less build. */
  readonly revision: string | undefined;
  /** Repository URL (`org.opencontainers.image.source`). */
  readonly source: string;
  /** RFC 3339 time of the commit: the image's `created`, so a rebuild of the same commit is identical. */
  readonly created: string;
  readonly license: string;
}

/** OCI annotation keys used as image labels (opencontainers image-spec, annotations.md). */
export function imageLabels(image: ImageDefinition, meta: ImageMetadata): Record<string, string> {
  return {
    'org.opencontainers.image.created': meta.created,
    'org.opencontainers.image.description': image.description,
    'org.opencontainers.image.licenses': meta.license,
    ...(meta.revision ? { 'org.opencontainers.image.revision': meta.revision } : {}),
    'org.opencontainers.image.source': meta.source,
    'org.opencontainers.image.title': image.title,
    'org.opencontainers.image.version': meta.version,
  };
}
