/**
 * Kubernetes' rules for names, label keys and values, Secret keys, environment variable names and quantities,
 * each with a check that says what is wrong, in the words a spec's author needs. Isomorphic.
 */

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;
const QUANTITY = /^[+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]{1,2}|[numkMGTPE]|[KMGTPE]i)?$/;

export const MAX_DNS_LABEL = 63;
export const MAX_DNS_SUBDOMAIN = 253;

/** What a character-level failure of a DNS name is, for names that must be lower case. */
function dnsCharacters(value: string): string {
  if (value === '') return 'is empty';
  if (/[A-Z_]/.test(value)) {
    const suggestion = value
      .toLowerCase()
      .replace(/[^-a-z0-9.]+/g, '-')
      .replace(/^[-.]+|[-.]+$/g, '');
    const what = /[A-Z]/.test(value) ? 'upper-case letters' : 'an "_"';
    return suggestion === '' ? `has ${what}` : `has ${what} (e.g. write "${suggestion}")`;
  }
  if (/^[-.]/.test(value)) return `starts with "${value[0]}"`;
  if (/[-.]$/.test(value)) return `ends with "${value.at(-1)}"`;
  const bad = [...value].find((c) => !/[-a-z0-9.]/.test(c));
  if (bad !== undefined) return `has the character ${JSON.stringify(bad)}`;
  return 'is not a DNS name';
}

/** A DNS-1123 label: ≤ 63, lower-case letters, digits and `-`, starting and ending with a letter or digit. */
export function dnsLabelProblem(value: string): string | undefined {
  if (DNS1123_LABEL.test(value) && value.length <= MAX_DNS_LABEL) return undefined;
  if (value.length > MAX_DNS_LABEL) return `is ${value.length} characters, more than ${MAX_DNS_LABEL}`;
  if (value.includes('.')) return 'has a "." (a label is one part of a DNS name)';
  return dnsCharacters(value);
}

/** A DNS-1035 label: a DNS-1123 label that starts with a letter (Service names). */
export function dns1035LabelProblem(value: string): string | undefined {
  const label = dnsLabelProblem(value);
  if (label) return label;
  if (!DNS1035_LABEL.test(value))
    return `starts with "${value[0]}": it names a Service, which must start with a letter`;
  return undefined;
}

/** A DNS-1123 subdomain: ≤ 253, DNS-1123 labels separated by dots. */
export function dnsSubdomainProblem(value: string): string | undefined {
  if (DNS1123_SUBDOMAIN.test(value) && value.length <= MAX_DNS_SUBDOMAIN) return undefined;
  if (value.length > MAX_DNS_SUBDOMAIN)
    return `is ${value.length} characters, more than ${MAX_DNS_SUBDOMAIN}`;
  if (value.includes('..')) return 'has an empty part between two dots';
  return dnsCharacters(value);
}

/** A label key (also an annotation key): `[prefix/]name`, prefix a DNS subdomain, name ≤ 63. */
export function labelKeyProblem(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return 'has more than one "/" (a key is [prefix/]name)';
  const name = parts.at(-1)!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix === '') return 'has an empty prefix before "/"';
    const why = dnsSubdomainProblem(prefix);
    if (why)
      return `has a prefix "${prefix}" that ${why} (the prefix is a DNS subdomain such as example.com)`;
  }
  if (name === '') return 'has an empty name';
  if (name.length > MAX_DNS_LABEL)
    return `has a name part of ${name.length} characters, more than ${MAX_DNS_LABEL}`;
  if (!LABEL_NAME.test(name))
    return `has a name part "${name}" that is not letters, digits, "-", "_" and "." starting and ending with a letter or digit`;
  return undefined;
}

/** A label value: empty, or ≤ 63 letters, digits, `-`, `_`, `.`, starting and ending with a letter or digit. */
export function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > MAX_DNS_LABEL) return `is ${value.length} characters, more than ${MAX_DNS_LABEL}`;
  if (!LABEL_NAME.test(value))
    return 'is not letters, digits, "-", "_" and "." starting and ending with a letter or digit';
  return undefined;
}

/** An environment variable name as shells and toolyard's servers read them: letters, digits, `_`. */
export function envNameProblem(value: string): string | undefined {
  if (ENV_NAME.test(value)) return undefined;
  if (value === '') return 'is empty';
  if (/^[0-9]/.test(value)) return 'starts with a digit';
  const bad = [...value].find((c) => !/[A-Za-z0-9_]/.test(c));
  return `has the character ${JSON.stringify(bad)}`;
}

/** A key in a Secret or ConfigMap. */
export function secretKeyProblem(value: string): string | undefined {
  if (value.length > MAX_DNS_SUBDOMAIN)
    return `is ${value.length} characters, more than ${MAX_DNS_SUBDOMAIN}`;
  if (value === '') return 'is empty';
  if (value === '.' || value.startsWith('..')) return 'is "." or starts with ".."';
  if (!SECRET_KEY.test(value)) {
    const bad = [...value].find((c) => !/[-._a-zA-Z0-9]/.test(c));
    return `has the character ${JSON.stringify(bad)}`;
  }
  return undefined;
}

/** A quantity toolyard accepts: not negative, a decimal number and an optional suffix. */
export function quantityProblem(value: string): string | undefined {
  if (QUANTITY.test(value)) return undefined;
  if (value.startsWith('-')) return 'is negative';
  if (/^[+]?[0-9.]+[KMGTPE]iB$/.test(value)) return `has a "B": write "${value.slice(0, -1)}"`;
  if (/^[+]?[0-9.]+[kmgtpe]i$/.test(value))
    return `has a lower-case binary suffix: write "${value.slice(0, -2)}${value.at(-2)!.toUpperCase()}i"`;
  return 'is not a number with an optional suffix (m, k, M, G, T, Ki, Mi, Gi, Ti, …)';
}

/** A quantity's exact value as a fraction, for comparisons; undefined when `quantityProblem` refuses it. */
export function quantityValue(
  value: string,
): { readonly numerator: bigint; readonly denominator: bigint } | undefined {
  const match = QUANTITY.exec(value);
  if (!match) return undefined;
  const number = value.replace(/^\+/, '').slice(0, value.replace(/^\+/, '').length - (match[3]?.length ?? 0));
  const [whole = '', fraction = ''] = number.split('.');
  let numerator = BigInt(`${whole || '0'}${fraction}`);
  let denominator = 10n ** BigInt(fraction.length);
  const suffix = match[3] ?? '';
  const binary: Record<string, bigint> = { Ki: 10n, Mi: 20n, Gi: 30n, Ti: 40n, Pi: 50n, Ei: 60n };
  const decimal: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
  let exponent = 0;
  if (suffix in binary) numerator *= 2n ** binary[suffix]!;
  else if (suffix in decimal) exponent = decimal[suffix]!;
  else if (suffix !== '') exponent = Number(suffix.slice(1));
  if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
  else denominator *= 10n ** BigInt(-exponent);
  return { numerator, denominator };
}

/** Compares two quantities accepted by `quantityProblem`: negative, zero or positive. */
export function compareQuantities(a: string, b: string): number {
  const x = quantityValue(a);
  const y = quantityValue(b);
  if (!x || !y) return 0;
  const left = x.numerator * y.denominator;
  const right = y.numerator * x.denominator;
  return left < right ? -1 : left > right ? 1 : 0;
}
