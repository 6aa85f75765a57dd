/**
 * The real agent CLIs (Claude Code, Codex CLI, Gemini CLI) and the MCP Inspector at the exact versions pinned in
 * `test/backends/clis/package.json` + its lockfile, installed from the npm registry into a cache directory
 * outside the repository (keyed by a hash of the manifest and lockfile, so a version bump installs afresh and an
 * unchanged one is reused). Install scripts are skipped (some would compile or download); the one that matters,
 * Claude Code's, which copies its native binary into place, is run explicitly.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MANIFEST_DIR = join(dirname(fileURLToPath(import.meta.url)), 'clis');

export const PINNED = JSON.parse(readFileSync(join(MANIFEST_DIR, 'package.json'), 'utf8'))
  .dependencies as Record<string, string>;

/** Where the pinned set lives: `$TOOLYARD_CACHE_DIR`, `$XDG_CACHE_HOME/toolyard` or `~/.cache/toolyard`. */
export function backendClisDir(): string {
  const hash = createHash('sha256');
  for (const file of ['package.json', 'package-lock.json'])
    hash.update(readFileSync(join(MANIFEST_DIR, file)));
  const cache =
    process.env.TOOLYARD_CACHE_DIR ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'toolyard');
  return join(cache, `backend-clis-${hash.digest('hex').slice(0, 16)}`);
}

/** Entry points inside an install directory. */
export function cliPaths(dir: string) {
  const modules = join(dir, 'node_modules');
  return {
    bin: join(modules, '.bin'),
    claude: join(modules, '.bin', 'claude'),
    codex: join(modules, '.bin', 'codex'),
    gemini: join(modules, '.bin', 'gemini'),
    inspector: join(
      modules,
      '@modelcontextprotocol',
      'inspector',
      'clients',
      'launcher',
      'build',
      'index.js',
    ),
  };
}

/** The CLIs' own `--version` output, which must name the pinned versions. */
function checkVersions(dir: string): void {
  const paths = cliPaths(dir);
  const expect: [string, string][] = [
    [paths.claude, PINNED['@anthropic-ai/claude-code'] as string],
    [paths.codex, PINNED['@openai/codex'] as string],
    [paths.gemini, PINNED['@google/gemini-cli'] as string],
  ];
  for (const [bin, version] of expect) {
    const out = execFileSync(bin, ['--version'], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      timeout: 60_000,
    });
    if (!out.includes(version))
      throw new Error(`${bin} --version printed ${JSON.stringify(out.trim())}, expected ${version}`);
  }
}

/** Installs the pinned set once (atomically: a half-done install never takes the final name) and returns its dir. */
export function installBackendClis(log: (line: string) => void = () => {}): string {
  const dir = backendClisDir();
  if (existsSync(join(dir, '.complete'))) return dir;
  mkdirSync(dirname(dir), { recursive: true });
  const staging = mkdtempSync(`${dir}.staging-`);
  // Readable by the unprivileged uid the tests run the CLIs as (mkdtemp makes it 0700).
  chmodSync(staging, 0o755);
  try {
    for (const file of ['package.json', 'package-lock.json'])
      copyFileSync(join(MANIFEST_DIR, file), join(staging, file));
    log(
      `installing ${Object.entries(PINNED)
        .map(([n, v]) => `${n}@${v}`)
        .join(', ')} into ${dir}`,
    );
    execFileSync('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: staging,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    // Claude Code's postinstall replaces the bin/claude.exe placeholder with the platform's native binary.
    execFileSync(
      process.execPath,
      [join(staging, 'node_modules', '@anthropic-ai', 'claude-code', 'install.cjs')],
      {
        cwd: join(staging, 'node_modules', '@anthropic-ai', 'claude-code'),
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    checkVersions(staging);
    execFileSync('touch', [join(staging, '.complete')]);
    try {
      renameSync(staging, dir);
    } catch (error) {
      // Another process finished the same install first; its copy is as good as ours.
      if (!existsSync(join(dir, '.complete'))) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

/** The installed directory, or an error that says how to install it. */
export function requireBackendClis(): string {
  const dir = backendClisDir();
  if (!existsSync(join(dir, '.complete')))
    throw new Error(
      `the backend CLIs are not installed in ${dir}; run: npm run backend-clis (npm test does)`,
    );
  return dir;
}
