/**
 * Flattens a JSON Schema (draft-07 style, `#/definitions/...` refs, `if/then/else`, `oneOf/anyOf`) into one
 * entry per field path, for reference pages: `spec.toolchains[].tools.mode` with its type, default,
 * description and examples.
 */

export type JsonSchema = {
  readonly $ref?: string;
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
  readonly if?: JsonSchema;
  readonly then?: JsonSchema;
  readonly else?: JsonSchema;
  readonly definitions?: Readonly<Record<string, JsonSchema>>;
  readonly $defs?: Readonly<Record<string, JsonSchema>>;
};

export interface SchemaField {
  /** Dotted path, `[]` for array items, e.g. `spec.backends[].image.tag`. */
  readonly path: string;
  readonly type: string;
  readonly required: boolean;
  readonly description: string | undefined;
  readonly default: unknown;
  readonly examples: readonly unknown[];
  readonly constraints: readonly string[];
}

export function resolveRef(root: JsonSchema, schema: JsonSchema): JsonSchema {
  let current = schema;
  for (let hops = 0; current.$ref && hops < 20; hops++) {
    const match = /^#\/(definitions|\$defs)\/(.+)$/.exec(current.$ref);
    if (!match) throw new Error(`unsupported $ref ${current.$ref}`);
    const table = match[1] === 'definitions' ? root.definitions : root.$defs;
    const target = table?.[match[2]!];
    if (!target) throw new Error(`dangling $ref ${current.$ref}`);
    // Sibling keywords (description, default) next to a $ref refine the target.
    const { $ref: _ref, ...siblings } = current;
    current = { ...target, ...siblings };
  }
  return current;
}

/** The alternatives a schema may take: oneOf/anyOf branches, or if/then/else's then and else. */
function alternatives(root: JsonSchema, schema: JsonSchema): JsonSchema[] {
  const branches = [...(schema.oneOf ?? []), ...(schema.anyOf ?? [])];
  if (schema.then) branches.push(schema.then);
  if (schema.else) branches.push(schema.else);
  return branches.map((b) => resolveRef(root, b));
}

function refName(schema: JsonSchema): string | undefined {
  return schema.$ref?.split('/').pop();
}

export function describeType(root: JsonSchema, raw: JsonSchema): string {
  const schema = resolveRef(root, raw);
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (schema.enum) return schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' \\| ');
  const branches = alternatives(root, schema);
  if (branches.length > 0 && !schema.properties) {
    const rawBranches = [...(schema.oneOf ?? []), ...(schema.anyOf ?? [])];
    const named = rawBranches.map((b) => refName(b) ?? describeType(root, b));
    if (named.length > 0) return named.join(' \\| ');
    return [schema.then, schema.else]
      .filter((b): b is JsonSchema => b !== undefined)
      .map((b) => refName(b) ?? describeType(root, b))
      .join(' \\| ');
  }
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type as string | undefined);
  if (type === 'array' && schema.items) return `array of ${describeType(root, schema.items)}`;
  if (type === 'object' && !schema.properties && typeof schema.additionalProperties === 'object') {
    return `map of string to ${describeType(root, schema.additionalProperties)}`;
  }
  return type ?? 'any';
}

function constraintsOf(root: JsonSchema, raw: JsonSchema): string[] {
  const schema = resolveRef(root, raw);
  const out: string[] = [];
  if (schema.pattern) out.push(`pattern \`${schema.pattern}\``);
  if (schema.format) out.push(`format ${schema.format}`);
  if (schema.minimum !== undefined) out.push(`minimum ${schema.minimum}`);
  if (schema.exclusiveMinimum !== undefined) out.push(`greater than ${schema.exclusiveMinimum}`);
  if (schema.maximum !== undefined) out.push(`maximum ${schema.maximum}`);
  if (schema.minLength !== undefined && schema.minLength > 0)
    out.push(`at least ${schema.minLength} characters`);
  if (schema.maxLength !== undefined) out.push(`at most ${schema.maxLength} characters`);
  if (schema.minItems !== undefined && schema.minItems > 0) out.push(`at least ${schema.minItems} items`);
  if (schema.maxItems !== undefined) out.push(`at most ${schema.maxItems} items`);
  if (schema.uniqueItems) out.push('items are unique');
  if (schema.items) out.push(...constraintsOf(root, schema.items).map((c) => `each item: ${c}`));
  if (schema.additionalProperties === false && schema.properties) out.push('no other keys');
  return out;
}

export function schemaFields(root: JsonSchema): SchemaField[] {
  const fields = new Map<string, SchemaField>();
  const walk = (raw: JsonSchema, path: string, required: boolean, seen: ReadonlySet<string>) => {
    const ref = raw.$ref;
    if (ref && seen.has(ref)) return;
    const nextSeen = ref ? new Set([...seen, ref]) : seen;
    const schema = resolveRef(root, raw);
    if (path !== '' && !fields.has(path)) {
      fields.set(path, {
        path,
        type: describeType(root, raw),
        required,
        description: schema.description,
        default: schema.default,
        examples: schema.examples ?? [],
        constraints: constraintsOf(root, raw),
      });
    }
    for (const [name, child] of Object.entries(schema.properties ?? {})) {
      walk(child, path === '' ? name : `${path}.${name}`, schema.required?.includes(name) ?? false, nextSeen);
    }
    for (const branch of alternatives(root, schema)) {
      for (const [name, child] of Object.entries(branch.properties ?? {})) {
        walk(
          child,
          path === '' ? name : `${path}.${name}`,
          branch.required?.includes(name) ?? false,
          nextSeen,
        );
      }
      if (branch.items) walk(branch.items, `${path}[]`, true, nextSeen);
    }
    if (schema.items) walk(schema.items, `${path}[]`, true, nextSeen);
    if (typeof schema.additionalProperties === 'object' && schema.additionalProperties.properties) {
      walk(schema.additionalProperties, `${path}.<key>`, true, nextSeen);
    }
  };
  walk(root, '', true, new Set());
  return [...fields.values()];
}
