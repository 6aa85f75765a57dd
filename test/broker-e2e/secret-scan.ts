/**
 * Run inside a backend container, as its uid, while the CLI runs: looks for credentials everywhere the
 * container's own processes could. Reads `{ "secrets": { label: value }, "skip": [dirs], "root"?, "procs"? }`
 * on stdin (never argv or env, which other processes can read), then searches
 * - every regular file under `root` (default `/`) it can read, except /proc, /sys, /dev and the `skip` dirs
 *   (the stand-in image: the host's read-only system directories, which cannot hold a value made at test
 *   time);
 * - unless `procs` is false, `/proc/<pid>/environ` and `/proc/<pid>/cmdline` of every process it can read
 *   (its own excluded).
 * Run on the host as root with `root` = `/proc/<pid>/root`, it searches the files of that process's mount
 * namespace, readable or not by the container's uid.
 * Prints one JSON line: `{ found: [{ label, path }], files, processes, environs }`.
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const input = JSON.parse(readFileSync(0, 'utf8')) as {
  secrets: Record<string, string>;
  skip: string[];
  root?: string;
  procs?: boolean;
};
const root = input.root ?? '/';
const secrets = Object.entries(input.secrets).map(([label, value]) => [label, Buffer.from(value)] as const);
const skip = new Set(['/proc', '/sys', '/dev', ...input.skip].map((dir) => join(root, dir)));
const found: { label: string; path: string }[] = [];
let files = 0;
let processes = 0;
let environs = 0;

function check(path: string, data: Buffer): void {
  for (const [label, value] of secrets)
    if (data.includes(value))
      found.push({ label, path: path.slice(root.length - (root.endsWith('/') ? 1 : 0)) });
}

function walk(dir: string): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry);
    if (skip.has(path)) continue;
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    if (stat.isDirectory()) walk(path);
    else if (stat.isFile()) {
      try {
        check(path, readFileSync(path));
        files++;
      } catch {
        // unreadable for this uid: nothing this container can learn from it
      }
    }
  }
}

walk(root);
const pids = input.procs === false ? [] : readdirSync('/proc').filter((name) => /^\d+$/.test(name));
for (const pid of pids) {
  if (Number(pid) === process.pid) continue;
  processes++;
  for (const file of ['environ', 'cmdline']) {
    try {
      check(`/proc/${pid}/${file}`, readFileSync(`/proc/${pid}/${file}`));
      if (file === 'environ') environs++;
    } catch {
      // another uid's process
    }
  }
}
process.stdout.write(`${JSON.stringify({ found, files, processes, environs })}\n`);
