/**
 * The test cluster's processes: each started with its output in a log file of the cluster's directory, known by
 * PID, and stopped in reverse order (SIGTERM, then SIGKILL after a grace period). Every PID is also written to
 * `pids.json` beside this run's PID, so a run killed before it could stop its cluster is cleaned up by the next
 * start (`sweepDeadClusters`), and an `exit` hook kills what is left if this process ends without stopping.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Supervised {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** The last lines of the process's log (for error messages). */
  tail(lines?: number): string;
  /** Resolves when the process has exited (at once if it has). */
  readonly exited: Promise<number | null>;
}

export const CLUSTER_DIR_PREFIX = 'toolyard-cluster-';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

interface PidFile {
  readonly owner: number;
  readonly pids: readonly number[];
}

/** Kills the processes and removes the directories of clusters whose owning run is gone. */
export function sweepDeadClusters(parent: string): void {
  let entries: string[];
  try {
    entries = readdirSync(parent).filter((name) => name.startsWith(CLUSTER_DIR_PREFIX));
  } catch {
    return;
  }
  for (const name of entries) {
    const file = join(parent, name, 'pids.json');
    if (!existsSync(file)) continue;
    let state: PidFile;
    try {
      state = JSON.parse(readFileSync(file, 'utf8')) as PidFile;
    } catch {
      continue;
    }
    if (alive(state.owner)) continue;
    for (const pid of state.pids) killQuietly(pid, 'SIGKILL');
    rmSync(join(parent, name), { recursive: true, force: true });
  }
}

export class ProcessGroup {
  private readonly children: Array<{ child: ChildProcess; supervised: Supervised }> = [];
  private readonly onExit = () => {
    for (const { child } of this.children)
      if (child.pid && child.exitCode === null) killQuietly(child.pid, 'SIGKILL');
  };

  private readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
    process.on('exit', this.onExit);
  }

  private record(): void {
    const state: PidFile = {
      owner: process.pid,
      pids: this.children.map(({ supervised }) => supervised.pid),
    };
    writeFileSync(join(this.dir, 'pids.json'), `${JSON.stringify(state)}\n`);
  }

  start(name: string, command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Supervised {
    const logFile = join(this.dir, `${name}.log`);
    const fd = openSync(logFile, 'a');
    const child = spawn(command, args, {
      cwd: this.dir,
      env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', HOME: this.dir, ...env },
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    if (child.pid === undefined) throw new Error(`${name}: could not start ${command}`);
    const exited = new Promise<number | null>((resolve) => {
      child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : null)));
      child.once('error', () => resolve(null));
    });
    const supervised: Supervised = {
      name,
      pid: child.pid,
      logFile,
      exited,
      tail: (lines = 30) => {
        try {
          return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
        } catch {
          return '';
        }
      },
    };
    this.children.push({ child, supervised });
    this.record();
    return supervised;
  }

  /** Stops every process, last started first: SIGTERM, then SIGKILL after `graceMs`. */
  async stopAll(graceMs = 5000): Promise<void> {
    for (const { child, supervised } of [...this.children].reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      killQuietly(supervised.pid, 'SIGTERM');
      const timer = setTimeout(() => killQuietly(supervised.pid, 'SIGKILL'), graceMs);
      await supervised.exited;
      clearTimeout(timer);
    }
    this.children.length = 0;
    process.off('exit', this.onExit);
  }

  /** Stops one process (and forgets it). */
  async stop(supervised: Supervised, graceMs = 5000): Promise<void> {
    const index = this.children.findIndex((c) => c.supervised === supervised);
    if (index < 0) return;
    const [entry] = this.children.splice(index, 1);
    if (!entry || entry.child.exitCode !== null || entry.child.signalCode !== null) return;
    killQuietly(supervised.pid, 'SIGTERM');
    const timer = setTimeout(() => killQuietly(supervised.pid, 'SIGKILL'), graceMs);
    await supervised.exited;
    clearTimeout(timer);
    this.record();
  }
}
