/**
 * JSON Schema validation of Agent specs with ajv, turned into friendly, path-addressed problems.
 * Isomorphic: no Node APIs, so the browser playground runs the same checks.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import agentSchemaJson from '../agent.schema.json' with { type: 'json' };
import type { ToolyardAgent } from './types.generated.ts';

/** A JSON Schema document (draft-07), as ajv and editors read it. */
export interface JsonSchemaDocument {
  readonly [keyword: string]: unknown;
}

/**
 * The Agent JSON Schema (`schema/agent.schema.json`, also exported as `toolyard/schema/agent.json`). Typed as a
 * plain document so that the published declarations import no JSON: TypeScript apps need neither
 * `resolveJsonModule` nor an import attribute to use it.
 */
export const agentSchema: JsonSchemaDocument = agentSchemaJson;

/** One problem in a spec, addressed by a JSON Pointer into the document. */
export interface SpecProblem {
  /** JSON Pointer of the offending value, e.g. `/spec/toolchains/0/port`. */
  readonly path: string;
  /** What is wrong, e.g. `must be <= 65535`. */
  readonly message: string;
  /** What to do about it, when there is something more specific to say. */
  readonly hint?: string;
}

let compiled: ValidateFunction<ToolyardAgent> | undefined;

function validator(): ValidateFunction<ToolyardAgent> {
  if (compiled === undefined) {
    const ajv = new Ajv({
      allErrors: true,
      strict: true,
      strictRequired: false,
      strictTypes: false,
      verbose: true,
    });
    // json-schema-to-typescript's annotation for union types; meaningless to validation.
    ajv.addKeyword({ keyword: 'tsType', schemaType: 'string' });
    compiled = ajv.compile<ToolyardAgent>(agentSchema);
  }
  return compiled as ValidateFunction<ToolyardAgent>;
}

/** Validates a decoded document against the Agent schema. */
export function validateAgentDocument(value: unknown): readonly SpecProblem[] {
  const validate = validator();
  if (validate(value)) return [];
  return friendlyProblems(validate.errors ?? [], value);
}

export function isValidAgentDocument(value: unknown): value is ToolyardAgent {
  return validator()(value);
}

const REQUIRED_HINTS: readonly { field: string; parent: RegExp; hint: string }[] = [
  { field: 'tag', parent: /\/image$/, hint: 'pin the image with "tag" or "digest"' },
  {
    field: 'image',
    parent: /^\/spec\/gateways\/\d+$/,
    hint: 'a gateway is either deployed (image and port) or an existing one referenced by url',
  },
];

const PATTERN_HINTS: Record<string, string> = {
  '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$':
    'use a DNS-1123 label: lowercase letters, digits and "-", starting and ending with a letter or digit',
  '^[A-Za-z_][A-Za-z0-9_]*$':
    'use an environment variable name: letters, digits and "_", not starting with a digit',
  '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': 'use a Kubernetes quantity such as "500m", "1Gi" or "2"',
  '^[A-Za-z0-9][A-Za-z0-9._+-]*$':
    'use a bare command name such as "cargo": no path, no spaces, no arguments',
  '^sha256:[a-f0-9]{64}$': 'use a digest of the form sha256:<64 hex characters>',
};

function friendlyProblems(errors: readonly ErrorObject[], root: unknown): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    // if/then/else failures repeat what the branch already reported.
    if (error.keyword === 'if') continue;
    const problem = describe(error, root);
    const key = `${problem.path}\u0000${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

function describe(error: ErrorObject, root: unknown): SpecProblem {
  const path = error.instancePath || '/';
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const field = String(params['additionalProperty']);
      const allowed = allowedProperties(error);
      const suggestion = closest(field, allowed);
      const where = (error.parentSchema as { title?: string } | undefined)?.title;
      return {
        path: joinPointer(error.instancePath, field),
        message: `unknown field "${field}"`,
        hint: suggestion
          ? `did you mean "${suggestion}"?`
          : allowed.length > 0
            ? `allowed${where ? ` in ${where}` : ' here'}: ${allowed.join(', ')}`
            : undefined,
      };
    }
    case 'required': {
      const field = String(params['missingProperty']);
      const hint = REQUIRED_HINTS.find((h) => h.field === field && h.parent.test(error.instancePath))?.hint;
      return {
        path: joinPointer(error.instancePath, field),
        message: `missing required field "${field}"`,
        hint,
      };
    }
    case 'enum': {
      const allowed = (params['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ');
      return {
        path,
        message: `must be one of ${allowed}`,
        hint: `got ${JSON.stringify(valueAt(root, path))}`,
      };
    }
    case 'const':
      return { path, message: `must be ${JSON.stringify(params['allowedValue'])}` };
    case 'pattern': {
      const pattern = String(params['pattern']);
      return {
        path,
        message: `${JSON.stringify(valueAt(root, path))} does not match ${pattern}`,
        hint: PATTERN_HINTS[pattern],
      };
    }
    case 'type':
      return {
        path,
        message: `must be ${withArticle(String(params['type']))}`,
        hint: `got ${typeName(valueAt(root, path))}`,
      };
    case 'minItems':
      return { path, message: `must have at least ${String(params['limit'])} item(s)` };
    case 'uniqueItems':
      return {
        path,
        message: `must not repeat items (items ${String(params['j'])} and ${String(params['i'])} are equal)`,
      };
    default:
      return { path, message: error.message ?? `fails ${error.keyword}` };
  }
}

function allowedProperties(error: ErrorObject): string[] {
  const schema = error.parentSchema as { properties?: Record<string, unknown> } | undefined;
  return Object.keys(schema?.properties ?? {}).filter((name) => name !== '$schema');
}

/** JSON Pointer escaping (RFC 6901). */
export function joinPointer(base: string, segment: string | number): string {
  return `${base}/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

export function splitPointer(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function valueAt(root: unknown, pointer: string): unknown {
  let current: unknown = root;
  for (const segment of splitPointer(pointer)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return withArticle(typeof value);
}

function withArticle(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** The allowed name closest to a misspelt one, if it is close enough to be a plausible typo. */
function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(word.length / 4)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  let beforePrevious = previous;
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      // Two swapped neighbours ("handels") count as one edit.
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        current[j] = Math.min(current[j]!, beforePrevious[j - 2]! + 1);
      }
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length]!;
}
