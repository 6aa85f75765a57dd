/**
 * Tiny projects that depend on the one package each fake registry serves (fake-registries.ts), with the
 * lockfiles a repository would commit where the tool verifies against them (npm's integrity, go.sum's h1
 * hashes), and a test that checks the dependency's marker: a build that passes used what the registry served.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CRATE, GO_MODULE, NPM_PACKAGE, PYPI_PACKAGE } from './fake-registries.ts';

/**
 * Project code a fetch tool must not run, each leaving a file named here in its project directory when it runs:
 * cargo's build script and a rustc wrapper named by the project's `.cargo/config.toml`, npm's `preinstall`, and
 * the interpreter a uv project's `.python-version` names (a workspace script uv would run to inspect it).
 */
export const PROJECT_CODE_MARKERS = {
  cargo: ['build-rs-ran', 'wrapper-ran'],
  go: [],
  npm: ['preinstall-ran'],
  pip: [],
  uv: ['python-version-ran'],
} as const;

export const MARKERS = {
  cargo: 'crate-marker',
  go: 'go-marker',
  npm: 'npm-marker',
  pip: 'pypi-marker',
  uv: 'pypi-marker',
} as const;

const sha256 = (data: string) => createHash('sha256').update(data).digest();

/** Go's dirhash `h1:` of files (name → content): sha256 over sorted "hex  name\n" lines. */
function goH1(files: Readonly<Record<string, string>>): string {
  const lines = Object.keys(files)
    .sort()
    .map((name) => `${sha256(files[name] as string).toString('hex')}  ${name}\n`)
    .join('');
  return `h1:${sha256(lines).toString('base64')}`;
}

/** The module files exactly as `goProxy` zips them. */
function goModuleFiles(marker: string): Record<string, string> {
  const { path, version } = GO_MODULE;
  return {
    [`${path}@${version}/go.mod`]: `module ${path}\n\ngo 1.19\n`,
    [`${path}@${version}/e2e.go`]: `package e2e\n\nconst Marker = ${JSON.stringify(marker)}\n`,
  };
}

function write(dir: string, files: Readonly<Record<string, string>>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content, { mode: path.endsWith('.sh') ? 0o755 : 0o644 });
  }
}

/**
 * Writes the five projects under `root` (cargo/, go/, npm/, pip/, uv/). `npmIntegrity`: the tarball's sha512 SRI.
 * `projectCode: false` leaves out what only the fetch tests need (PROJECT_CODE_MARKERS): a bench then measures
 * ordinary projects (a per-workspace rustc wrapper would also defeat cargo's reuse of a shared target dir).
 */
export function writeProjects(root: string, npmIntegrity: string, projectCode = true): void {
  const cargoCode = {
    'build.rs':
      'fn main() {\n    std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/build-rs-ran"), "").unwrap();\n}\n',
    '.cargo/config.toml': '[build]\nrustc-wrapper = "./wrapper.sh"\n',
    'wrapper.sh': '#!/bin/sh\n: > "$(dirname "$0")/wrapper-ran"\nexec "$@"\n',
  };
  write(join(root, 'cargo'), {
    ...(projectCode ? cargoCode : {}),
    'Cargo.toml': `[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n${CRATE.name} = "=${CRATE.version}"\n`,
    'src/lib.rs': `#[cfg(test)]\nmod tests {\n    #[test]\n    fn marker() {\n        assert_eq!(toolyard_e2e::MARKER, ${JSON.stringify(MARKERS.cargo)});\n    }\n}\n`,
  });
  const { path, version } = GO_MODULE;
  const files = goModuleFiles(MARKERS.go);
  const mod = files[`${path}@${version}/go.mod`] as string;
  write(join(root, 'go'), {
    'go.mod': `module example.com/app\n\ngo 1.19\n\nrequire ${path} ${version}\n`,
    'go.sum': `${path} ${version} ${goH1(files)}\n${path} ${version}/go.mod ${goH1({ 'go.mod': mod })}\n`,
    'app_test.go': `package app\n\nimport (\n\t"testing"\n\n\t"${path}"\n)\n\nfunc TestMarker(t *testing.T) {\n\tif e2e.Marker != ${JSON.stringify(MARKERS.go)} {\n\t\tt.Fatalf("marker %q", e2e.Marker)\n\t}\n}\n`,
  });
  const { name, version: npmVersion } = NPM_PACKAGE;
  write(join(root, 'npm'), {
    'package.json': JSON.stringify({
      name: 'app',
      version: '1.0.0',
      scripts: { ...(projectCode ? { preinstall: 'node mark.js' } : {}), test: 'node test.js' },
      dependencies: { [name]: npmVersion },
    }),
    'package-lock.json': JSON.stringify({
      name: 'app',
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'app', version: '1.0.0', dependencies: { [name]: npmVersion } },
        [`node_modules/${name}`]: {
          version: npmVersion,
          resolved: `https://registry.npmjs.org/${name}/-/${name}-${npmVersion}.tgz`,
          integrity: npmIntegrity,
        },
      },
    }),
    'mark.js': `require('node:fs').writeFileSync(require('node:path').join(__dirname, 'preinstall-ran'), '');\n`,
    'test.js': `const marker = require(${JSON.stringify(name)});\nif (marker !== ${JSON.stringify(MARKERS.npm)}) throw new Error('marker ' + marker);\nconsole.log('marker ok');\n`,
  });
  // A uv project (not a package: uv installs its dependencies only) whose .python-version names a script in the
  // workspace: uv runs it to inspect it, so the build's `uv sync` leaves its marker, and uv_sync_fetch must not.
  write(join(root, 'uv'), {
    'pyproject.toml': `[project]\nname = "app"\nversion = "0.1.0"\nrequires-python = ">=3.9"\ndependencies = ["${PYPI_PACKAGE.name}==${PYPI_PACKAGE.version}"]\n\n[tool.uv]\npackage = false\n`,
    'check_marker.py': `import ${PYPI_PACKAGE.module}\n\nassert ${PYPI_PACKAGE.module}.MARKER == ${JSON.stringify(MARKERS.uv)}, ${PYPI_PACKAGE.module}.MARKER\nprint("marker ok")\n`,
    ...(projectCode
      ? {
          '.python-version': './tools/python.sh\n',
          'tools/python.sh':
            '#!/bin/sh\n: > "$(dirname "$0")/../python-version-ran"\nexec /usr/bin/python3 "$@"\n',
        }
      : {}),
  });
  write(join(root, 'pip'), {
    'requirements.txt': `${PYPI_PACKAGE.name}==${PYPI_PACKAGE.version}\n`,
    'test_marker.py': `import os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), "deps"))\n\nimport ${PYPI_PACKAGE.module}\n\n\ndef test_marker():\n    assert ${PYPI_PACKAGE.module}.MARKER == ${JSON.stringify(MARKERS.pip)}\n`,
  });
}

/** A PyPI package published as an sdist only, whose setup.py leaves this file in `$PIP_CACHE_DIR` when it runs. */
export const SDIST_PACKAGE = {
  name: 'toolyard-e2e-sdist',
  version: '1.0.0',
  marker: 'sdist-setup-py-ran',
} as const;

/** Its simple-index page (pypi.org) and the `.tar.gz` it links (files.pythonhosted.org), for the PyPI site. */
export function sdistRegistry(dir: string): Map<string, { type: string; body: Buffer | string }> {
  const { name, version, marker } = SDIST_PACKAGE;
  const root = `${name}-${version}`;
  write(join(dir, 'sdist', root), {
    'setup.py': `import os\nfrom setuptools import setup\n\nopen(os.path.join(os.environ.get("PIP_CACHE_DIR", "/nonexistent"), ${JSON.stringify(marker)}), "w").close()\nsetup(name=${JSON.stringify(name)}, version=${JSON.stringify(version)}, py_modules=[])\n`,
  });
  const archive = join(dir, 'sdist', `${root}.tar.gz`);
  execFileSync('tar', ['-czf', archive, '--owner=0', '--group=0', '-C', join(dir, 'sdist'), root]);
  const body = readFileSync(archive);
  const path = `/packages/e2/01/${root}.tar.gz`;
  const page = `<!DOCTYPE html><html><body><a href="https://files.pythonhosted.org${path}#sha256=${createHash('sha256').update(body).digest('hex')}">${root}.tar.gz</a></body></html>\n`;
  return new Map([
    [`/simple/${name}/`, { type: 'text/html', body: page }],
    [path, { type: 'application/gzip', body }],
  ]);
}
