/**
 * The spec files behind command-line paths. A file is taken as given. A directory is searched recursively
 * (skipping `node_modules` and dot-directories) for `*.yaml` and `*.yml` files that look like toolyard specs
 * (see `looksLikeSpec`), so a directory of specs, charts, kustomizations and rendered manifests yields only the
 * specs — and a spec with a misspelt `kind` or `apiVersion` is read (and refused, with a did-you-mean) instead
 * of silently left out.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { SpecError } from '../../schema/src/load.ts';
import { editDistance } from '../../schema/src/suggest.ts';

const SPEC_FILE = /\.ya?ml$/;
/** A top-level `kind: Agent` line in any document of the file. */
const AGENT_KIND = /^kind:[ \t]*(["']?)Agent\1[ \t]*(#.*)?$/m;
/** Top-level `kind:` and `apiVersion:` lines, the only ones a near miss can be told by. */
const TOP_LEVEL_KIND = /^kind:[ \t]*(["']?)([^"'#\s]*)\1[ \t]*(#.*)?$/gm;
const TOP_LEVEL_API_VERSION = /^apiVersion:[ \t]*(["']?)([^"'#\s]*)\1[ \t]*(#.*)?$/gm;
const API_VERSION = 'toolyard.dev/v1alpha1';
const API_GROUP = 'toolyard.dev';
const SKIPPED_DIRECTORIES = (name: string) => name === 'node_modules' || name.startsWith('.');
/** The message for a directory without specs (`diff` accepts one: the other side may hold the specs). */
export const NO_SPEC_IN_DIRECTORY = 'a directory with no Agent spec in it';

/** Whether a file found below a directory (a `/`-separated relative path) may be a spec, by its name alone. */
export function mayBeSpecFile(relativePath: string): boolean {
  const parts = relativePath.split('/');
  return SPEC_FILE.test(parts.at(-1) ?? '') && !parts.slice(0, -1).some(SKIPPED_DIRECTORIES);
}

/** How many documents of a file's text declare an Agent (top-level `kind: Agent` lines). */
export function agentCount(text: string): number {
  return [...text.matchAll(new RegExp(AGENT_KIND.source, 'gm'))].length;
}

/** Whether a file's text declares an Agent (a top-level `kind: Agent` in any of its documents). */
export function declaresAgent(text: string): boolean {
  return AGENT_KIND.test(text);
}

/** A kind a user may have meant as `Agent`: `agent`, `Agnet`, `Agents`. */
function nearAgentKind(kind: string): boolean {
  return kind !== 'Agent' && editDistance(kind.toLowerCase(), 'agent') <= 1;
}

/** An apiVersion a user may have meant as toolyard's: any of the toolyard.dev group, or a typo of it. */
function nearApiVersion(apiVersion: string): boolean {
  if (apiVersion === API_VERSION) return false;
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : apiVersion;
  return group.toLowerCase().startsWith('toolyard') || editDistance(group.toLowerCase(), API_GROUP) <= 2;
}

/**
 * Whether one document looks like a toolyard spec that is not quite one. The rule (docs/fleet.md, "Which files
 * are specs"): its `apiVersion` is toolyard's with another `kind` (`AgentSpec`: toolyard.dev/v1alpha1 has one
 * kind), or in the toolyard.dev group or a typo of it (`toolyard.dev/v1alpa1`, `toolyard.dev/v1alpha2`,
 * `toolyard.io/v1`), or its `kind` is a typo or another casing of `Agent` and it has `spec.backends` or
 * `spec.toolchains` (the fields every Agent has). Anything else is someone else's YAML.
 */
export function nearMissDocument(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { apiVersion, kind, spec } = value as { apiVersion?: unknown; kind?: unknown; spec?: unknown };
  if (kind === 'Agent' && apiVersion === API_VERSION) return false;
  if (apiVersion === API_VERSION) return true;
  if (typeof apiVersion === 'string' && nearApiVersion(apiVersion)) return true;
  const agentish =
    spec !== null &&
    typeof spec === 'object' &&
    ('backends' in (spec as object) || 'toolchains' in (spec as object));
  return typeof kind === 'string' && nearAgentKind(kind) && agentish;
}

/**
 * Whether a file's text has a document that looks like a toolyard spec but has a wrong `kind` or `apiVersion`.
 * Cheap for the common case: only a file whose top-level `kind:`/`apiVersion:` lines come close is parsed.
 */
export function hasNearMissSpec(text: string): boolean {
  const suspicious =
    [...text.matchAll(TOP_LEVEL_KIND)].some((m) => nearAgentKind(m[2]!)) ||
    [...text.matchAll(TOP_LEVEL_API_VERSION)].some((m) => m[2] === API_VERSION || nearApiVersion(m[2]!));
  if (!suspicious) return false;
  try {
    return parseAllDocuments(text).some(
      (doc) => doc.errors.length === 0 && nearMissDocument(doc.toJS({ maxAliasCount: 100 })),
    );
  } catch {
    return false;
  }
}

/** Whether a file found in a directory is read as a spec: it declares an Agent, or comes close to one. */
export function looksLikeSpec(text: string): boolean {
  return declaresAgent(text) || hasNearMissSpec(text);
}

export interface SpecFiles {
  readonly files: readonly string[];
  readonly errors: readonly SpecError[];
  /** YAML files found below the directories that are not specs (someone else's YAML). */
  readonly ignored: readonly string[];
}

async function specsUnder(directory: string, ignored: string[]): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const found: string[] = [];
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES(entry.name)) found.push(...(await specsUnder(path, ignored)));
    } else if (entry.isFile() && SPEC_FILE.test(entry.name)) {
      if (looksLikeSpec(await readFile(path, 'utf8'))) found.push(path);
      else ignored.push(path);
    }
  }
  return found;
}

/** Files as given, directories expanded; a directory without any Agent spec is an error. */
export async function specFiles(paths: readonly string[]): Promise<SpecFiles> {
  const files: string[] = [];
  const errors: SpecError[] = [];
  const ignored: string[] = [];
  for (const path of paths) {
    const isDirectory = await stat(path).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDirectory) {
      files.push(path);
      continue;
    }
    const found = await specsUnder(path, ignored);
    if (found.length === 0) {
      errors.push({
        file: path,
        line: 0,
        path: '',
        message: NO_SPEC_IN_DIRECTORY,
        hint: 'specs are *.yaml or *.yml files with a top-level "kind: Agent", found in subdirectories too',
      });
    }
    files.push(...found);
  }
  return { files: [...new Set(files)], errors, ignored };
}
