/**
 * The Secrets a rendered agent reads — found in its pod specs, not re-derived from the spec — with the keys
 * each needs and who reads them (an environment variable, a mounted file or a whole-Secret envFrom). They
 * become `secretNames` values, the chart README's and NOTES' lists, and `kubectl create secret` lines.
 */
import type { AgentPlan } from '../../constructs/src/plan.ts';
import type { KubeObject } from '../../constructs/src/render.ts';

type Json = Readonly<Record<string, unknown>>;

export type SecretReader =
  | { readonly kind: 'env'; readonly env: string }
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'envFrom' };

export interface SecretUse {
  readonly secret: string;
  /** The key read; absent for envFrom and for a volume that mounts every key. */
  readonly key?: string;
  /** `<workload>/<container>`. */
  readonly container: string;
  readonly reader: SecretReader;
}

export interface SecretSummary {
  readonly name: string;
  readonly keys: readonly string[];
  readonly uses: readonly SecretUse[];
}

function podSpecOf(object: KubeObject): Json | undefined {
  const template = (object['spec'] as Json | undefined)?.['template'] as Json | undefined;
  return template?.['spec'] as Json | undefined;
}

/** Secret name and keys (with their file paths) a volume projects, if it is a Secret volume. */
function secretVolumes(
  volume: Json,
): { secret: string; items: { key: string; path: string }[] | undefined }[] {
  const items = (list: unknown) =>
    Array.isArray(list)
      ? (list as Json[]).map((item) => ({ key: String(item['key']), path: String(item['path']) }))
      : undefined;
  const secret = volume['secret'] as Json | undefined;
  if (secret) return [{ secret: String(secret['secretName']), items: items(secret['items']) }];
  const sources = ((volume['projected'] as Json | undefined)?.['sources'] ?? []) as Json[];
  return sources
    .filter((source) => source['secret'])
    .map((source) => {
      const s = source['secret'] as Json;
      return { secret: String(s['name']), items: items(s['items']) };
    });
}

/** Every read of a Secret in the objects' pod specs, in object and container order. */
export function secretUses(objects: readonly KubeObject[]): SecretUse[] {
  const uses: SecretUse[] = [];
  for (const object of objects) {
    const pod = podSpecOf(object);
    if (!pod) continue;
    const volumes = new Map(((pod['volumes'] ?? []) as Json[]).map((v) => [String(v['name']), v]));
    const containers = [
      ...((pod['initContainers'] ?? []) as Json[]),
      ...((pod['containers'] ?? []) as Json[]),
    ];
    for (const container of containers) {
      const where = `${object.metadata.name}/${String(container['name'])}`;
      for (const env of (container['env'] ?? []) as Json[]) {
        const ref = (env['valueFrom'] as Json | undefined)?.['secretKeyRef'] as Json | undefined;
        if (ref) {
          uses.push({
            secret: String(ref['name']),
            key: String(ref['key']),
            container: where,
            reader: { kind: 'env', env: String(env['name']) },
          });
        }
      }
      for (const source of (container['envFrom'] ?? []) as Json[]) {
        const ref = source['secretRef'] as Json | undefined;
        if (ref) uses.push({ secret: String(ref['name']), container: where, reader: { kind: 'envFrom' } });
      }
      for (const mount of (container['volumeMounts'] ?? []) as Json[]) {
        const volume = volumes.get(String(mount['name']));
        if (!volume) continue;
        const mountPath = String(mount['mountPath']);
        for (const { secret, items } of secretVolumes(volume)) {
          if (!items) {
            uses.push({ secret, container: where, reader: { kind: 'file', path: `${mountPath}/<key>` } });
            continue;
          }
          for (const item of items) {
            const path = mount['subPath'] ? mountPath : `${mountPath}/${item.path}`;
            if (mount['subPath'] && mount['subPath'] !== item.path) continue;
            uses.push({ secret, key: item.key, container: where, reader: { kind: 'file', path } });
          }
        }
      }
    }
  }
  return uses;
}

/** The Secrets read, by name (sorted), each with its keys (sorted) and uses. */
export function secretSummaries(objects: readonly KubeObject[]): SecretSummary[] {
  const byName = new Map<string, SecretUse[]>();
  for (const use of secretUses(objects)) byName.set(use.secret, [...(byName.get(use.secret) ?? []), use]);
  return [...byName.keys()].sort().map((name) => {
    const uses = byName.get(name)!;
    const keys = [...new Set(uses.flatMap((u) => (u.key === undefined ? [] : [u.key])))].sort();
    return { name, keys, uses };
  });
}

function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * The Secret keys that hold tokens toolyard's own components share, as `<secret>/<key>`: the broker's (one per
 * caller) and each toolchain's bearer token. Their values are anything random, made at creation; every caller
 * gets its own (docs/broker.md: per-container egress rests on it), never one token copied to all.
 */
export function generatedTokenKeys(plan: AgentPlan): ReadonlySet<string> {
  const keys = new Set<string>();
  if (plan.broker.enabled)
    for (const caller of plan.broker.callers) keys.add(`${plan.broker.tokensSecret}/${caller.name}`);
  for (const toolchain of plan.toolchains)
    if (toolchain.auth) keys.add(`${toolchain.auth.secret.name}/${toolchain.auth.secret.key}`);
  return keys;
}

/** A fresh random token in a shell command line: its value is made there, and never typed or echoed. */
export const RANDOM_TOKEN = '$(openssl rand -hex 32)';

/**
 * `kubectl create secret generic` arguments of one Secret, without the namespace and name: a token toolyard's
 * components share (`generated`) as a new random value of its own; any other key from the environment
 * variable its container reads it as (so no value lands in shell history), else from a file.
 */
export function createSecretArgs(summary: SecretSummary, generated: ReadonlySet<string> = new Set()): string {
  const args: string[] = [];
  for (const key of summary.keys) {
    if (generated.has(`${summary.name}/${key}`)) {
      args.push(`--from-literal=${shellQuote(key)}=${RANDOM_TOKEN}`);
      continue;
    }
    const env = summary.uses.find(
      (u): u is SecretUse & { reader: { kind: 'env'; env: string } } =>
        u.key === key && u.reader.kind === 'env',
    );
    args.push(
      env
        ? `--from-literal=${shellQuote(key)}="$${env.reader.env}"`
        : `--from-file=${shellQuote(key)}=${shellQuote(`./${key}`)}`,
    );
  }
  if (summary.keys.length === 0 || summary.uses.some((u) => u.key === undefined)) {
    args.push(`--from-env-file=${shellQuote(`./${summary.name}.env`)}`);
  }
  return args.join(' ');
}

/** One line per use: "ANTHROPIC_API_KEY in reviewer/claude" or "file /run/secrets/token in x/y". */
export function describeUse(use: SecretUse): string {
  const what =
    use.reader.kind === 'env'
      ? `env ${use.reader.env}`
      : use.reader.kind === 'file'
        ? `file ${use.reader.path}`
        : 'every key as env (envFrom)';
  return `${use.key === undefined ? '' : `key ${use.key} → `}${what} in ${use.container}`;
}
