/**
 * JSON Schema validation of Agent specs with ajv, turned into friendly, path-addressed problems.
 * Isomorphic: no Node APIs, so the browser playground runs the same checks.
 */
import type { ErrorObject } from 'ajv';
import agentSchemaJson from '../agent.schema.json' with { type: 'json' };
import { agentValidator } from './agent-validator.ts';
import { type JsonSchema, propertiesOf, schemaNodesAt, titleOf } from './json-schema.ts';
import { describePatternFailure } from './pattern-messages.ts';
import { closestMatch } from './suggest.ts';
import type { ToolyardAgent } from './types.generated.ts';

/** One problem in a spec, addressed by a JSON Pointer into the document. */
export interface SpecProblem {
  /** JSON Pointer of the offending value, e.g. `/spec/toolchains/0/port`. */
  readonly path: string;
  /** What is wrong, e.g. `must be <= 65535`. */
  readonly message: string;
  /** What to do about it, when there is something more specific to say. */
  readonly hint?: string;
}

/**
 * The Agent JSON Schema (`schema/agent.schema.json`, also exported as `toolyard/schema/agent.json`), typed as a
 * schema document so that the published declarations import no JSON: TypeScript apps need neither
 * `resolveJsonModule` nor an import attribute to use it.
 */
export const agentSchema: JsonSchema = agentSchemaJson as JsonSchema;

/** ajv's own errors for a document (none when it is valid). */
export function schemaErrors(value: unknown): readonly ErrorObject[] {
  const validate = agentValidator();
  return validate(value) ? [] : (validate.errors ?? []);
}

/** Validates a decoded document against the Agent schema. */
export function validateAgentDocument(value: unknown): readonly SpecProblem[] {
  return friendlyProblems(schemaErrors(value), value);
}

export function isValidAgentDocument(value: unknown): value is ToolyardAgent {
  return agentValidator()(value);
}

const REQUIRED_HINTS: readonly { field: string; parent: RegExp; hint: string }[] = [
  { field: 'tag', parent: /\/image$/, hint: 'pin the image with "tag" or "digest"' },
  {
    field: 'image',
    parent: /^\/spec\/gateways\/\d+$/,
    hint: 'a gateway is either deployed (image and port) or an existing one referenced by url',
  },
  {
    field: 'toolchain',
    parent: /^\/spec\/acknowledgedWarnings\/\d+$/,
    hint: 'a "shared-egress" acknowledgement names the toolchain it accepts the warning for',
  },
  {
    field: 'gateway',
    parent: /^\/spec\/acknowledgedWarnings\/\d+$/,
    hint: 'an "unreachable-gateway" or "wide-gateway-egress" acknowledgement names the gateway it accepts the warning for',
  },
];

/** Backend types under the names people know the CLIs by: `type: codex` is OpenAI's Codex CLI. */
const BACKEND_TYPE_ALIASES: Readonly<Record<string, { type: string; what: string }>> = {
  codex: { type: 'openai', what: "Codex (OpenAI's CLI)" },
  'codex-cli': { type: 'openai', what: "Codex (OpenAI's CLI)" },
  gpt: { type: 'openai', what: "the Codex CLI (OpenAI's models)" },
  chatgpt: { type: 'openai', what: "the Codex CLI (OpenAI's models)" },
  anthropic: { type: 'claude', what: "Claude Code (Anthropic's models)" },
  'claude-code': { type: 'claude', what: 'Claude Code' },
  google: { type: 'gemini', what: "the Gemini CLI (Google's models)" },
  'gemini-cli': { type: 'gemini', what: 'the Gemini CLI' },
};

/** The hint of an enum failure when the value is a known alias (`type: codex`). */
function aliasHint(path: string, got: unknown): string | undefined {
  if (typeof got !== 'string' || !/^\/spec\/backends\/\d+\/type$/.test(path)) return undefined;
  const alias = BACKEND_TYPE_ALIASES[got.toLowerCase()];
  return alias ? `got ${JSON.stringify(got)}: ${alias.what} is type: ${alias.type}` : undefined;
}

export function friendlyProblems(errors: readonly ErrorObject[], root: unknown): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    // if/then/else failures repeat what the branch already reported; a propertyNames failure, what the key's
    // own rule reported.
    if (error.keyword === 'if' || error.keyword === 'propertyNames') continue;
    const problem = describe(error, root);
    const key = `${problem.path}\u0000${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

/** A failure of a map's key (`propertyNames`): located at the key, worded about the key. */
function describeKey(error: ErrorObject, key: string): SpecProblem {
  const path = joinPointer(error.instancePath, key);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'pattern') {
    const described = describePatternFailure(String(params['pattern']), key);
    if (described) return { path, ...described };
  }
  if (error.keyword === 'maxLength')
    return {
      path,
      message: `key ${JSON.stringify(key)} is longer than ${String(params['limit'])} characters`,
    };
  return { path, message: `key ${JSON.stringify(key)} fails the schema's "${error.keyword}" rule` };
}

function describe(error: ErrorObject, root: unknown): SpecProblem {
  if (error.propertyName !== undefined) return describeKey(error, error.propertyName);
  const path = error.instancePath || '/';
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const field = String(params['additionalProperty']);
      const nodes = schemaNodesAt(agentSchema as JsonSchema, root, splitPointer(error.instancePath));
      const allowed = [...propertiesOf(agentSchema as JsonSchema, nodes).keys()].filter(
        (n) => n !== '$schema',
      );
      // A field of the other branch (a gateway's `url` misspelt makes it look like a deployed one) is a
      // suggestion too.
      const anyBranch = propertiesOf(
        agentSchema as JsonSchema,
        schemaNodesAt(agentSchema as JsonSchema, root, splitPointer(error.instancePath), 'all'),
      );
      const suggestion =
        closestMatch(field, allowed) ??
        (anyBranch.has(field) ? undefined : closestMatch(field, [...anyBranch.keys()]));
      const where = titleOf(nodes);
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
      const values = params['allowedValues'] as unknown[];
      const got = valueAt(root, path);
      const suggestion =
        typeof got === 'string'
          ? closestMatch(
              got,
              values.filter((v): v is string => typeof v === 'string'),
            )
          : undefined;
      return {
        path,
        message: `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`,
        hint:
          aliasHint(path, got) ??
          `got ${JSON.stringify(got)}${suggestion ? `; did you mean ${JSON.stringify(suggestion)}?` : ''}`,
      };
    }
    case 'const': {
      const allowed = params['allowedValue'];
      const got = valueAt(root, path);
      const suggestion =
        typeof got === 'string' && typeof allowed === 'string' ? closestMatch(got, [allowed]) : undefined;
      const onlyKind =
        path === '/kind' && !suggestion
          ? `; toolyard.dev/v1alpha1 has one kind, ${JSON.stringify(allowed)}`
          : '';
      return {
        path,
        message: `must be ${JSON.stringify(allowed)}`,
        hint: `got ${JSON.stringify(got)}${suggestion ? `; did you mean ${JSON.stringify(suggestion)}?` : onlyKind}`,
      };
    }
    case 'pattern': {
      const pattern = String(params['pattern']);
      const value = valueAt(root, path);
      const described = describePatternFailure(pattern, value);
      if (described) return { path, ...described };
      return { path, message: `${JSON.stringify(value)} does not match ${pattern}` };
    }
    case 'type':
      return {
        path,
        message: `must be ${withArticle(String(params['type']))}`,
        hint: `got ${typeName(valueAt(root, path))}`,
      };
    case 'minLength':
      return {
        path,
        message:
          params['limit'] === 1
            ? 'must not be empty'
            : `must be at least ${String(params['limit'])} characters`,
      };
    case 'maxLength':
      return { path, message: `must be at most ${String(params['limit'])} characters` };
    case 'minItems':
      return {
        path,
        message: `must have at least ${params['limit'] === 1 ? 'one item' : `${String(params['limit'])} items`}`,
      };
    case 'uniqueItems':
      return {
        path,
        message: `must not repeat items (items ${String(params['j'])} and ${String(params['i'])} are equal)`,
      };
    case 'minimum':
      return { path, message: `must be >= ${String(params['limit'])}` };
    case 'maximum':
      return { path, message: `must be <= ${String(params['limit'])}` };
    default:
      return { path, message: `fails the schema's "${error.keyword}" rule` };
  }
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
