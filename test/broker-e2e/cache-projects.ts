/**
 * Tiny projects that depend on the one package each fake registry serves (fake-registries.ts), with the
 * lockfiles a repository would commit where the tool verifies against them (npm's integrity, go.sum's h1
 * hashes), and a test that checks the dependency's marker: a build that passes used what the registry served.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CRATE, GO_MODULE, NPM_PACKAGE, PYPI_PACKAGE } from './fake-registries.ts';

/**
 * Project code a fetch tool must not run, each leaving a file named here in its project directory when it runs:
 * cargo's build script and a rustc wrapper named by the project's `.cargo/config.toml`, npm's `preinstall`.
 */
export const PROJECT_CODE_MARKERS = {
  cargo: ['build-rs-ran', 'wrapper-ran'],
  go: [],
  npm: ['preinstall-ran'],
  pip: [],
} as const;

export const MARKERS = {
  cargo: 'crate-marker',
  go: 'go-marker',
  npm: 'npm-marker',
  pip: 'pypi-marker',
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
 * Writes the four projects under `root` (cargo/, go/, npm/, pip/). `npmIntegrity`: the tarball's sha512 SRI.
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
  write(join(root, 'pip'), {
    'requirements.txt': `${PYPI_PACKAGE.name}==${PYPI_PACKAGE.version}\n`,
    'test_marker.py': `import os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), "deps"))\n\nimport ${PYPI_PACKAGE.module}\n\n\ndef test_marker():\n    assert ${PYPI_PACKAGE.module}.MARKER == ${JSON.stringify(MARKERS.pip)}\n`,
  });
}
