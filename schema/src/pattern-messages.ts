/**
 * What a value that fails one of the Agent schema's `pattern`s is, in words: every pattern of the schema has
 * an entry here (test/schema/pattern-messages.test.ts keeps them in step), so no message shows a regular
 * expression. Isomorphic.
 */
import agentSchemaJson from '../agent.schema.json' with { type: 'json' };
import { cidrProblem } from './cidr.ts';
import {
  dns1035LabelProblem,
  dnsLabelProblem,
  dnsSubdomainProblem,
  envNameProblem,
  labelKeyProblem,
  labelValueProblem,
  quantityProblem,
  secretKeyProblem,
} from './kubernetes-names.ts';

export interface PatternMessage {
  readonly message: string;
  readonly hint?: string;
}

type Describe = (value: string) => PatternMessage;

const definitions = (agentSchemaJson as { definitions: Record<string, { pattern?: string }> }).definitions;

function definitionPattern(name: string): string {
  const pattern = definitions[name]?.pattern;
  if (pattern === undefined) throw new Error(`schema definition ${name} has no pattern`);
  return pattern;
}

const quoted = (value: string) => JSON.stringify(value);

const DESCRIBE_BY_DEFINITION: Readonly<Record<string, Describe>> = {
  DnsLabel: (value) => ({
    message: `${quoted(value)} is not a DNS-1123 label: it ${dnsLabelProblem(value) ?? 'is not one'}`,
    hint: 'use lower-case letters, digits and "-", starting and ending with a letter or digit (at most 63)',
  }),
  Dns1035Label: (value) => ({
    message: `${quoted(value)} is not a DNS-1035 label: it ${dns1035LabelProblem(value) ?? 'is not one'}`,
    hint: 'use lower-case letters, digits and "-", starting with a letter and ending with a letter or digit',
  }),
  DnsSubdomain: (value) => ({
    message: `${quoted(value)} is not a Kubernetes object name (a DNS-1123 subdomain): it ${dnsSubdomainProblem(value) ?? 'is not one'}`,
    hint: 'use lower-case letters, digits, "-" and ".", starting and ending with a letter or digit',
  }),
  EnvName: (value) => ({
    message: `${quoted(value)} is not an environment variable name: it ${envNameProblem(value) ?? 'is not one'}`,
    hint: 'use letters, digits and "_", not starting with a digit',
  }),
  Quantity: (value) => ({
    message: `${quoted(value)} is not a Kubernetes quantity: it ${quantityProblem(value) ?? 'is not one'}`,
    hint: 'use a quantity such as "500m", "1Gi" or "2"',
  }),
  Cidr: (value) => {
    const problem = cidrProblem(value) ?? { message: `${quoted(value)} is not a CIDR range` };
    return { message: problem.message, hint: problem.hint ?? 'e.g. "10.0.0.0/8" or "fd00::/8"' };
  },
  LabelKey: (value) => ({
    message: `${quoted(value)} is not a label or annotation key: it ${labelKeyProblem(value) ?? 'is not one'}`,
    hint: 'a key is an optional DNS-subdomain prefix and "/", then a name of at most 63 letters, digits, "-", "_", "." (e.g. example.com/team)',
  }),
  LabelValue: (value) => ({
    message: `${quoted(value)} is not a label value: it ${labelValueProblem(value) ?? 'is not one'}`,
    hint: 'a label value is empty or at most 63 letters, digits, "-", "_" and ".", starting and ending with a letter or digit',
  }),
  SecretKey: (value) => ({
    message: `${quoted(value)} is not a Secret key: it ${secretKeyProblem(value) ?? 'is not one'}`,
    hint: 'use letters, digits, "-", "_" and ".", e.g. api-key',
  }),
};

/** Patterns written inline in the schema, by the pattern itself. */
const DESCRIBE_BY_PATTERN: Readonly<Record<string, Describe>> = {
  '^[A-Za-z0-9][A-Za-z0-9._+-]*$': (value) => ({
    message: `${quoted(value)} is not a bare command name`,
    hint: 'use a command name such as "cargo": no path, no spaces, no arguments',
  }),
  '^sha256:[a-f0-9]{64}$': (value) => ({
    message: `${quoted(value)} is not an image digest`,
    hint: 'use a digest of the form sha256:<64 lower-case hex characters>',
  }),
  '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$': (value) => ({
    message: `${quoted(value)} is not an image tag`,
    hint: 'a tag is at most 128 letters, digits, "_", "." and "-", not starting with "." or "-"',
  }),
  '^[a-z0-9]+([._:/-][a-z0-9]+)*$': (value) => ({
    message: `${quoted(value)} is not an image repository`,
    hint: 'use a lower-case reference such as ghcr.io/example/agent or docker.io/library/rust (no tag: that goes in "tag")',
  }),
  '^https://[a-z0-9.-]+(:[0-9]{1,5})?(/[^\\s?#]*)?$': (value) => ({
    message: `${quoted(value)} is not an https:// URL of a provider`,
    hint: 'use https://<lower-case host>[:port][/path], without query or fragment, e.g. https://llm.example.com/v1',
  }),
  '^https?://[^\\s/]+(/[^\\s]*)?$': (value) => ({
    message: `${quoted(value)} is not an http:// or https:// URL`,
    hint: 'e.g. https://mcp.example.com/mcp',
  }),
  '^https?://[^?#]+$': (value) => ({
    message: `${quoted(value)} is not an http:// or https:// URL without query or fragment`,
    hint: 'e.g. http://otel-collector.observability.svc:4318 in the cluster, https://otlp.example.com outside it',
  }),
  '^/[^\\s]*$': (value) => ({
    message: `${quoted(value)} is not an absolute path without spaces`,
    hint: 'start with "/", e.g. /workspace',
  }),
  '^/': (value) => ({ message: `${quoted(value)} does not start with "/"`, hint: 'e.g. /healthz' }),
  '^[a-z0-9-]+$': (value) => ({
    message: `${quoted(value)} is not a lower-case HTTP header name`,
    hint: 'use lower-case letters, digits and "-", e.g. x-api-key',
  }),
};

const BY_PATTERN: ReadonlyMap<string, Describe> = new Map([
  ...Object.entries(DESCRIBE_BY_DEFINITION).map(
    ([name, describe]) => [definitionPattern(name), describe] as const,
  ),
  ...Object.entries(DESCRIBE_BY_PATTERN),
]);

/** The words for a value that fails `pattern`, or undefined for a pattern this table does not know. */
export function describePatternFailure(pattern: string, value: unknown): PatternMessage | undefined {
  const describe = BY_PATTERN.get(pattern);
  if (!describe) return undefined;
  return describe(typeof value === 'string' ? value : JSON.stringify(value));
}

/** The patterns this table describes (for the test that every schema pattern has words). */
export function describedPatterns(): readonly string[] {
  return [...BY_PATTERN.keys()];
}
