/**
 * The spec files of one side of a diff: a directory (a checkout, or the working tree) or a git revision read
 * with git itself (`git ls-tree`, `git cat-file --batch`), never checked out. Paths are relative to the
 * directory, or to the current directory inside the repository for a revision (as git resolves them). A path
 * missing on one side holds no agents there: a change may add or delete a whole directory of specs.
 */
import { execFile, spawn } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import type { SpecError } from '../../../schema/src/load.ts';
import { type SpecSource, unreadable } from '../read-specs.ts';
import { looksLikeSpec, mayBeSpecFile, NO_SPEC_IN_DIRECTORY, specFiles } from '../spec-files.ts';

const run = promisify(execFile);

export type Revision =
  | { readonly kind: 'directory'; readonly root: string; readonly label: string }
  | { readonly kind: 'git'; readonly ref: string; readonly commit: string; readonly label: string };

/** Thrown for a revision that is neither a directory nor a git revision; the message says which it tried. */
export class RevisionError extends Error {}

const isDirectory = (path: string) =>
  stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );

/** `DIR` when such a directory exists, else a git revision of the repository around the current directory. */
export async function resolveRevision(spec: string, cwd: string): Promise<Revision> {
  if (await isDirectory(resolve(cwd, spec)))
    return { kind: 'directory', root: resolve(cwd, spec), label: spec };
  try {
    const { stdout } = await run(
      'git',
      ['rev-parse', '--verify', '--quiet', '--end-of-options', `${spec}^{commit}`],
      {
        cwd,
      },
    );
    return { kind: 'git', ref: spec, commit: stdout.trim(), label: spec };
  } catch {
    throw new RevisionError(
      `"${spec}" is neither a directory nor a git revision of the repository at ${cwd} (git rev-parse found no commit)`,
    );
  }
}

export interface RevisionSources {
  readonly sources: readonly SpecSource[];
  readonly errors: readonly SpecError[];
  /** YAML files below the paths that are not specs, named as `sources` are. */
  readonly ignored: readonly string[];
}

/** The text of every spec file under `paths` in a revision, named relative to it; not yet checked. */
export async function revisionSources(
  revision: Revision,
  paths: readonly string[],
  cwd: string,
): Promise<RevisionSources> {
  const wanted = paths.length > 0 ? paths : ['.'];
  if (revision.kind === 'directory') {
    const present: string[] = [];
    for (const path of wanted) {
      const full = join(revision.root, path);
      if (
        await stat(full).then(
          () => true,
          () => false,
        )
      )
        present.push(full);
    }
    const { files, errors, ignored } = await specFiles(present);
    const name = (file: string) => relative(revision.root, file).split(sep).join('/');
    const sources: SpecSource[] = [];
    const problems: SpecError[] = [];
    for (const file of files) {
      try {
        sources.push({ file: name(file), text: await readFile(file, 'utf8') });
      } catch (error) {
        problems.push(unreadable(`${revision.label}/${name(file)}`, error as NodeJS.ErrnoException));
      }
    }
    // A directory without specs is no error here: the other side may hold the only ones.
    for (const e of errors)
      if (e.message !== NO_SPEC_IN_DIRECTORY)
        problems.push({ ...e, file: `${revision.label}/${name(e.file)}` });
    return { sources, errors: problems, ignored: ignored.map(name) };
  }
  const blobs = new Map<string, string>();
  for (const path of wanted) {
    const { stdout } = await run('git', ['ls-tree', '-r', '-z', revision.commit, '--', path], {
      cwd,
      maxBuffer: 256 * 1024 * 1024,
    });
    for (const entry of stdout.split('\0')) {
      const match = /^\d+ blob ([0-9a-f]+)\t(.*)$/s.exec(entry);
      if (!match) continue;
      const [, object, file] = match as unknown as [string, string, string];
      const prefix = path === '.' ? '' : `${path.replace(/\/+$/, '')}/`;
      const inside = file === path ? file : file.startsWith(prefix) ? file.slice(prefix.length) : file;
      if (file === path || mayBeSpecFile(inside)) blobs.set(file, object);
    }
  }
  const texts = await catBlobs([...blobs.values()], cwd);
  const sources: SpecSource[] = [];
  const ignored: string[] = [];
  for (const [file, object] of blobs) {
    const text = texts.get(object) ?? '';
    if (looksLikeSpec(text)) sources.push({ file, text });
    else ignored.push(file);
  }
  return { sources, errors: [], ignored };
}

/** Blob contents by object id, from one `git cat-file --batch` process. */
async function catBlobs(objects: readonly string[], cwd: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const unique = [...new Set(objects)];
  if (unique.length === 0) return out;
  const child = spawn('git', ['cat-file', '--batch'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
  child.stdin.end(`${unique.join('\n')}\n`);
  if ((await done) !== 0) throw new RevisionError(`git cat-file failed: ${stderr.trim()}`);
  const data = Buffer.concat(chunks);
  let at = 0;
  while (at < data.length) {
    const newline = data.indexOf(10, at);
    const [object = '', type = '', size = '0'] = data.subarray(at, newline).toString().split(' ');
    if (type !== 'blob') throw new RevisionError(`git cat-file: ${object} is ${type || 'missing'}`);
    const start = newline + 1;
    out.set(object, data.subarray(start, start + Number(size)).toString('utf8'));
    at = start + Number(size) + 1;
  }
  return out;
}
