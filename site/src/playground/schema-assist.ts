/**
 * Completion and hover documentation for Agent specs, from the JSON Schema: the fields a mapping may have
 * (the alternatives of an unfinished gateway or workspace too), the values a field takes, and a field's
 * description, type and default. Pure: text and offset in, suggestions out; the editor wires it up.
 */
import { parseDocument } from 'yaml';
import agentSchema from '../../../schema/agent.schema.json' with { type: 'json' };
import { type JsonSchema, propertiesOf, resolveRef, schemaNodesAt } from '../../../schema/src/json-schema.ts';
import { keyAt, yamlContext } from './yaml-context.ts';

const SCHEMA = agentSchema as JsonSchema;

export interface Suggestion {
  readonly label: string;
  readonly type: 'property' | 'enum' | 'constant';
  readonly detail: string;
  readonly info?: string;
  /** What is inserted. */
  readonly apply: string;
}

export interface Suggestions {
  readonly from: number;
  readonly options: readonly Suggestion[];
}

export interface HoverDoc {
  readonly from: number;
  readonly to: number;
  readonly field: string;
  readonly type: string;
  readonly description?: string;
  readonly default?: string;
  readonly values?: string;
}

/** The document as far as it parses; `undefined` where it does not. */
function documentValue(text: string): unknown {
  try {
    return parseDocument(text, { uniqueKeys: false }).toJS({ maxAliasCount: 100 });
  } catch {
    return undefined;
  }
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

export function typeLabel(nodes: readonly JsonSchema[]): string {
  const types = new Set<string>();
  for (const node of nodes) {
    if (node.enum) types.add(node.enum.map((v) => JSON.stringify(v)).join(' | '));
    else if (node.const !== undefined) types.add(JSON.stringify(node.const));
    else if (node.type === 'array') types.add('list');
    else if (node.type === 'object') types.add(node.title ?? 'mapping');
    else if (typeof node.type === 'string') types.add(node.type);
  }
  return [...types].join(' or ') || 'value';
}

const scalar = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function valueSuggestions(nodes: readonly JsonSchema[]): Suggestion[] {
  const seen = new Set<string>();
  const out: Suggestion[] = [];
  const add = (value: unknown, type: Suggestion['type'], detail: string) => {
    if (value === null || typeof value === 'object') return;
    const label = scalar(value);
    if (seen.has(label)) return;
    seen.add(label);
    out.push({ label, type, detail, apply: label });
  };
  for (const node of nodes) {
    for (const value of node.enum ?? []) add(value, 'enum', 'allowed value');
    if (node.const !== undefined) add(node.const, 'constant', 'the only value');
    if (node.type === 'boolean') {
      add(true, 'constant', 'boolean');
      add(false, 'constant', 'boolean');
    }
    if (node.default !== undefined) add(node.default, 'constant', 'default');
    for (const example of node.examples ?? []) add(example, 'constant', 'example');
  }
  return out;
}

export function suggestions(text: string, offset: number, explicit: boolean): Suggestions | undefined {
  const context = yamlContext(text, offset);
  if (!explicit && context.prefix === '' && context.kind === 'key') return undefined;
  const document = documentValue(text);
  if (context.kind === 'key') {
    const nodes = schemaNodesAt(SCHEMA, document, context.path, 'open');
    const present = valueAt(document, context.path);
    const taken = new Set([
      ...(present && typeof present === 'object' && !Array.isArray(present) ? Object.keys(present) : []),
      ...(context.siblings ?? []),
    ]);
    taken.delete(context.prefix);
    const options = [...propertiesOf(SCHEMA, nodes)]
      .filter(([name]) => !taken.has(name) && name !== '$schema')
      .map(([name, node]) => ({
        label: name,
        type: 'property' as const,
        detail: typeLabel(schemaNodesAt(SCHEMA, document, [...context.path, name], 'open')),
        ...(node.description ? { info: node.description } : {}),
        apply: `${name}: `,
      }));
    return options.length > 0 ? { from: context.from, options } : undefined;
  }
  const path = context.kind === 'value' ? [...context.path, context.key!] : [...context.path, '0'];
  const nodes = schemaNodesAt(SCHEMA, document, path, 'open').map((n) => resolveRef(SCHEMA, n));
  const items = nodes.flatMap((n) => (n.type === 'array' && n.items ? [resolveRef(SCHEMA, n.items)] : []));
  const options = valueSuggestions(items.length > 0 && context.kind === 'item' ? items : nodes);
  if (options.length === 0 || (!explicit && context.prefix === '' && nodes.every((n) => !n.enum)))
    return undefined;
  return { from: context.from, options };
}

export function hoverDoc(text: string, offset: number): HoverDoc | undefined {
  const key = keyAt(text, offset);
  if (!key) return undefined;
  const nodes = schemaNodesAt(SCHEMA, documentValue(text), key.path, 'open');
  if (nodes.length === 0) return undefined;
  const description = nodes.find((n) => n.description)?.description;
  const fallback = nodes.find((n) => n.default !== undefined)?.default;
  const values = nodes.flatMap((n) => n.enum ?? []);
  return {
    from: key.from,
    to: key.to,
    field: key.path
      .map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`))
      .join('')
      .replace(/^\./, ''),
    type: typeLabel(nodes),
    ...(description ? { description } : {}),
    ...(fallback !== undefined ? { default: JSON.stringify(fallback) } : {}),
    ...(values.length > 0 ? { values: values.map((v) => JSON.stringify(v)).join(', ') } : {}),
  };
}
