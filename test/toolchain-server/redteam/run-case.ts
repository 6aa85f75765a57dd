/**
 * Runs one red-team case (case.ts) in a lab (lab.ts) through some way of running commands — the server over MCP,
 * or directly for the control — and tells whether its payload bit, and how.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { needsWorkspace, type Planted, type RedCase } from './case.ts';
import { tarArchive } from './fixtures.ts';
import { git, type Lab } from './lab.ts';

/** What one command returned: everything a caller sees (output, error text), as one string. */
export interface Returned {
  readonly text: string;
}

export interface Runner {
  readonly lab: Lab;
  /** Fills @PID@: the server, or (controls) the stand-in. */
  readonly pid: number;
  readonly port: number;
  readonly abstract: string;
  /** The config file @CONFIG@ names. */
  readonly configFile: string;
  run(
    argv: readonly string[],
    cwd: string,
    env: Readonly<Record<string, string>> | undefined,
    home: string,
  ): Promise<Returned>;
  /** Forged lines the server itself printed (none for controls). */
  forgedInServer(id: string): boolean;
  /** The HOME a case's calls get (@HOME@): one for every call of a server, one per case for controls. */
  homeOf(c: RedCase): string;
  /** How long a leftover gets to die before it counts as surviving. */
  readonly survivorGraceMs: number;
  /** Fills @SPAWNER@: the server's resident spawner once it runs, or (controls) the stand-in. */
  spawnerPid(): number;
  /** The listeners outside every call (@TCP@ …) and whether one received bytes naming a case. */
  readonly listeners: Listeners;
}

/** Ports and socket paths of listeners outside every call. */
export interface Listeners {
  readonly tcp: number;
  readonly tcp6: number;
  readonly udp: number;
  readonly udp6: number;
  readonly unixStream: string;
  readonly unixDgram: string;
  /** Whether any listener received `text`. */
  reached(text: string): boolean;
}

export interface Outcome {
  readonly bit: boolean;
  /** What showed the bite (or that none happened), for the assertion message. */
  readonly detail: string;
}

export function caseDir(lab: Lab, c: RedCase): string {
  if (c.atRoot) return lab.root;
  return c.inSub ? join(lab.root, 'sub') : join(lab.root, 'cases', c.id);
}

export function fill(text: string, c: RedCase, r: Runner): string {
  const dir = caseDir(r.lab, c);
  return text
    .replaceAll('@MARK@', join(r.lab.outside, `pwned-${c.id}`))
    .replaceAll('@ID@', c.id)
    .replaceAll('@CASE@', dir)
    .replaceAll('@ROOT@', r.lab.root)
    .replaceAll('@OUT@', r.lab.outside)
    .replaceAll('@TOKEN@', r.lab.tokenFile)
    .replaceAll('@SECRETS@', r.lab.secrets)
    .replaceAll('@CONFIGDIR@', dirname(r.configFile))
    .replaceAll('@CONFIGNAME@', basename(r.configFile))
    .replaceAll('@CONFIG@', r.configFile)
    .replaceAll('@PID@', String(r.pid))
    .replaceAll('@STAND@', String(r.lab.stand.pid))
    .replaceAll('@PORT@', String(r.port))
    .replaceAll('@ABSTRACT@', r.abstract)
    .replaceAll('@HOME@', r.homeOf(c))
    .replaceAll('@NONCE@', r.lab.nonce)
    .replaceAll('@SHMID@', String(r.lab.shmId))
    .replace(/@SPAWNER@/g, () => String(r.spawnerPid()))
    .replaceAll('@TCP6@', String(r.listeners.tcp6))
    .replaceAll('@TCP@', String(r.listeners.tcp))
    .replaceAll('@UDP6@', String(r.listeners.udp6))
    .replaceAll('@UDP@', String(r.listeners.udp))
    .replaceAll('@USOCK@', r.listeners.unixStream)
    .replaceAll('@UDSOCK@', r.listeners.unixDgram);
}

const SPECIAL = /^(\.git-config-append|\.git-config-worktree|\.after-commit\/)/;

function plant(path: string, content: Planted, c: RedCase, r: Runner): void {
  mkdirSync(dirname(path), { recursive: true });
  if (typeof content === 'string') writeFileSync(path, fill(content, c, r));
  else if ('script' in content) {
    writeFileSync(path, fill(content.script, c, r));
    chmodSync(path, 0o755);
  } else
    writeFileSync(path, tarArchive(content.tar.map((m) => ({ name: fill(m.name, c, r), data: m.data }))));
}

/** Plants the case's files, repository, links and outside targets. */
export function prepare(c: RedCase, r: Runner): string {
  const dir = caseDir(r.lab, c);
  mkdirSync(dir, { recursive: true });
  const files = Object.entries(c.files ?? {});
  for (const [name, content] of files)
    if (!SPECIAL.test(name)) plant(join(dir, fill(name, c, r)), content, c, r);
  if (c.repo) {
    git(dir, 'init', '-q', '-b', 'main', '.');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'planted');
    for (const [name, content] of files) {
      if (name === '.git-config-append')
        writeFileSync(
          join(dir, '.git/config'),
          `${readFileSync(join(dir, '.git/config'), 'utf8')}${fill(content as string, c, r)}`,
        );
      else if (name === '.git-config-worktree')
        git(dir, 'config', 'core.worktree', fill(content as string, c, r));
      else if (name.startsWith('.after-commit/'))
        plant(join(dir, name.slice('.after-commit/'.length)), content, c, r);
    }
  }
  for (const [key, content] of Object.entries(c.outside ?? {})) {
    const name = fill(key, c, r);
    const path = isAbsolute(name) ? name : join(r.lab.outside, name);
    if (typeof content === 'string') plant(path, content, c, r);
    else if ('repo' in content) {
      mkdirSync(path, { recursive: true });
      git(path, 'init', '-q', '-b', 'main', '.');
      git(path, 'commit', '-q', '--allow-empty', '-m', 'outside');
    } else mkdirSync(path, { recursive: true });
  }
  for (const [name, target] of Object.entries(c.links ?? {})) {
    const path = join(dir, fill(name, c, r));
    rmSync(path, { recursive: true, force: true });
    mkdirSync(dirname(path), { recursive: true });
    symlinkSync(fill(target, c, r), path);
  }
  return dir;
}

/** A path's state: absent, or its type and content (a directory recursively). */
function state(path: string): string {
  let s: import('node:fs').Stats;
  try {
    s = lstatSync(path);
  } catch {
    return 'absent';
  }
  if (s.isDirectory())
    return `dir[${readdirSync(path)
      .sort()
      .map((e) => `${e}=${state(join(path, e))}`)
      .join(',')}]`;
  if (s.isSymbolicLink()) return 'link';
  return `file:${s.size}:${s.size < 65536 ? readFileSync(path, 'latin1') : s.mtimeMs}`;
}

/** Every regular file under `dir` under 1 MiB, as text. The walk tolerates entries that vanish under it
 *  (another case's build may be removing its temporary files in a directory this case planted). */
function textFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (d: string) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile())
        try {
          if (statSync(p).size < 1 << 20) files.set(p, readFileSync(p, 'latin1'));
        } catch {}
    }
  };
  walk(dir);
  return files;
}

/** What the files under `dir` say (for secrets and proofs a call left behind), but for the files as planted
 *  (`planted`: path → content after prepare). */
function leftText(dir: string, planted: ReadonlyMap<string, string> = new Map()): string {
  let out = '';
  for (const [path, text] of textFiles(dir)) if (planted.get(path) !== text) out += `\n${text}`;
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the case (both calls when it has `then`) and tells whether its payload bit. */
export async function runCase(c: RedCase, r: Runner): Promise<Outcome> {
  const dir = prepare(c, r);
  // Planted as root: the pod's uid, which runs the calls, owns it as it owns the rest of the lab.
  if (needsWorkspace(c)) r.lab.handOver(dir);
  if (c.outside) r.lab.handOver(r.lab.outside);
  const planted = c.atRoot || c.inSub ? new Map<string, string>() : textFiles(dir);
  const effect = c.effect;
  const target = 'outside' in effect ? fill(effect.outside, c, r) : undefined;
  const before = target ? state(target) : '';
  const env = c.env
    ? Object.fromEntries(Object.entries(c.env).map(([k, v]) => [k, fill(v, c, r)]))
    : undefined;
  const returned: string[] = [];
  for (const argv of [c.argv, ...(c.next ? [c.next] : [])])
    returned.push(
      (
        await r.run(
          argv.map((a) => fill(a, c, r)),
          dir,
          env,
          r.homeOf(c),
        )
      ).text,
    );
  const evidence = `${returned.join('\n')}\n${c.atRoot || c.inSub ? '' : leftText(dir, planted)}`;
  const shown = returned.join(' | ').slice(0, 600);
  if (target) {
    const after = state(target);
    return {
      bit: after !== before,
      detail: `${target}: ${before.slice(0, 80)} -> ${after.slice(0, 80)}; returned ${shown}`,
    };
  }
  if ('secret' in effect) {
    const leaked = r.lab.secretsList.find((s) => evidence.includes(s));
    return {
      bit: leaked !== undefined,
      detail: `${leaked ? `leaked ${leaked}` : 'no secret'}; returned ${shown}`,
    };
  }
  if ('proof' in effect) {
    const proof = fill(effect.proof, c, r);
    return { bit: evidence.includes(proof), detail: `proof ${proof}; returned ${shown}` };
  }
  if ('reached' in effect) {
    // A datagram or a connection may land a moment after the call returned.
    const mark = fill('@ID@-@NONCE@', c, r);
    const deadline = Date.now() + 300;
    while (!r.listeners.reached(mark) && Date.now() < deadline) await sleep(20);
    const bit = r.listeners.reached(mark);
    return { bit, detail: `${bit ? 'a' : 'no'} listener outside received ${mark}; returned ${shown}` };
  }
  if ('forged' in effect) {
    const line = `"forged":"${c.id}"`;
    const bit = readFileSync(r.lab.standLog, 'utf8').includes(line) || r.forgedInServer(c.id);
    return { bit, detail: `forged line; returned ${shown}` };
  }
  // A leftover: the payload wrote its pid; it bites when that process still runs after the grace.
  const pidFile = join(dir, 'survivor.pid');
  const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : undefined;
  if (!pid) return { bit: false, detail: `no pid written; returned ${shown}` };
  const deadline = Date.now() + r.survivorGraceMs;
  while (alive(pid) && Date.now() < deadline) await sleep(25);
  const bit = alive(pid);
  try {
    process.kill(pid, 'SIGKILL');
  } catch {}
  return { bit, detail: `pid ${pid} ${bit ? 'survived' : 'died'}; returned ${shown}` };
}

export { needsWorkspace };
