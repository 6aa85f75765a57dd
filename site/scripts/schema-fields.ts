/**
 * Flattens a JSON Schema (draft-07 style, `#/definitions/...` refs, `if/then/else`, `oneOf/anyOf`) into one
 * entry per field path, for reference pages: `spec.toolchains[].tools.mode` with its type, default,
 * description and examples. A value that takes one of several forms (a gateway deployed by `image` or
 * referenced by `url`; a new claim or an existing one) is described as alternatives: the field lists its
 * forms, and a field that belongs to some forms only says which.
 */
import { type JsonSchema, resolveRef } from '../../schema/src/json-schema.ts';

export { type JsonSchema, resolveRef };

/** One form of a value with alternatives. */
export interface Form {
  readonly name: string;
  /** When a document takes this form, e.g. "when `url` is set", "otherwise". */
  readonly when: string;
}

/** How a field relates to the forms of its parent value. */
export interface FieldForm {
  /** Path of the value with alternatives, e.g. `spec.gateways[]`. */
  readonly of: string;
  /** Every form of that value. */
  readonly all: readonly string[];
  /** The forms that have this field. */
  readonly in: readonly string[];
  /** The forms in which this field is required. */
  readonly requiredIn: readonly string[];
}

export interface SchemaField {
  /** Dotted path, `[]` for array items, e.g. `spec.backends[].image.tag`. */
  readonly path: string;
  readonly type: string;
  /** Required wherever the field exists (for a field of some forms only: required in all of those). */
  readonly required: boolean;
  readonly description: string | undefined;
  readonly default: unknown;
  readonly examples: readonly unknown[];
  readonly constraints: readonly string[];
  /** The forms this field's value (or, for a list, each item) takes, when it has alternatives. */
  readonly forms?: readonly Form[];
  /** Set when the field belongs to a form of its parent value. */
  readonly form?: FieldForm;
  /** For a field required only under a condition, e.g. "when `digest` is not set". */
  readonly requiredWhen?: string;
}

interface Branch {
  readonly schema: JsonSchema;
  readonly form: Form;
}

function refName(schema: JsonSchema): string | undefined {
  return schema.$ref?.split('/').pop();
}

function codeList(names: readonly string[]): string {
  return names.map((n) => `\`${n}\``).join(', ');
}

/** A branch's name: its title or definition name, else its shape, e.g. `{ bearerTokenFile }`. */
function branchName(root: JsonSchema, raw: JsonSchema): string {
  const resolved = resolveRef(root, raw);
  const named = resolved.title ?? refName(raw);
  if (named) return named;
  const keys = resolved.required?.length ? resolved.required : Object.keys(resolved.properties ?? {});
  return `{ ${keys.join(', ')} }`;
}

/**
 * Conditional requirements (`if` … `then: { required }` without `else`, alone or in `allOf`): field name →
 * the condition under which it is required.
 */
function conditionalRequirements(root: JsonSchema, schema: JsonSchema): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of [schema, ...(schema.allOf ?? []).map((p) => resolveRef(root, p))]) {
    if (!part.if || !part.then || part.else) continue;
    const then = resolveRef(root, part.then);
    if (then.properties || !then.required) continue;
    for (const name of then.required) out.set(name, `when ${describeCondition(resolveRef(root, part.if))}`);
  }
  return out;
}

/**
 * The alternatives a schema may take: oneOf/anyOf branches, or if/then/else's then and else (an `if` with
 * only a `then` is a conditional requirement, not an alternative).
 */
function branches(root: JsonSchema, schema: JsonSchema): Branch[] {
  const out: Branch[] = [];
  for (const raw of [...(schema.oneOf ?? []), ...(schema.anyOf ?? [])]) {
    const resolved = resolveRef(root, raw);
    // `integer | null` is a type union, not forms of an object.
    if (!resolved.properties) continue;
    const keys = resolved.required ?? [];
    out.push({
      schema: resolved,
      form: {
        name: branchName(root, raw),
        when: keys.length > 0 ? `when it has ${codeList(keys)}` : 'otherwise',
      },
    });
  }
  if (schema.if && schema.then && schema.else) {
    const condition = describeCondition(resolveRef(root, schema.if));
    if (schema.then)
      out.push({
        schema: resolveRef(root, schema.then),
        form: { name: branchName(root, schema.then), when: `when ${condition}` },
      });
    if (schema.else)
      out.push({
        schema: resolveRef(root, schema.else),
        form: { name: branchName(root, schema.else), when: 'otherwise' },
      });
  }
  return out;
}

function describeCondition(condition: JsonSchema): string {
  const values = Object.entries(condition.properties ?? {})
    .filter(([, p]) => p.const !== undefined)
    .map(([name, p]) => `\`${name}\` is \`${JSON.stringify(p.const)}\``);
  if (values.length > 0) return values.join(' and ');
  if (condition.required?.length) return `${codeList(condition.required)} is set`;
  if (condition.not?.required?.length) return `${codeList(condition.not.required)} is not set`;
  return 'its condition holds';
}

export function describeType(root: JsonSchema, raw: JsonSchema): string {
  const schema = resolveRef(root, raw);
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (schema.enum) return schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' \\| ');
  const alternatives = branches(root, schema);
  if (alternatives.length > 0 && !schema.properties) {
    return `one of: ${alternatives.map((b) => `\`${b.form.name}\``).join(' \\| ')}`;
  }
  const union = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  if (union.length > 0 && !schema.properties) return union.map((b) => describeType(root, b)).join(' \\| ');
  const type = Array.isArray(schema.type) ? schema.type.join(' \\| ') : (schema.type as string | undefined);
  if (type === 'array' && schema.items) return `array of ${describeType(root, schema.items)}`;
  if (type === 'object' && !schema.properties && typeof schema.additionalProperties === 'object') {
    return `map of string to ${describeType(root, schema.additionalProperties)}`;
  }
  return type ?? 'any';
}

/** JSON's largest safe integer: what zod writes as the bound of an unbounded `int()`, not a real limit. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/** zod writes `startsWith('/')` as a pattern plus a format; say what it means. */
function affixConstraint(schema: JsonSchema): string | undefined {
  const literal = (pattern: string) => pattern.replace(/\\(.)/g, '$1');
  if (schema.format === 'starts_with' && schema.pattern) {
    return `starts with \`${literal(schema.pattern.replace(/^\^/, '').replace(/\.\*$/, ''))}\``;
  }
  if (schema.format === 'ends_with' && schema.pattern) {
    return `ends with \`${literal(schema.pattern.replace(/^\.\*/, '').replace(/\$$/, ''))}\``;
  }
  return undefined;
}

function constraintsOf(root: JsonSchema, raw: JsonSchema): string[] {
  const schema = resolveRef(root, raw);
  const out: string[] = [];
  const affix = affixConstraint(schema);
  if (affix) out.push(affix);
  else {
    if (schema.pattern) out.push(`pattern \`${schema.pattern}\``);
    if (schema.format) out.push(`format ${schema.format}`);
  }
  if (schema.minimum !== undefined && schema.minimum > -UNBOUNDED) out.push(`minimum ${schema.minimum}`);
  if (schema.exclusiveMinimum !== undefined) out.push(`greater than ${schema.exclusiveMinimum}`);
  if (schema.maximum !== undefined && schema.maximum < UNBOUNDED) out.push(`maximum ${schema.maximum}`);
  if (schema.minLength !== undefined && schema.minLength > 0)
    out.push(schema.minLength === 1 ? 'not empty' : `at least ${schema.minLength} characters`);
  if (schema.maxLength !== undefined) out.push(`at most ${schema.maxLength} characters`);
  if (schema.minItems !== undefined && schema.minItems > 0)
    out.push(`at least ${schema.minItems} item${schema.minItems === 1 ? '' : 's'}`);
  if (schema.maxItems !== undefined) out.push(`at most ${schema.maxItems} items`);
  if (schema.uniqueItems) out.push('items are unique');
  if (schema.items) out.push(...constraintsOf(root, schema.items).map((c) => `each item: ${c}`));
  if (schema.additionalProperties === false && schema.properties) out.push('no other keys');
  return out;
}

interface Building extends Omit<SchemaField, 'form' | 'required'> {
  required: boolean;
  form?: { of: string; all: string[]; in: Set<string>; requiredIn: Set<string> };
}

export function schemaFields(root: JsonSchema): SchemaField[] {
  const fields = new Map<string, Building>();
  const at = (path: string, name: string) => (path === '' ? name : `${path}.${name}`);
  const walk = (
    raw: JsonSchema,
    path: string,
    required: boolean,
    seen: ReadonlySet<string>,
    form?: { of: string; all: string[]; name: string },
  ) => {
    const ref = raw.$ref;
    if (ref && seen.has(ref)) return;
    const nextSeen = ref ? new Set([...seen, ref]) : seen;
    const schema = resolveRef(root, raw);
    const existing = fields.get(path);
    if (path !== '' && !existing) {
      fields.set(path, {
        path,
        type: describeType(root, raw),
        required,
        description: schema.description,
        default: schema.default,
        examples: schema.examples ?? [],
        constraints: constraintsOf(root, raw),
        ...(form
          ? {
              form: {
                of: form.of,
                all: form.all,
                in: new Set([form.name]),
                requiredIn: new Set(required ? [form.name] : []),
              },
            }
          : {}),
      });
    } else if (existing?.form && form && existing.form.of === form.of) {
      existing.form.in.add(form.name);
      if (required) existing.form.requiredIn.add(form.name);
      // Already described: its children were walked with the first form.
      return;
    }
    const conditional = conditionalRequirements(root, schema);
    for (const [name, child] of Object.entries(schema.properties ?? {})) {
      walk(child, at(path, name), schema.required?.includes(name) ?? false, nextSeen);
      const when = conditional.get(name);
      const field = fields.get(at(path, name));
      if (when && field && !field.required) (field as { requiredWhen?: string }).requiredWhen = when;
    }
    const alternatives = branches(root, schema);
    if (alternatives.length > 0) {
      // The forms are described at the nearest field a page shows: a list's items at the list.
      const shown = path.endsWith('[]') ? path.slice(0, -2) : path;
      const owner = fields.get(shown);
      if (owner) (owner as { forms?: Form[] }).forms = alternatives.map((b) => b.form);
      const all = alternatives.map((b) => b.form.name);
      for (const branch of alternatives) {
        for (const [name, child] of Object.entries(branch.schema.properties ?? {})) {
          walk(child, at(path, name), branch.schema.required?.includes(name) ?? false, nextSeen, {
            of: path,
            all,
            name: branch.form.name,
          });
        }
        if (branch.schema.items) walk(branch.schema.items, `${path}[]`, true, nextSeen);
      }
    }
    if (schema.items) walk(schema.items, `${path}[]`, true, nextSeen);
    if (typeof schema.additionalProperties === 'object' && schema.additionalProperties.properties) {
      walk(schema.additionalProperties, `${path}.<key>`, true, nextSeen);
    }
  };
  walk(root, '', true, new Set());
  return [...fields.values()].map(({ form, ...field }) => {
    if (!form) return field;
    const inForms = form.all.filter((name) => form.in.has(name));
    const requiredIn = form.all.filter((name) => form.requiredIn.has(name));
    return {
      ...field,
      required: requiredIn.length === inForms.length,
      form: { of: form.of, all: form.all, in: inForms, requiredIn },
    };
  });
}

/** "Required" as a reference page states it: yes, no, or in which forms. */
export function requiredText(field: SchemaField): string {
  const form = field.form;
  if (field.requiredWhen) return field.requiredWhen;
  if (form && form.in.length === form.all.length && !field.required && form.requiredIn.length > 0) {
    return `in ${form.requiredIn.map((f) => `\`${f}\``).join(', ')}`;
  }
  return field.required ? 'yes' : 'no';
}

/** For a field of some forms only, which: "only in `DeployedGateway`". */
export function formText(field: SchemaField): string | undefined {
  const form = field.form;
  if (!form || form.in.length === form.all.length) return undefined;
  return `only in ${form.in.map((f) => `\`${f}\``).join(', ')}`;
}
