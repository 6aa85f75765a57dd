/**
 * Seeded mutants of the example specs, for the property "what `validate` accepts renders and applies; what it
 * refuses it explains" (test/invariants/spec-mutants.test.ts) and for applying a sample of accepted mutants to a
 * real API server (`acceptedMutantManifests`).
 *
 * A mutant is an example with one to three edits: a value replaced by one near a Kubernetes or toolyard rule
 * (names one character too long or starting with a digit, CIDRs with a prefix of 33 or an octet of 300, ports
 * next to their bounds, quantities that do not parse, label keys with two slashes…), a field deleted, a field
 * the schema offers added with such a value, an entry added to a map, a list entry repeated, or the text
 * itself broken. The same seed always yields the same mutants.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import { renderAgent, toYamlDocuments } from '../../constructs/src/render.ts';
import { expandSchema, type JsonSchema, propertiesOf, schemaNodesAt } from '../../schema/src/json-schema.ts';
import { agentSchema } from '../../schema/src/validator.ts';
import { EXAMPLES_DIR, exampleFiles, REPO_ROOT } from './golden.ts';
import {
  ANNOTATION_MAPS,
  ANY_STRINGS,
  ENV_KEYS,
  ENV_MAPS,
  type Json,
  LABEL_KEYS,
  LABEL_MAPS,
  LABEL_VALUES,
  POOLS,
} from './mutant-values.ts';
import { Random } from './spec-generator.ts';

type Path = readonly (string | number)[];

function isRecord(value: unknown): value is { [key: string]: Json } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Every path in a document, parents before children. */
function paths(value: Json, at: Path = []): Path[] {
  const out: Path[] = [at];
  if (Array.isArray(value)) for (const [i, item] of value.entries()) out.push(...paths(item, [...at, i]));
  else if (isRecord(value))
    for (const [key, item] of Object.entries(value)) out.push(...paths(item, [...at, key]));
  return out;
}

function valueAt(root: Json, path: Path): Json | undefined {
  let current: Json | undefined = root;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number') current = current[segment];
    else if (isRecord(current) && typeof segment === 'string') current = current[segment];
    else return undefined;
  }
  return current;
}

function setAt(root: Json, path: Path, value: Json | undefined): void {
  const parent = valueAt(root, path.slice(0, -1));
  const last = path.at(-1)!;
  if (Array.isArray(parent) && typeof last === 'number') {
    if (value === undefined) parent.splice(last, 1);
    else parent[last] = value;
  } else if (isRecord(parent) && typeof last === 'string') {
    if (value === undefined) delete parent[last];
    else parent[last] = value;
  }
}

/** The key a value is written under: its own, or its list's. */
function fieldOf(path: Path): string {
  for (let i = path.length - 1; i >= 0; i--) if (typeof path[i] === 'string') return path[i] as string;
  return '';
}

/** The map a value sits in (labels, env…), when it is a map entry. */
function mapOf(path: Path): string | undefined {
  const parent = path.at(-2);
  return typeof parent === 'string' &&
    (LABEL_MAPS.has(parent) || ANNOTATION_MAPS.has(parent) || ENV_MAPS.has(parent))
    ? parent
    : undefined;
}

function stringVariants(random: Random, text: string): Json[] {
  return [
    '',
    text.toUpperCase(),
    `${text}-`,
    `-${text}`,
    `${text}${text}`,
    `${text} x`,
    `1${text}`,
    text.slice(0, -1),
    `${text}${'x'.repeat(random.int(1, 60))}`,
  ];
}

function numberVariants(value: number): Json[] {
  return [0, -1, value - 1, value + 1, value * 1000, 65535, 65536, 1.5, String(value)];
}

/** A new value for the leaf at `path`. */
function replacement(random: Random, path: Path, old: Json): Json {
  const map = mapOf(path);
  if (map && LABEL_MAPS.has(map)) return random.pick(LABEL_VALUES);
  if (map && ANNOTATION_MAPS.has(map)) return random.pick([...ANY_STRINGS, 'x'.repeat(300_000)]);
  if (map && ENV_MAPS.has(map)) return random.pick(ANY_STRINGS);
  const pool = POOLS[fieldOf(path)];
  if (pool && random.bool(0.8)) return random.pick(pool);
  if (typeof old === 'boolean') return random.bool(0.8) ? !old : String(old);
  if (typeof old === 'number') return random.pick(numberVariants(old));
  if (typeof old === 'string') return random.pick(stringVariants(random, old));
  return random.pick(ANY_STRINGS);
}

/** A value for a field the schema describes with `nodes` (for a field that was not there). */
function sample(random: Random, field: string, nodes: readonly JsonSchema[], depth = 0): Json {
  const pool = POOLS[field];
  if (pool && random.bool(0.85)) return random.pick(pool);
  const node =
    nodes.find((n) => n.enum || n.const !== undefined || n.type || n.properties || n.items) ?? nodes[0];
  if (!node) return random.pick(ANY_STRINGS);
  if (node.enum) return random.pick(node.enum as Json[]);
  if (node.const !== undefined) return node.const as Json;
  if (node.examples && random.bool(0.5)) return random.pick(node.examples as Json[]);
  const type = Array.isArray(node.type) ? node.type[0] : node.type;
  if (LABEL_MAPS.has(field) || ANNOTATION_MAPS.has(field) || ENV_MAPS.has(field))
    return { [mapKey(random, field)]: replacement(random, [field, 'k'], 'v') };
  if (type === 'boolean') return random.bool();
  if (type === 'integer' || type === 'number')
    return random.pick([
      node.minimum ?? 1,
      node.maximum ?? 65535,
      (node.minimum ?? 0) - 1,
      (node.maximum ?? 65535) + 1,
      1,
      8080,
    ]);
  if (type === 'array' || node.items) {
    if (depth > 3) return [];
    const items = node.items ? expandSchema(agentSchema, node.items, undefined, 'all') : [];
    return Array.from({ length: random.int(1, 2) }, () => sample(random, field, items, depth + 1));
  }
  if (type === 'object' || node.properties) {
    if (depth > 3) return {};
    const properties = propertiesOf(agentSchema, nodes);
    const required = new Set(nodes.flatMap((n) => n.required ?? []));
    const out: { [key: string]: Json } = {};
    for (const [name, property] of properties) {
      if (!required.has(name) && !random.bool(0.3)) continue;
      out[name] = sample(random, name, expandSchema(agentSchema, property, undefined, 'all'), depth + 1);
    }
    return out;
  }
  return typeof node.default === 'string' ? node.default : random.pick(ANY_STRINGS);
}

function mapKey(random: Random, map: string): string {
  if (LABEL_MAPS.has(map) || ANNOTATION_MAPS.has(map)) return random.pick(LABEL_KEYS);
  return random.pick(ENV_KEYS);
}

type Mutation = (random: Random, doc: Json) => string | undefined;

const replaceLeaf: Mutation = (random, doc) => {
  const leaves = paths(doc).filter(
    (p) => p.length > 0 && !isRecord(valueAt(doc, p)) && !Array.isArray(valueAt(doc, p)),
  );
  const path = random.pick(leaves);
  const value = replacement(random, path, valueAt(doc, path)!);
  setAt(doc, path, value);
  return `set ${path.join('.')} = ${JSON.stringify(value).slice(0, 60)}`;
};

const deleteNode: Mutation = (random, doc) => {
  const path = random.pick(paths(doc).filter((p) => p.length > 1));
  setAt(doc, path, undefined);
  return `delete ${path.join('.')}`;
};

const addField: Mutation = (random, doc) => {
  const objects = paths(doc).filter((p) => isRecord(valueAt(doc, p)) && !mapOf([...p, 'x']));
  for (let attempt = 0; attempt < 8; attempt++) {
    const path = random.pick(objects);
    const nodes = schemaNodesAt(agentSchema, doc, path.map(String), 'all');
    const here = valueAt(doc, path) as { [key: string]: Json };
    const missing = [...propertiesOf(agentSchema, nodes)].filter(
      ([name]) => !(name in here) && name !== '$schema',
    );
    if (missing.length === 0) continue;
    const [name, property] = random.pick(missing);
    const value = sample(random, name, expandSchema(agentSchema, property, undefined, 'all'));
    here[name] = value;
    return `add ${[...path, name].join('.')} = ${JSON.stringify(value).slice(0, 60)}`;
  }
  return undefined;
};

const addMapEntry: Mutation = (random, doc) => {
  const maps = paths(doc).filter((p) => {
    const key = p.at(-1);
    return (
      typeof key === 'string' &&
      isRecord(valueAt(doc, p)) &&
      (LABEL_MAPS.has(key) || ANNOTATION_MAPS.has(key) || ENV_MAPS.has(key))
    );
  });
  if (maps.length === 0) return undefined;
  const path = random.pick(maps);
  const map = String(path.at(-1));
  const key = mapKey(random, map);
  const value = replacement(random, [...path, key], 'v');
  (valueAt(doc, path) as { [key: string]: Json })[key] = value;
  return `add ${path.join('.')}[${JSON.stringify(key)}] = ${JSON.stringify(value).slice(0, 40)}`;
};

const repeatEntry: Mutation = (random, doc) => {
  const lists = paths(doc).filter((p) => {
    const value = valueAt(doc, p);
    return Array.isArray(value) && value.length > 0;
  });
  if (lists.length === 0) return undefined;
  const path = random.pick(lists);
  const list = valueAt(doc, path) as Json[];
  const copy = structuredClone(random.pick(list));
  if (isRecord(copy) && typeof copy['name'] === 'string' && random.bool(0.7)) {
    copy['name'] = `${copy['name']}${random.pick(['2', '-b', 'x'.repeat(random.int(1, 50))])}`;
    if (typeof copy['port'] === 'number')
      copy['port'] = random.pick([copy['port'] + 1, copy['port'] + 100, copy['port']]);
  }
  list.push(copy);
  return `repeat an entry of ${path.join('.')}`;
};

/** Fields where a value reaches a Kubernetes rule directly, set on purpose more often than chance would. */
const TARGETS: readonly { where: (doc: Json) => Path[]; value: (random: Random) => Json }[] = [
  {
    where: () => [['spec', 'broker', 'deniedCidrs']],
    value: (r) => [r.pick(POOLS['deniedCidrs']!), ...(r.bool() ? ['10.0.0.0/8'] : [])],
  },
  ...(['modelEgress', 'registryEgress', 'apiServerEgress'] as const).map((rule) => ({
    where: () => [['spec', 'networkPolicy', rule]],
    value: (r: Random) => ({ cidrs: [r.pick(POOLS['cidrs']!)], ports: [r.pick(POOLS['ports']!)] }),
  })),
  {
    where: (doc) => entries(doc, 'gateways').map((p) => [...p, 'egress']),
    value: (r) => ({ cidrs: [r.pick(POOLS['cidrs']!)], ports: [r.pick(POOLS['ports']!)] }),
  },
  { where: () => [['metadata', 'name']], value: (r) => r.pick(POOLS['name']!) },
  {
    where: (doc) =>
      [...entries(doc, 'backends'), ...entries(doc, 'toolchains'), ...entries(doc, 'gateways')].map((p) => [
        ...p,
        'name',
      ]),
    value: (r) => r.pick(POOLS['name']!),
  },
  {
    where: (doc) =>
      [...entries(doc, 'backends'), ...entries(doc, 'toolchains'), ...entries(doc, 'gateways')].map((p) => [
        ...p,
        'port',
      ]),
    value: (r) => r.pick(POOLS['port']!),
  },
  {
    where: (doc) =>
      [
        ...entries(doc, 'backends'),
        ...entries(doc, 'toolchains'),
        ...entries(doc, 'gateways'),
        ['spec', 'broker'],
      ].map((p) => [...p, 'resources']),
    value: (r) => ({
      requests: { cpu: r.pick(POOLS['cpu']!), memory: r.pick(POOLS['memory']!) },
      limits: { memory: r.pick(POOLS['memory']!), ...(r.bool() ? { cpu: r.pick(POOLS['cpu']!) } : {}) },
    }),
  },
  {
    where: () => [['spec', 'workspace', 'volume']],
    value: (r) => ({
      persistentVolumeClaim: {
        storage: r.pick(POOLS['storage']!),
        storageClassName: r.pick(POOLS['storageClassName']!),
        accessModes: [r.pick(['ReadWriteOnce', 'ReadWriteMany', 'ReadWriteOncePod'])],
      },
    }),
  },
  { where: () => [['metadata', 'labels']], value: (r) => ({ [r.pick(LABEL_KEYS)]: r.pick(LABEL_VALUES) }) },
  {
    where: () => [['metadata', 'annotations']],
    value: (r) => ({ [r.pick(LABEL_KEYS)]: r.pick(ANY_STRINGS) }),
  },
];

/** Pointers of the entries of `spec.<list>`. */
function entries(doc: Json, list: string): Path[] {
  const value = valueAt(doc, ['spec', list]);
  return Array.isArray(value) ? value.map((_, i) => ['spec', list, i]) : [];
}

const setTarget: Mutation = (random, doc) => {
  const target = random.pick(TARGETS);
  const places = target.where(doc);
  if (places.length === 0) return undefined;
  const path = random.pick(places);
  for (let i = 1; i < path.length; i++)
    if (valueAt(doc, path.slice(0, i)) === undefined) setAt(doc, path.slice(0, i), {});
  const value = target.value(random);
  setAt(doc, path, value);
  return `target ${path.join('.')} = ${JSON.stringify(value).slice(0, 60)}`;
};

const MUTATIONS: readonly { weight: number; mutate: Mutation }[] = [
  { weight: 3, mutate: setTarget },
  { weight: 5, mutate: replaceLeaf },
  { weight: 2, mutate: deleteNode },
  { weight: 3, mutate: addField },
  { weight: 2, mutate: addMapEntry },
  { weight: 1, mutate: repeatEntry },
];

function pickMutation(random: Random): Mutation {
  const total = MUTATIONS.reduce((sum, m) => sum + m.weight, 0);
  let roll = random.next() * total;
  for (const m of MUTATIONS) {
    roll -= m.weight;
    if (roll < 0) return m.mutate;
  }
  return replaceLeaf;
}

/** Breaks the text itself: a character removed, a line repeated (duplicate key), a tab indentation. */
function breakText(random: Random, text: string): { text: string; edit: string } {
  const lines = text.split('\n');
  const line = random.int(0, Math.max(0, lines.length - 2));
  switch (random.int(0, 2)) {
    case 0: {
      const at = random.int(0, text.length - 1);
      return { text: text.slice(0, at) + text.slice(at + 1), edit: `text: drop character ${at}` };
    }
    case 1:
      lines.splice(line, 0, lines[line]!);
      return { text: lines.join('\n'), edit: `text: repeat line ${line + 1}` };
    default:
      lines[line] = `\t${lines[line]}`;
      return { text: lines.join('\n'), edit: `text: tab before line ${line + 1}` };
  }
}

export interface SpecMutant {
  readonly index: number;
  /** The example it came from, e.g. `examples/web-infra.yaml`. */
  readonly example: string;
  /** What was changed, one entry per edit. */
  readonly edits: readonly string[];
  readonly text: string;
  /** A file name for messages: `mutants/<index>-<example>`. */
  readonly file: string;
}

interface Example {
  readonly file: string;
  readonly document: Json;
}

let examples: readonly Example[] | undefined;

function loadExamples(): readonly Example[] {
  examples ??= exampleFiles().map((file) => ({
    file,
    document: parse(readFileSync(join(REPO_ROOT, file), 'utf8')) as Json,
  }));
  return examples;
}

/** The mutant `index` of the stream seeded with `seed` (deterministic, independent of the others). */
export function specMutant(seed: number, index: number): SpecMutant {
  const random = new Random((seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
  const example = random.pick(loadExamples());
  const document = structuredClone(example.document);
  const edits: string[] = [];
  const count = random.pick([1, 1, 1, 2, 2, 3]);
  for (let i = 0; i < count; i++) {
    const edit = pickMutation(random)(random, document);
    if (edit) edits.push(edit);
  }
  let text = stringify(document, { lineWidth: 0 });
  if (random.bool(0.03)) {
    const broken = breakText(random, text);
    text = broken.text;
    edits.push(broken.edit);
  }
  const base = example.file.replace(/^examples\//, '');
  return { index, example: example.file, edits, text, file: `mutants/${index}-${base}` };
}

export function* specMutants(seed: number, count: number): Generator<SpecMutant> {
  for (let index = 0; index < count; index++) yield specMutant(seed, index);
}

/** The seed of the property test and of the cluster sample. */
export const MUTANT_SEED = 31_2026;

export interface AcceptedMutantManifest {
  /** Which mutant, and what was changed in which example. */
  readonly mutant: Pick<SpecMutant, 'index' | 'example' | 'edits' | 'file'>;
  readonly agent: string;
  /** Namespaces the objects live in (the spec's, and any a gateway's authority names). */
  readonly namespaces: readonly string[];
  /** The rendered objects as `toolyard synth` writes them (multi-document YAML). */
  readonly yaml: string;
}

/**
 * A deterministic sample of accepted mutants' rendered manifests, for applying to a real API server (the
 * cluster test): walks the mutant stream of `seed` and keeps every mutant `checkSpecText` accepts, until
 * `count` are collected, skipping those that render the same bytes as one already kept. Apply each with
 * server-side dry-run (`kubectl apply --dry-run=server -f -`), or create its namespaces first.
 */
export function acceptedMutantManifests(count: number, seed = MUTANT_SEED): AcceptedMutantManifest[] {
  const kept: AcceptedMutantManifest[] = [];
  const seen = new Set<string>();
  for (let index = 0; kept.length < count && index < count * 50; index++) {
    const mutant = specMutant(seed, index);
    const checked = checkSpecText(mutant.text, mutant.file);
    if (!checked.ok) continue;
    for (const spec of checked.specs) {
      const rendered = renderAgent(spec.agent, spec.plan);
      const yaml = toYamlDocuments(rendered.objects);
      if (seen.has(yaml)) continue;
      seen.add(yaml);
      const namespaces = new Set<string>([rendered.plan.namespace]);
      for (const object of rendered.objects)
        if (object.metadata.namespace) namespaces.add(object.metadata.namespace);
      for (const gateway of rendered.plan.gateways)
        if (gateway.kind === 'deployed')
          for (const ns of gateway.kubernetes?.namespaces ?? []) namespaces.add(ns);
      const { index: i, example, edits, file } = mutant;
      kept.push({
        mutant: { index: i, example, edits, file },
        agent: spec.agent.metadata.name,
        namespaces: [...namespaces].sort(),
        yaml,
      });
    }
  }
  return kept.slice(0, count);
}

/** The example directory the mutants come from (for messages). */
export const MUTANT_SOURCES = EXAMPLES_DIR;
