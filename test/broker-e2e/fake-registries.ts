/**
 * Package registries as the real package managers speak to them, each serving one tiny package generated at
 * test time (tar and gzip by `tar`, zips by Python's zipfile), with the checksums the clients verify:
 * - npm: a packument at `/<name>` and its tarball (`integrity` sha512);
 * - PyPI: a PEP 503 simple index at `/simple/<name>/` (on pypi.org) linking a wheel on files.pythonhosted.org
 *   (`#sha256=`);
 * - crates.io: a sparse index (`/config.json`, `/<aa>/<bb>/<name>`) on index.crates.io and the `.crate` on
 *   static.crates.io (`cksum` sha256);
 * - Go: a module proxy (`/<module>/@v/list`, `.info`, `.mod`, `.zip`) on proxy.golang.org.
 * Each is a route table served by `startFakeApi` on its own upstream site, so requests are recorded.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type FakeApi, type FakeApiListener, startFakeApi } from '../backends/fake-model.ts';

export interface StaticFile {
  readonly type: string;
  readonly body: Buffer | string;
}

/** Serves a fixed table of paths (query ignored); anything else is a recorded 404. */
export function startStaticSite(
  files: ReadonlyMap<string, StaticFile>,
  listener: FakeApiListener,
): Promise<FakeApi> {
  return startFakeApi((request, _body, response) => {
    const file = files.get((request.url ?? '').split('?')[0] ?? '');
    if (request.method !== 'GET' || !file) return false;
    response.writeHead(200, { 'content-type': file.type, 'content-length': Buffer.byteLength(file.body) });
    response.end(file.body);
    return true;
  }, listener);
}

const sha = (algorithm: string, data: Buffer, encoding: 'hex' | 'base64' = 'hex') =>
  createHash(algorithm).update(data).digest(encoding);

/** Writes `files` under `dir/root/` and returns `tar czf` of `root/`. */
function tarball(dir: string, root: string, files: Readonly<Record<string, string>>): Buffer {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, root, path)), { recursive: true });
    writeFileSync(join(dir, root, path), content);
  }
  const out = join(dir, `${root.replace(/\//g, '_')}.tgz`);
  execFileSync('tar', ['-czf', out, '--owner=0', '--group=0', '-C', dir, root]);
  return readFileSync(out);
}

/** A zip of `files` (entry name → content), made by Python's zipfile (python3 is there wherever pip is). */
function zip(dir: string, name: string, files: Readonly<Record<string, string>>): Buffer {
  const out = join(dir, name);
  execFileSync(
    'python3',
    [
      '-c',
      'import json,sys,zipfile\nwith zipfile.ZipFile(sys.argv[1],"w") as z:\n for n,c in json.loads(sys.stdin.read()).items(): z.writestr(n,c)',
      out,
    ],
    { input: JSON.stringify(files) },
  );
  return readFileSync(out);
}

export const NPM_PACKAGE = { name: 'toolyard-e2e-pkg', version: '1.0.0' } as const;

/** The npm registry's two documents for one package, with tarball URLs on `origin`. */
export function npmRegistry(dir: string, origin: string, marker: string): Map<string, StaticFile> {
  const { name, version } = NPM_PACKAGE;
  const tgz = tarball(join(dir, 'npm'), 'package', {
    'package.json': JSON.stringify({ name, version, main: 'index.js' }),
    'index.js': `module.exports = ${JSON.stringify(marker)};\n`,
  });
  const packument = {
    name,
    'dist-tags': { latest: version },
    versions: {
      [version]: {
        name,
        version,
        main: 'index.js',
        dist: {
          tarball: `${origin}/${name}/-/${name}-${version}.tgz`,
          integrity: `sha512-${sha('sha512', tgz, 'base64')}`,
          shasum: sha('sha1', tgz),
        },
      },
    },
  };
  return new Map([
    [`/${name}`, { type: 'application/json', body: JSON.stringify(packument) }],
    [`/${name}/-/${name}-${version}.tgz`, { type: 'application/octet-stream', body: tgz }],
  ]);
}

export const PYPI_PACKAGE = { name: 'toolyard-e2e', module: 'toolyard_e2e', version: '1.0.0' } as const;

/** A PEP 503 index page for pypi.org and the wheel it links, for files.pythonhosted.org. */
export function pypiRegistry(dir: string, marker: string): Map<string, StaticFile> {
  const { name, module, version } = PYPI_PACKAGE;
  const info = `${module}-${version}.dist-info`;
  const wheelName = `${module}-${version}-py3-none-any.whl`;
  const files: Record<string, string> = {
    [`${module}/__init__.py`]: `MARKER = ${JSON.stringify(marker)}\n`,
    [`${info}/METADATA`]: `Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n`,
    [`${info}/WHEEL`]:
      'Wheel-Version: 1.0\nGenerator: toolyard-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
  };
  const record = Object.entries(files).map(
    ([path, content]) =>
      `${path},sha256=${sha('sha256', Buffer.from(content), 'base64').replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')},${Buffer.byteLength(content)}`,
  );
  files[`${info}/RECORD`] = `${[...record, `${info}/RECORD,,`].join('\n')}\n`;
  mkdirSync(join(dir, 'pypi'), { recursive: true });
  const wheel = zip(join(dir, 'pypi'), wheelName, files);
  const path = `/packages/e2/00/${wheelName}`;
  const page = `<!DOCTYPE html><html><body><a href="https://files.pythonhosted.org${path}#sha256=${sha('sha256', wheel)}">${wheelName}</a></body></html>\n`;
  return new Map([
    [`/simple/${name}/`, { type: 'text/html', body: page }],
    [path, { type: 'application/octet-stream', body: wheel }],
  ]);
}

export const CRATE = { name: 'toolyard-e2e', version: '1.0.0' } as const;

/** The sparse index (index.crates.io) and the `.crate` (static.crates.io) of one crate. */
export function cratesRegistry(
  dir: string,
  marker: string,
): {
  index: Map<string, StaticFile>;
  downloads: Map<string, StaticFile>;
} {
  const { name, version } = CRATE;
  const root = `${name}-${version}`;
  const crate = tarball(join(dir, 'crates'), root, {
    'Cargo.toml': `[package]\nname = "${name}"\nversion = "${version}"\nedition = "2021"\n`,
    'src/lib.rs': `pub const MARKER: &str = ${JSON.stringify(marker)};\n`,
  });
  const entry = { name, vers: version, deps: [], cksum: sha('sha256', crate), features: {}, yanked: false };
  return {
    index: new Map([
      [
        '/config.json',
        {
          type: 'application/json',
          body: JSON.stringify({ dl: 'https://static.crates.io/crates', api: 'https://crates.io' }),
        },
      ],
      [
        `/${name.slice(0, 2)}/${name.slice(2, 4)}/${name}`,
        { type: 'text/plain', body: `${JSON.stringify(entry)}\n` },
      ],
    ]),
    downloads: new Map([[`/crates/${name}/${version}/download`, { type: 'application/gzip', body: crate }]]),
  };
}

export const GO_MODULE = { path: 'toolyard.dev/e2e', version: 'v1.0.0' } as const;

/** A GOPROXY serving one module version. */
export function goProxy(dir: string, marker: string): Map<string, StaticFile> {
  const { path, version } = GO_MODULE;
  const mod = `module ${path}\n\ngo 1.19\n`;
  mkdirSync(join(dir, 'go'), { recursive: true });
  const archive = zip(join(dir, 'go'), 'module.zip', {
    [`${path}@${version}/go.mod`]: mod,
    [`${path}@${version}/e2e.go`]: `package e2e\n\nconst Marker = ${JSON.stringify(marker)}\n`,
  });
  const base = `/${path}/@v`;
  return new Map([
    [`${base}/list`, { type: 'text/plain', body: `${version}\n` }],
    [
      `${base}/${version}.info`,
      { type: 'application/json', body: JSON.stringify({ Version: version, Time: '2026-01-01T00:00:00Z' }) },
    ],
    [`${base}/${version}.mod`, { type: 'text/plain', body: mod }],
    [`${base}/${version}.zip`, { type: 'application/zip', body: archive }],
  ]);
}
