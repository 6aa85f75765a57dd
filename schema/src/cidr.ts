/**
 * CIDR ranges as the Kubernetes API server reads them in a NetworkPolicy's `ipBlock` (strict form: no host
 * bits, no leading zeros, no IPv4-mapped IPv6), parsed rather than matched, so a refusal can say what is wrong
 * and what to write instead. Isomorphic: the playground runs it too.
 */

export interface ParsedCidr {
  readonly family: 4 | 6;
  /** The address part as an integer (32 or 128 bits). */
  readonly address: bigint;
  readonly prefix: number;
  /** The address carries an IPv4 address in the IPv4-mapped form (`::ffff:a.b.c.d`). */
  readonly ipv4Mapped: boolean;
}

/** Why a text is not a CIDR (`message`), what to write instead (`hint`). */
export interface CidrProblem {
  readonly message: string;
  readonly hint?: string;
}

const EXAMPLES = 'e.g. "10.0.0.0/8", "203.0.113.7/32" or "fd00::/8"';

function ipv4Problem(text: string): string | bigint {
  const parts = text.split('.');
  if (!/^[0-9.]+$/.test(text)) return `"${text}" is not an IP address`;
  if (parts.length !== 4) return `"${text}" is not an IPv4 address (four numbers 0-255 separated by dots)`;
  let value = 0n;
  for (const part of parts) {
    if (!/^[0-9]+$/.test(part))
      return `"${text}" is not an IPv4 address (four numbers 0-255 separated by dots)`;
    if (part.length > 1 && part.startsWith('0'))
      return `"${part}" in "${text}" has a leading zero, which some tools read as octal`;
    const octet = Number(part);
    if (octet > 255) return `${part} in "${text}" is not an IPv4 octet (0-255)`;
    value = (value << 8n) | BigInt(octet);
  }
  return value;
}

function ipv6Value(text: string): bigint | undefined {
  if (!/^[0-9A-Fa-f:.]+$/.test(text) || text.includes(':::')) return undefined;
  let body = text;
  let tail: number[] = [];
  const lastColon = body.lastIndexOf(':');
  if (body.slice(lastColon + 1).includes('.')) {
    const v4 = ipv4Problem(body.slice(lastColon + 1));
    if (typeof v4 !== 'bigint') return undefined;
    tail = [Number(v4 >> 16n), Number(v4 & 0xffffn)];
    body = body.slice(0, lastColon + 1);
    if (!body.endsWith('::')) body = body.slice(0, -1);
  }
  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const words = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    for (const word of part.split(':')) {
      if (!/^[0-9A-Fa-f]{1,4}$/.test(word)) return undefined;
      out.push(Number.parseInt(word, 16));
    }
    return out;
  };
  const head = words(halves[0]!);
  const rest = halves.length === 2 ? words(halves[1]!) : [];
  if (!head || !rest) return undefined;
  const given = head.length + rest.length + tail.length;
  if (halves.length === 2 ? given > 7 : given !== 8) return undefined;
  const all = [...head, ...new Array<number>(8 - given).fill(0), ...rest, ...tail];
  return all.reduce((value, word) => (value << 16n) | BigInt(word), 0n);
}

function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

function formatIpv6(value: bigint): string {
  const words = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  // RFC 5952: the longest run of two or more zero words becomes "::".
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > best.length && j - i > 1) best = { start: i, length: j - i };
    i = j;
  }
  const hex = words.map((w) => w.toString(16));
  if (best.start < 0) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}

function formatAddress(family: 4 | 6, value: bigint): string {
  return family === 4 ? formatIpv4(value) : formatIpv6(value);
}

/** Parses a CIDR; a string is the reason it is not one. Host bits are reported by `cidrProblem`, not here. */
export function parseCidr(text: string): ParsedCidr | CidrProblem {
  const slash = text.indexOf('/');
  const addressText = slash < 0 ? text : text.slice(0, slash);
  const family: 4 | 6 = addressText.includes(':') ? 6 : 4;
  const address = family === 4 ? ipv4Problem(addressText) : ipv6Value(addressText);
  if (typeof address === 'string') return { message: address, hint: EXAMPLES };
  if (address === undefined)
    return {
      message: `"${addressText}" is not an IPv6 address`,
      hint: 'eight groups of up to four hex digits separated by ":", one "::" at most for a run of zeros, e.g. "fd00::/8"',
    };
  const bits = family === 4 ? 32 : 128;
  if (slash < 0)
    return {
      message: `"${text}" has no prefix length`,
      hint: `a CIDR is an address and a prefix length: write "${text}/${bits}" for this one address, or a range such as "${family === 4 ? '10.0.0.0/8' : 'fd00::/8'}"`,
    };
  const prefixText = text.slice(slash + 1);
  if (!/^(0|[1-9][0-9]*)$/.test(prefixText))
    return {
      message: `the prefix length "/${prefixText}" is not a number without leading zeros`,
      hint: `write a number from 0 to ${bits}, e.g. "${addressText}/${bits}"`,
    };
  const prefix = Number(prefixText);
  if (prefix > bits)
    return {
      message: `the prefix length /${prefix} is more than an IPv${family} address has (${bits} bits)`,
      hint: `write /${bits} for one address, or a shorter prefix for a range`,
    };
  return { family, address, prefix, ipv4Mapped: family === 6 && address >> 32n === 0xffffn };
}

export function isParsedCidr(value: ParsedCidr | CidrProblem): value is ParsedCidr {
  return 'family' in value;
}

/** The range's network address, its host bits cleared. */
export function cidrNetwork(cidr: ParsedCidr): bigint {
  const bits = cidr.family === 4 ? 32 : 128;
  const hostMask = (1n << BigInt(bits - cidr.prefix)) - 1n;
  return cidr.address & ~hostMask;
}

/**
 * Why `text` is not a CIDR a NetworkPolicy (and the broker's `deniedCidrs`) accepts, or undefined. Host bits
 * are refused: "10.0.0.1/8" is read as 10.0.0.0/8 by some and refused by others (the API server warns that it
 * is ambiguous, and refuses it under StrictIPCIDRValidation). `allowIpv4Mapped`: an IPv4-mapped IPv6 range
 * (`::ffff:0:0/96`) is meaningful to the broker, which unmaps addresses, but not in a NetworkPolicy.
 */
export function cidrProblem(
  text: string,
  options: { allowIpv4Mapped?: boolean } = {},
): CidrProblem | undefined {
  const parsed = parseCidr(text);
  if (!isParsedCidr(parsed)) return parsed;
  const network = cidrNetwork(parsed);
  if (network !== parsed.address) {
    const bits = parsed.family === 4 ? 32 : 128;
    const range = `${formatAddress(parsed.family, network)}/${parsed.prefix}`;
    const single = `${formatAddress(parsed.family, parsed.address)}/${bits}`;
    return {
      message: `"${text}" has bits set after its /${parsed.prefix} prefix`,
      hint: `write "${range}" for the range, or "${single}" for this one address`,
    };
  }
  if (parsed.ipv4Mapped && !options.allowIpv4Mapped) {
    const v4Prefix = Math.max(0, parsed.prefix - 96);
    return {
      message: `"${text}" is an IPv4-mapped IPv6 range, which NetworkPolicies refuse`,
      hint: `write it as IPv4: "${formatIpv4(parsed.address & 0xffffffffn)}/${v4Prefix}"`,
    };
  }
  return undefined;
}
