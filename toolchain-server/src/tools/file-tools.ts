/**
 * File tools of a sandbox's server (`sandbox` in the config, docs/sandboxes.md): `read_file`, `write_file` and
 * `list_files` in the workspace, which the sandbox manager turns into upload, download and list for backends.
 * They run in the server process itself, not as confined commands, so every path is checked twice: resolved
 * inside the roots before it is opened, and the opened descriptor's real path (`/proc/self/fd/<n>`) checked again
 * after, so a symbolic link swapped in between (by code the sandbox ran) cannot lead a read or a write out of the
 * workspace. Only regular files are read or written; sizes are capped by `sandbox.maxFileBytes`; nothing is
 * truncated before the descriptor is known to be inside.
 */
import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  writeSync,
} from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { ToolError } from '../errors.ts';
import type { WorkspaceRoots } from '../policy/cwd.ts';
import { toJsonSchema } from './types.ts';

export const FILE_TOOL_NAMES = ['read_file', 'write_file', 'list_files'] as const;
export type FileToolName = (typeof FILE_TOOL_NAMES)[number];

const path = z
  .string()
  .min(1)
  .max(4096)
  .describe('A path relative to the workspace root (or absolute inside it).');

export const readFileInput = z.object({ path }).strict();
export const writeFileInput = z
  .object({
    path,
    content: z.string().optional().describe('The file content as UTF-8 text.'),
    contentBase64: z.string().optional().describe('The file content, base64-encoded (binary files).'),
  })
  .strict();
export const listFilesInput = z
  .object({
    path: path
      .optional()
      .describe('The directory to list, relative to the workspace root. Default: the root.'),
    depth: z.number().int().min(1).max(4).optional().describe('Levels to descend (1-4). Default 1.'),
  })
  .strict();

const readOutput = z.object({
  path: z.string(),
  size: z.number().int(),
  contentBase64: z.string(),
  text: z.string().nullable().describe('The content as text when it is valid UTF-8, else null.'),
});
const writeOutput = z.object({ path: z.string(), size: z.number().int() });
const listOutput = z.object({
  path: z.string(),
  entries: z.array(
    z.object({
      path: z.string(),
      type: z.enum(['file', 'directory', 'symlink', 'other']),
      size: z.number().int().nullable(),
    }),
  ),
  truncated: z.boolean(),
});

/** Most entries one `list_files` returns. */
export const MAX_LIST_ENTRIES = 2000;

export interface FileToolListing {
  readonly name: FileToolName;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: { type: 'object'; [key: string]: unknown };
  readonly outputSchema: { type: 'object'; [key: string]: unknown };
  readonly annotations: {
    readonly title: string;
    readonly readOnlyHint: boolean;
    readonly openWorldHint: boolean;
  };
}

function listing(
  name: FileToolName,
  title: string,
  description: string,
  input: z.ZodType,
  output: z.ZodType,
  readOnly: boolean,
): FileToolListing {
  return {
    name,
    title,
    description,
    inputSchema: toJsonSchema(input, 'input') as FileToolListing['inputSchema'],
    outputSchema: toJsonSchema(output, 'output') as FileToolListing['outputSchema'],
    annotations: { title, readOnlyHint: readOnly, openWorldHint: false },
  };
}

export function fileToolListings(maxFileBytes: number): FileToolListing[] {
  return [
    listing(
      'read_file',
      'Read a workspace file',
      `Returns a regular file of the workspace (at most ${maxFileBytes} bytes), base64 and, when it is UTF-8, as text.`,
      readFileInput,
      readOutput,
      true,
    ),
    listing(
      'write_file',
      'Write a workspace file',
      `Creates or replaces a regular file of the workspace (at most ${maxFileBytes} bytes), creating its directories.`,
      writeFileInput,
      writeOutput,
      false,
    ),
    listing(
      'list_files',
      'List workspace files',
      `Lists a workspace directory (symbolic links are reported, never followed), at most ${MAX_LIST_ENTRIES} entries.`,
      listFilesInput,
      listOutput,
      true,
    ),
  ];
}

function parse<T>(schema: z.ZodType<T>, tool: string, raw: unknown): T {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues
    .map((i) => `${i.path.length ? `/${i.path.map(String).join('/')}` : '/'}: ${i.message}`)
    .join('; ');
  throw new ToolError('TOOLYARD_INVALID_ARGUMENTS', `invalid arguments for ${tool}: ${detail}`);
}

export interface FileToolResult {
  readonly structured: Record<string, unknown>;
  readonly text: string;
  /** The file or directory the call touched (for the audit line's `cwd`). */
  readonly target: string;
}

export class FileTools {
  private readonly roots: WorkspaceRoots;
  private readonly maxFileBytes: number;

  constructor(roots: WorkspaceRoots, maxFileBytes: number) {
    this.roots = roots;
    this.maxFileBytes = maxFileBytes;
  }

  /** Makes `outputs/` in the workspace root, where artifacts go (kept if it exists; a link there is left alone). */
  ensureOutputs(): void {
    try {
      mkdirSync(join(this.root(), 'outputs'), { mode: 0o2775 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }

  call(name: FileToolName, raw: unknown): FileToolResult {
    if (name === 'read_file') return this.read(parse(readFileInput, name, raw).path);
    if (name === 'write_file') return this.write(parse(writeFileInput, name, raw));
    const input = parse(listFilesInput, name, raw);
    return this.list(input.path, input.depth ?? 1);
  }

  private root(): string {
    const root = this.roots.primary;
    if (root === undefined) throw new ToolError('TOOLYARD_CWD_NOT_FOUND', 'no workspace root exists.');
    return root;
  }

  private shown(real: string): string {
    const rel = relative(this.root(), real);
    return rel === '' ? '.' : rel.startsWith(`..${sep}`) || isAbsolute(rel) ? real : rel;
  }

  /** Throws unless the open descriptor's real path lies inside the roots (a swap after the check is caught). */
  private assertOpenedInside(fd: number, shown: string): string {
    const real = readlinkSync(`/proc/self/fd/${fd}`);
    if (!this.roots.contains(real)) {
      closeSync(fd);
      throw new ToolError(
        'TOOLYARD_CWD_OUTSIDE_ROOTS',
        `${JSON.stringify(shown)} leads to ${real}, outside the workspace.`,
        {
          rule: 'cwd-confinement',
          allowed: `files inside ${this.roots.configured.join(', ')}`,
        },
      );
    }
    return real;
  }

  private tooLarge(shown: string, size: number): ToolError {
    return new ToolError(
      'TOOLYARD_FILE_TOO_LARGE',
      `${JSON.stringify(shown)} is ${size} bytes, above the ${this.maxFileBytes}-byte limit of file transfers.`,
      {
        allowed: `files of at most ${this.maxFileBytes} bytes; split larger ones (e.g. with split or tar) first`,
      },
    );
  }

  private read(path: string): FileToolResult {
    const real = this.roots.resolvePath(path, this.root(), 'file');
    const fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      this.assertOpenedInside(fd, path);
      const stat = fstatSync(fd);
      if (!stat.isFile())
        throw new ToolError('TOOLYARD_FILE_REFUSED', `${JSON.stringify(path)} is not a regular file.`);
      if (stat.size > this.maxFileBytes) throw this.tooLarge(path, stat.size);
      const buffer = Buffer.alloc(Math.min(stat.size, this.maxFileBytes) + 1);
      let length = 0;
      for (;;) {
        const n = readSync(fd, buffer, length, buffer.length - length, null);
        if (n === 0) break;
        length += n;
        if (length > this.maxFileBytes) throw this.tooLarge(path, length);
      }
      const content = buffer.subarray(0, length);
      const text = new TextDecoder('utf-8', { fatal: true });
      let decoded: string | null;
      try {
        decoded = text.decode(content);
      } catch {
        decoded = null;
      }
      const shown = this.shown(real);
      return {
        structured: { path: shown, size: length, contentBase64: content.toString('base64'), text: decoded },
        // A model reads the text content: a text file's content follows its size line (binary: base64 only).
        text:
          decoded === null
            ? `${shown}: ${length} bytes (binary; contentBase64 in structuredContent)`
            : `${shown}: ${length} bytes\n${decoded}`,
        target: real,
      };
    } finally {
      try {
        closeSync(fd);
      } catch {}
    }
  }

  /** Creates the missing directories of `dir` one by one, each checked to stay inside the roots. */
  private ensureDirectory(dir: string, shown: string): void {
    const root = this.root();
    const target = this.roots.locate(dir, root);
    if (target === undefined || !this.roots.contains(target))
      throw new ToolError(
        'TOOLYARD_CWD_OUTSIDE_ROOTS',
        `${JSON.stringify(shown)} lies outside the workspace.`,
        {
          rule: 'cwd-confinement',
          allowed: `paths inside ${this.roots.configured.join(', ')}`,
        },
      );
    const parts = relative(root, target).split(sep).filter(Boolean);
    let current = root;
    for (const part of parts) {
      current = join(current, part);
      try {
        mkdirSync(current);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      this.roots.resolvePath(current, root, 'directory');
    }
  }

  private write(input: z.infer<typeof writeFileInput>): FileToolResult {
    if ((input.content === undefined) === (input.contentBase64 === undefined))
      throw new ToolError(
        'TOOLYARD_INVALID_ARGUMENTS',
        'write_file takes exactly one of content and contentBase64.',
      );
    const content =
      input.content !== undefined
        ? Buffer.from(input.content, 'utf8')
        : Buffer.from(input.contentBase64 ?? '', 'base64');
    if (content.length > this.maxFileBytes) throw this.tooLarge(input.path, content.length);
    const root = this.root();
    const wanted = isAbsolute(input.path) ? input.path : resolve(root, input.path);
    if (wanted.includes('\0')) throw new ToolError('TOOLYARD_INVALID_ARGUMENTS', 'path contains a NUL byte.');
    this.ensureDirectory(dirname(wanted), input.path);
    const parent = this.roots.resolvePath(dirname(wanted), root, 'directory');
    const file = join(parent, wanted.slice(dirname(wanted).length + 1));
    try {
      if (lstatSync(file).isSymbolicLink())
        throw new ToolError(
          'TOOLYARD_FILE_REFUSED',
          `${JSON.stringify(input.path)} is a symbolic link; write to its target.`,
        );
    } catch (error) {
      if (error instanceof ToolError) throw error;
    }
    // No O_TRUNC: the file is emptied only once its descriptor is known to be inside the workspace.
    const fd = openSync(
      file,
      constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      0o644,
    );
    try {
      const real = this.assertOpenedInside(fd, input.path);
      if (!fstatSync(fd).isFile())
        throw new ToolError('TOOLYARD_FILE_REFUSED', `${JSON.stringify(input.path)} is not a regular file.`);
      ftruncateSync(fd, 0);
      let offset = 0;
      while (offset < content.length)
        offset += writeSync(fd, content, offset, content.length - offset, offset);
      const shown = this.shown(real);
      return {
        structured: { path: shown, size: content.length },
        text: `${shown}: wrote ${content.length} bytes`,
        target: real,
      };
    } finally {
      try {
        closeSync(fd);
      } catch {}
    }
  }

  private list(path: string | undefined, depth: number): FileToolResult {
    const root = this.root();
    const dir = this.roots.resolvePath(path ?? '.', root, 'directory');
    const entries: { path: string; type: 'file' | 'directory' | 'symlink' | 'other'; size: number | null }[] =
      [];
    let truncated = false;
    const walk = (current: string, level: number): void => {
      let names: string[];
      try {
        names = readdirSync(current).sort();
      } catch {
        return;
      }
      for (const name of names) {
        if (entries.length >= MAX_LIST_ENTRIES) {
          truncated = true;
          return;
        }
        const full = join(current, name);
        let stat: ReturnType<typeof lstatSync>;
        try {
          stat = lstatSync(full);
        } catch {
          continue;
        }
        const type = stat.isSymbolicLink()
          ? 'symlink'
          : stat.isDirectory()
            ? 'directory'
            : stat.isFile()
              ? 'file'
              : 'other';
        entries.push({ path: this.shown(full), type, size: type === 'file' ? stat.size : null });
        if (type === 'directory' && level < depth) walk(full, level + 1);
      }
    };
    walk(dir, 1);
    const shown = this.shown(dir);
    return {
      structured: { path: shown, entries, truncated },
      text: `${shown}: ${entries.length} entries${truncated ? ' (truncated)' : ''}\n${entries
        .slice(0, 200)
        .map(
          (e) =>
            `${e.type === 'directory' ? 'd' : e.type === 'symlink' ? 'l' : '-'} ${e.path}${e.size !== null ? ` (${e.size})` : ''}`,
        )
        .join('\n')}`,
      target: dir,
    };
  }
}
