/**
 * The Node versions the package claims (package.json `engines`): the oldest supported release, fetched from the
 * npm registry's `node-<os>-<arch>` package, and the Node the repository pins. Each gets a PATH whose `node`,
 * `npm` and `npx` are that Node (npm's own CLI script runs under it), so `#!/usr/bin/env node` bins, `npx` and
 * the scripts they start all run on it.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { nodeRuntime, npmCliScript, pinnedNodeVersion } from '../../release/src/node-runtime.ts';
import { REPO_ROOT } from '../support/golden.ts';

export interface NodeUnderTest {
  readonly version: string;
  readonly label: string;
  /** Environment whose PATH starts with this Node's node, npm and npx. */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
}

/** `>=20.19.0` → `20.19.0`: the oldest version the package claims to run on. */
export function minimumNodeVersion(engines: string): string {
  const match = /^>=\s*(\d+\.\d+\.\d+)$/.exec(engines.trim());
  if (!match) throw new Error(`package.json engines.node "${engines}" is not of the form ">=X.Y.Z"`);
  return match[1]!;
}

/**
 * The test's environment without what `npm run` adds for its own scripts (npm_*, INIT_CWD, NODE), which would
 * steer the npm and Node under test. Everything else stays: proxies and CA bundles the registry may need.
 */
function inheritedEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(npm_|INIT_CWD$|NODE$)/i.test(name)),
  );
}

export async function nodesUnderTest(dir: string): Promise<NodeUnderTest[]> {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    engines: { node: string };
  };
  const npmCli = await npmCliScript();
  const versions = [minimumNodeVersion(pkg.engines.node), pinnedNodeVersion(REPO_ROOT)];
  const nodes: NodeUnderTest[] = [];
  for (const version of versions) {
    const runtime = await nodeRuntime(version);
    const bin = join(dir, version, 'bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(runtime.bin, join(bin, 'node'));
    for (const [name, script] of [
      ['npm', npmCli],
      ['npx', join(dirname(npmCli), 'npx-cli.js')],
    ] as const) {
      writeFileSync(join(bin, name), `#!/bin/sh\nexec "${runtime.bin}" "${script}" "$@"\n`);
      chmodSync(join(bin, name), 0o755);
    }
    const path = `${bin}:/usr/local/bin:/usr/bin:/bin`;
    nodes.push({
      version,
      label: `Node ${version}`,
      env: (extra = {}) => ({
        ...inheritedEnv(),
        PATH: path,
        npm_config_update_notifier: 'false',
        ...extra,
      }),
    });
  }
  return nodes;
}

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly output: string;
}

/** Runs `command` (looked up on the Node's PATH) and fails with its output unless `allowFailure`. */
export function runWith(
  node: NodeUnderTest,
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; allowFailure?: boolean },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: node.env(options.env), maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        const result = { code, stdout, output: `${stdout}${stderr}` };
        if (code !== 0 && !options.allowFailure)
          reject(
            new Error(
              `${node.label}: ${command} ${args.join(' ')} exited ${code} in ${options.cwd}:\n${result.output}`,
            ),
          );
        else resolve(result);
      },
    );
  });
}
