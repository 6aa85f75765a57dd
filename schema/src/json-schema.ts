/**
 * The subset of JSON Schema (draft-07) the Agent schema uses, and a navigator from a document path to the
 * schema nodes that describe it: for error hints, editor completion and hover, and the reference pages.
 * Isomorphic: no Node APIs.
 */

export type JsonSchema = {
  readonly $ref?: string;
  readonly $id?: string;
  readonly type?: string | readonly string[];
  readonly title?: string;
  readonly description?: string;
  readonly default?: unknown;
  readonly examples?: readonly unknown[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly pattern?: string;
  readonly format?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly additionalProperties?: boolean | JsonSchema;
  readonly items?: JsonSchema;
  readonly oneOf?: readonly JsonSchema[];
  readonly anyOf?: readonly JsonSchema[];
  readonly allOf?: readonly JsonSchema[];
  readonly not?: JsonSchema;
  readonly propertyNames?: JsonSchema;
  readonly if?: JsonSchema;
  readonly then?: JsonSchema;
  readonly else?: JsonSchema;
  readonly definitions?: Readonly<Record<string, JsonSchema>>;
  readonly $defs?: Readonly<Record<string, JsonSchema>>;
};

/** Follows `$ref`s to `#/definitions/…`; sibling keywords next to a `$ref` (description, default) refine it. */
export function resolveRef(root: JsonSchema, schema: JsonSchema): JsonSchema {
  let current = schema;
  for (let hops = 0; current.$ref && hops < 20; hops++) {
    const match = /^#\/(definitions|\$defs)\/(.+)$/.exec(current.$ref);
    if (!match) throw new Error(`unsupported $ref ${current.$ref}`);
    const table = match[1] === 'definitions' ? root.definitions : root.$defs;
    const target = table?.[match[2]!];
    if (!target) throw new Error(`dangling $ref ${current.$ref}`);
    const { $ref: _ref, ...siblings } = current;
    current = { ...target, ...siblings };
  }
  return current;
}

/**
 * Whether `value` satisfies an `if` schema, for the discriminating forms the Agent schema uses (`required`,
 * `not`, `properties` with `const`). `undefined` when the schema or the value cannot say.
 */
function satisfies(root: JsonSchema, raw: JsonSchema, value: unknown): boolean | undefined {
  const schema = resolveRef(root, raw);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const object = value as Record<string, unknown>;
  let result = true;
  for (const key of Object.keys(schema)) {
    if (key === 'required') result &&= schema.required!.every((name) => name in object);
    else if (key === 'not') {
      const inner = satisfies(root, schema.not!, value);
      if (inner === undefined) return undefined;
      result &&= !inner;
    } else if (key === 'properties') {
      for (const [name, property] of Object.entries(schema.properties!)) {
        if (!(name in object)) continue;
        if (property.const === undefined) return undefined;
        result &&= object[name] === property.const;
      }
    } else if (key !== 'description' && key !== 'title') return undefined;
  }
  return result;
}

/**
 * How `if`/`then`/`else` branches are chosen: `data` picks the branch the document selects, as a validator
 * does; `all` keeps every branch; `open` keeps the `then` branch once the document satisfies the condition
 * and both until then, for offering what an unfinished document may still choose (a gateway without `url`
 * yet may become either form).
 */
export type BranchMode = 'data' | 'all' | 'open';

/** A schema node with its `$ref`, `allOf` and `if`/`then`/`else` expanded into the nodes that apply. */
export function expandSchema(
  root: JsonSchema,
  raw: JsonSchema,
  value: unknown,
  mode: BranchMode = 'data',
): JsonSchema[] {
  const schema = resolveRef(root, raw);
  const out: JsonSchema[] = [schema];
  for (const part of schema.allOf ?? []) out.push(...expandSchema(root, part, value, mode));
  if (schema.if) {
    const satisfied = mode === 'all' ? undefined : satisfies(root, schema.if, value);
    const chosen = mode === 'open' && satisfied === false ? undefined : satisfied;
    if (schema.then && chosen !== false) out.push(...expandSchema(root, schema.then, value, mode));
    if (schema.else && chosen !== true) out.push(...expandSchema(root, schema.else, value, mode));
  }
  return out;
}

function child(value: unknown, segment: string): unknown {
  if (value === null || typeof value !== 'object') return undefined;
  return (value as Record<string, unknown>)[segment];
}

/**
 * The schema nodes describing the value at `segments` (object keys and array indexes) of `document`. Empty
 * when the path leads outside the schema (an unknown field).
 */
export function schemaNodesAt(
  root: JsonSchema,
  document: unknown,
  segments: readonly string[],
  mode: BranchMode = 'data',
): JsonSchema[] {
  let value: unknown = document;
  let nodes = expandSchema(root, root, value, mode);
  for (const segment of segments) {
    value = child(value, segment);
    const next: JsonSchema[] = [];
    for (const node of nodes) {
      const property = node.properties?.[segment];
      if (property) next.push(property);
      else if (node.items && /^\d+$/.test(segment)) next.push(node.items);
      else if (typeof node.additionalProperties === 'object') next.push(node.additionalProperties);
    }
    nodes = next.flatMap((node) => expandSchema(root, node, value, mode));
    if (nodes.length === 0) return [];
  }
  return nodes;
}

/** The fields an object at this place may have, in schema order, with the schema node of each. */
export function propertiesOf(root: JsonSchema, nodes: readonly JsonSchema[]): Map<string, JsonSchema> {
  const properties = new Map<string, JsonSchema>();
  for (const node of nodes) {
    for (const [name, property] of Object.entries(node.properties ?? {})) {
      if (!properties.has(name)) properties.set(name, resolveRef(root, property));
    }
  }
  return properties;
}

/** The nearest `title` among the nodes, e.g. `ExternalGateway` for a gateway referenced by url. */
export function titleOf(nodes: readonly JsonSchema[]): string | undefined {
  return [...nodes].reverse().find((node) => node.title)?.title;
}
