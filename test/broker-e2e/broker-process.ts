/**
 * The real `toolyard-broker` (from the checkout's sources, as `bin/toolyard-broker.mjs` runs it there) in the
 * broker's network namespace, in a private mount namespace whose /etc/hosts maps the upstream names to the
 * upstream namespace's addresses: the broker's own `dns.lookup` finds them there, as it would ask cluster DNS.
 * Its stdout is parsed as JSON lines (the `listening` event, then one audit line per request or tunnel).
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/golden.ts';
import type { BrokerTopology } from './topology.ts';

export const BROKER_ENTRY = join(REPO_ROOT, 'toolchain-server', 'bin', 'toolyard-broker.js');

export type AuditLine = Readonly<Record<string, unknown>>;

export interface BrokerProcess {
  readonly port: number;
  /** Every JSON line the broker printed, in order. */
  readonly lines: AuditLine[];
  /** Its stdout and stderr as text, for failure messages (never holds a key: the test checks that). */
  output(): string;
  /** Audit lines of requests and tunnels (those with a `decision`). */
  audit(): AuditLine[];
  stop(): Promise<void>;
}

export function brokerMissing(): string | undefined {
  return existsSync(BROKER_ENTRY)
    ? undefined
    : `no broker at ${BROKER_ENTRY} (branch broker-server not merged)`;
}

export async function startBroker(
  topology: BrokerTopology,
  config: unknown,
  dir: string,
): Promise<BrokerProcess> {
  const configFile = join(dir, 'broker-config.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const hostsFile = join(dir, 'broker-hosts');
  writeFileSync(hostsFile, `${['127.0.0.1 localhost', ...topology.brokerHosts()].join('\n')}\n`);
  const argv = topology.namespaces.exec('broker', [
    'unshare',
    '--mount',
    '--propagation',
    'private',
    'sh',
    '-c',
    'mount --bind "$0" /etc/hosts && exec "$@"',
    hostsFile,
    process.execPath,
    BROKER_ENTRY,
    '--config',
    configFile,
    '--shutdown-grace-seconds',
    '1',
  ]);
  const child = spawn(argv[0] as string, argv.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: '/usr/bin:/bin', NODE_NO_WARNINGS: '1' },
  });
  const lines: AuditLine[] = [];
  let stdout = '';
  let stderr = '';
  let pending = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the broker did not start:\n${stdout}\n${stderr}`)),
      20_000,
    );
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.stdout.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      stdout += text;
      pending += text;
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const part of parts) {
        if (!part.trim()) continue;
        try {
          const line = JSON.parse(part) as AuditLine;
          lines.push(line);
          if (line['event'] === 'listening') {
            clearTimeout(timer);
            resolve(Number(line['port']));
          }
        } catch {
          // not JSON: kept in stdout for the failure message
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the broker exited ${code} before listening:\n${stdout}\n${stderr}`));
    });
  });
  return {
    port,
    lines,
    output: () => `${stdout}\n${stderr}`,
    audit: () => lines.filter((line) => 'decision' in line),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
