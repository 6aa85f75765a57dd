/**
 * The real package managers, each asked to fetch the one package its fake registry serves, with nothing but
 * the proxy environment a toolchain container's children get (`HTTPS_PROXY` carrying the caller's name and
 * broker token) and the test CA in each tool's own trust setting (standing in for the public CAs the real
 * registries use). Debian's tools: /usr/bin/npm, python3 -m pip, /usr/bin/go; rustup's current cargo (the
 * machine's default toolchain, mounted into the container at RUST_DIR as a rust image would carry it); and uv,
 * PyPI's pinned wheel (`npm run pypi-tools`), mounted at UV_DIR.
 */
import { existsSync } from 'node:fs';
import { cachedPypiTool } from '../../release/src/pypi-tools.ts';
import { rustToolchain, rustToolchainMissing } from '../support/rust-toolchain.ts';
import { CRATE, GO_MODULE, NPM_PACKAGE, PYPI_PACKAGE } from './fake-registries.ts';

/** Where the tests mount the pinned uv's directory in a container (the image's /usr/local/bin stand-in). */
export const UV_DIR = '/opt/toolyard-test-uv';

/** Where the tests mount rustup's toolchain directory in a container. */
export const RUST_DIR = '/opt/toolyard-test-rust';

/** The host directory of rustup's default toolchain, for a container's mount at RUST_DIR. */
export function rustHostDir(): string | undefined {
  return rustToolchain()?.dir;
}

/** The host directory of the pinned uv, for a container's mount at UV_DIR (undefined until fetched). */
export function uvHostDir(): string | undefined {
  return cachedPypiTool('uv')?.binDir;
}

export interface PackageManager {
  readonly name: 'npm' | 'pip' | 'cargo' | 'go' | 'uv';
  /** Why it cannot run here, or undefined. */
  readonly missing: () => string | undefined;
  /** A shell script run in `work` (a writable directory of the container); exits 0 when the package landed. */
  readonly script: (registry?: string) => string;
  /** Env besides the proxy's: caches and homes under `work`, the CA file in the tool's setting. */
  readonly env: (work: string, caFile: string) => Record<string, string>;
  /** The hosts the fetch needs, for the caller's egress list. */
  readonly hosts: readonly string[];
}

const which = (path: string, apt: string) => () =>
  existsSync(path) ? undefined : `${path} is missing (Debian package ${apt}; .ci/run installs it)`;

export const PACKAGE_MANAGERS: readonly PackageManager[] = [
  {
    name: 'npm',
    missing: which('/usr/bin/npm', 'npm'),
    script: (registry = 'https://registry.npmjs.org/') =>
      `npm install --no-audit --no-fund --no-package-lock --prefix "$PWD/npm-project" --registry ${registry} ${NPM_PACKAGE.name}@${NPM_PACKAGE.version} && test -f npm-project/node_modules/${NPM_PACKAGE.name}/index.js`,
    env: (work, caFile) => ({
      HOME: work,
      npm_config_cache: `${work}/npm-cache`,
      npm_config_update_notifier: 'false',
      NODE_EXTRA_CA_CERTS: caFile,
    }),
    hosts: ['registry.npmjs.org'],
  },
  {
    name: 'pip',
    missing: () =>
      existsSync('/usr/lib/python3/dist-packages/pip')
        ? undefined
        : 'Debian pip is missing (python3-pip; .ci/run installs it)',
    script: (index = 'https://pypi.org/simple/') =>
      `/usr/bin/python3 -m pip download --no-deps --no-cache-dir --disable-pip-version-check --retries 1 --progress-bar off --index-url ${index} -d "$PWD/pip-out" ${PYPI_PACKAGE.name}==${PYPI_PACKAGE.version} && test -f pip-out/${PYPI_PACKAGE.module}-${PYPI_PACKAGE.version}-py3-none-any.whl`,
    env: (work, caFile) => ({ HOME: work, PIP_CERT: caFile, PIP_NO_INPUT: '1' }),
    hosts: ['pypi.org', 'files.pythonhosted.org'],
  },
  {
    name: 'uv',
    missing: () =>
      uvHostDir() ? undefined : 'uv is not fetched (npm run pypi-tools fetches the pinned wheel)',
    script: (index = 'https://pypi.org/simple/') =>
      `uv pip install --python /usr/bin/python3 --no-deps --target "$PWD/uv-out" --index-url ${index} ${PYPI_PACKAGE.name}==${PYPI_PACKAGE.version} && test -f uv-out/${PYPI_PACKAGE.module}/__init__.py`,
    env: (work, caFile) => ({
      PATH: `${UV_DIR}:/usr/local/bin:/usr/bin:/bin`,
      HOME: work,
      UV_CACHE_DIR: `${work}/uv-cache`,
      UV_PYTHON_DOWNLOADS: 'never',
      UV_NO_PROGRESS: '1',
      SSL_CERT_FILE: caFile,
    }),
    hosts: ['pypi.org', 'files.pythonhosted.org'],
  },
  {
    name: 'cargo',
    missing: rustToolchainMissing,
    script: (registry) => {
      const mirror = registry
        ? ` --config 'source.crates-io.replace-with="mirror"' --config 'source.mirror.registry="${registry}"'`
        : '';
      return [
        'mkdir -p cargo-project/src && cd cargo-project',
        `printf '[package]\\nname = "consumer"\\nversion = "0.1.0"\\nedition = "2021"\\n\\n[dependencies]\\n${CRATE.name} = "=${CRATE.version}"\\n' > Cargo.toml`,
        ': > src/lib.rs',
        `cargo fetch${mirror}`,
        `test -d "$CARGO_HOME"/registry/src/*/${CRATE.name}-${CRATE.version}`,
      ].join(' && ');
    },
    env: (work, caFile) => ({
      PATH: `${RUST_DIR}/bin:/usr/local/bin:/usr/bin:/bin`,
      HOME: work,
      CARGO_HOME: `${work}/cargo-home`,
      CARGO_HTTP_CAINFO: caFile,
      CARGO_REGISTRIES_CRATES_IO_PROTOCOL: 'sparse',
      CARGO_NET_RETRY: '0',
      CARGO_TERM_COLOR: 'never',
    }),
    hosts: ['index.crates.io', 'static.crates.io'],
  },
  {
    name: 'go',
    missing: which('/usr/bin/go', 'golang-go'),
    script: (goproxy) =>
      `${goproxy ? `GOPROXY=${goproxy} ` : ''}/usr/bin/go mod download -json ${GO_MODULE.path}@${GO_MODULE.version} && test -f "$GOMODCACHE"/cache/download/${GO_MODULE.path}/@v/${GO_MODULE.version}.zip`,
    env: (work, caFile) => ({
      HOME: work,
      GOPATH: `${work}/go`,
      GOMODCACHE: `${work}/go/pkg/mod`,
      GOCACHE: `${work}/go-cache`,
      GOFLAGS: '-modcacherw',
      GOPROXY: 'https://proxy.golang.org',
      // sum.golang.org's signed tree is not faked: the checksum database is skipped for this one module only.
      GONOSUMDB: GO_MODULE.path,
      GOTOOLCHAIN: 'local',
      SSL_CERT_FILE: caFile,
    }),
    hosts: ['proxy.golang.org'],
  },
];
