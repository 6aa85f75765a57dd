/**
 * The values of a generated chart as one tree, from which `values.yaml` (commented), `values.schema.json`
 * (draft-07, `additionalProperties: false`) and the README's values table are all written. Pure.
 */
import { stringify } from 'yaml';

export type JsonSchema = Readonly<Record<string, unknown>>;

export interface ValueLeaf {
  readonly key: string;
  readonly description: string;
  readonly schema: JsonSchema;
  readonly default: unknown;
}

export interface ValueGroup {
  readonly key: string;
  readonly description: string;
  readonly children: readonly ValueNode[];
  /** Accept keys beyond the children (e.g. `global`, which parent charts share); closed by default. */
  readonly open?: boolean;
}

export type ValueNode = ValueLeaf | ValueGroup;

export function isGroup(node: ValueNode): node is ValueGroup {
  return 'children' in node;
}

export function leaf(key: string, description: string, schema: JsonSchema, value: unknown): ValueLeaf {
  return { key, description, schema, default: value };
}

export function group(
  key: string,
  description: string,
  children: readonly ValueNode[],
  options: { readonly open?: boolean } = {},
): ValueGroup {
  return { key, description, children, ...(options.open ? { open: true } : {}) };
}

/** Plain default values of a tree. */
export function defaultsOf(nodes: readonly ValueNode[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const node of nodes) out[node.key] = isGroup(node) ? defaultsOf(node.children) : node.default;
  return out;
}

function commentLines(text: string, indent: string): string[] {
  return text.split('\n').map((line) => `${indent}# ${line}`.trimEnd());
}

/** `values.yaml`: every key preceded by its description (helm-docs style `# --`). */
export function renderValuesYaml(nodes: readonly ValueNode[], header: readonly string[]): string {
  const lines = [
    '# yaml-language-server: $schema=values.schema.json',
    ...header.map((l) => `# ${l}`.trimEnd()),
  ];
  const walk = (list: readonly ValueNode[], depth: number): void => {
    const indent = '  '.repeat(depth);
    for (const node of list) {
      if (!lines.at(-1)?.endsWith(':')) lines.push('');
      const [first = '', ...rest] = node.description.split('\n');
      lines.push(`${indent}# -- ${first}`.trimEnd(), ...rest.flatMap((l) => commentLines(l, indent)));
      if (isGroup(node)) {
        lines.push(`${indent}${yamlKey(node.key)}:`);
        walk(node.children, depth + 1);
      } else {
        const text = stringify({ [node.key]: node.default }, { version: '1.1', lineWidth: 0 }).trimEnd();
        lines.push(...text.split('\n').map((l) => indent + l));
      }
    }
  };
  walk(nodes, 0);
  return `${lines.join('\n')}\n`;
}

function yamlKey(key: string): string {
  return stringify(key, { version: '1.1' }).trimEnd();
}

/** `values.schema.json` (draft-07, self-contained). */
export function valuesSchema(nodes: readonly ValueNode[], title: string, description: string): JsonSchema {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title,
    description,
    ...objectSchema(nodes),
  };
}

function objectSchema(nodes: readonly ValueNode[], open = false): JsonSchema {
  const properties: Record<string, unknown> = {};
  for (const node of nodes) {
    properties[node.key] = isGroup(node)
      ? { description: node.description, ...objectSchema(node.children, node.open === true) }
      : { description: node.description, ...node.schema };
  }
  return { type: 'object', additionalProperties: open, properties };
}

export interface ValueRow {
  readonly key: string;
  readonly type: string;
  readonly default: string;
  readonly description: string;
}

/** One row per leaf, for the README's values table. */
export function valueRows(nodes: readonly ValueNode[], prefix = ''): ValueRow[] {
  const rows: ValueRow[] = [];
  for (const node of nodes) {
    const key = prefix === '' ? node.key : `${prefix}.${node.key}`;
    if (isGroup(node)) rows.push(...valueRows(node.children, key));
    else {
      const type = node.schema['type'];
      rows.push({
        key,
        type: Array.isArray(type) ? type.join(' \\| ') : String(type ?? 'any'),
        default: JSON.stringify(node.default),
        description: node.description,
      });
    }
  }
  return rows;
}

export function markdownValuesTable(nodes: readonly ValueNode[]): string {
  const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const lines = ['| Key | Type | Default | Description |', '| --- | --- | --- | --- |'];
  for (const row of valueRows(nodes)) {
    lines.push(`| \`${row.key}\` | ${row.type} | \`${cell(row.default)}\` | ${cell(row.description)} |`);
  }
  return lines.join('\n');
}
