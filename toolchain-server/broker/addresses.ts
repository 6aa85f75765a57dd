/**
 * IP addresses and CIDR ranges, IPv4 and IPv6, as bigints. Kept free of Node APIs (the config schema, which
 * the renderer bundles for the browser, validates `deniedCidrs` with `parseCidr`).
 *
 * An IPv6 address that carries an IPv4 address — IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible
 * (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`) or 6to4 (`2002:AABB:CCDD::`) — is checked against the IPv4
 * ranges too, so `::ffff:127.0.0.1` is as denied as `127.0.0.1`.
 */

export interface IpAddress {
  readonly family: 4 | 6;
  readonly value: bigint;
}

export interface Cidr {
  readonly family: 4 | 6;
  readonly network: bigint;
  readonly prefix: number;
  readonly text: string;
}

const IPV4_PART = /^(0|[1-9][0-9]{0,2})$/;

/** Strict dotted-quad IPv4 (no octal, hex or shortened forms). */
export function parseIpv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!IPV4_PART.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

/** IPv6 in any RFC 4291 text form, with an optional trailing dotted quad; zone ids are refused. */
export function parseIpv6(input: string): bigint | undefined {
  let text = input.toLowerCase();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (text === '' || text.includes('%')) return undefined;
  const words: number[] = [];
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (lastColon >= 0 && text.slice(lastColon + 1).includes('.')) {
    const v4 = parseIpv4(text.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    tail = [Number(v4 >> 16n), Number(v4 & 0xffffn)];
    text = text.slice(0, lastColon + 1);
    if (text.endsWith('::')) {
      // "::1.2.3.4" or "a::1.2.3.4": keep the double colon.
    } else if (text.endsWith(':')) text = text.slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parseWords = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    for (const word of part.split(':')) {
      if (!/^[0-9a-f]{1,4}$/.test(word)) return undefined;
      out.push(Number.parseInt(word, 16));
    }
    return out;
  };
  const head = parseWords(halves[0]!);
  const rest = halves.length === 2 ? parseWords(halves[1]!) : [];
  if (!head || !rest) return undefined;
  const given = head.length + rest.length + tail.length;
  if (halves.length === 2) {
    if (given > 7) return undefined;
    words.push(...head, ...new Array<number>(8 - given).fill(0), ...rest, ...tail);
  } else {
    if (given !== 8) return undefined;
    words.push(...head, ...tail);
  }
  let value = 0n;
  for (const word of words) value = (value << 16n) | BigInt(word);
  return value;
}

/** An IPv4 or IPv6 literal, or undefined when `text` is neither. */
export function parseIp(text: string): IpAddress | undefined {
  const v4 = parseIpv4(text);
  if (v4 !== undefined) return { family: 4, value: v4 };
  const v6 = parseIpv6(text);
  if (v6 !== undefined) return { family: 6, value: v6 };
  return undefined;
}

/** `a.b.c.d/n` or `v6::/n`; undefined when malformed or when host bits are set beyond the prefix. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const address = parseIp(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (!address || !/^(0|[1-9][0-9]{0,2})$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  const bits = address.family === 4 ? 32 : 128;
  if (prefix > bits) return undefined;
  const hostMask = (1n << BigInt(bits - prefix)) - 1n;
  if ((address.value & hostMask) !== 0n) return undefined;
  return { family: address.family, network: address.value, prefix, text };
}

function inCidr(family: 4 | 6, value: bigint, cidr: Cidr): boolean {
  if (cidr.family !== family) return false;
  const bits = family === 4 ? 32 : 128;
  return value >> BigInt(bits - cidr.prefix) === cidr.network >> BigInt(bits - cidr.prefix);
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), if any. */
export function embeddedIpv4(value: bigint): bigint | undefined {
  const top96 = value >> 32n;
  const low32 = value & 0xffffffffn;
  if (top96 === 0xffffn) return low32; // ::ffff:a.b.c.d
  if (top96 === 0n && value > 1n) return low32; // ::a.b.c.d (not :: or ::1)
  if (top96 === 0x0064ff9b0000000000000000n) return low32; // 64:ff9b::a.b.c.d
  if (value >> 112n === 0x2002n) return (value >> 80n) & 0xffffffffn; // 2002:AABB:CCDD::
  return undefined;
}

/** The first range in `cidrs` that holds `address` (or the IPv4 address it carries), or undefined. */
export function deniedBy(address: IpAddress, cidrs: readonly Cidr[]): Cidr | undefined {
  for (const cidr of cidrs) if (inCidr(address.family, address.value, cidr)) return cidr;
  if (address.family === 6) {
    const v4 = embeddedIpv4(address.value);
    if (v4 !== undefined) for (const cidr of cidrs) if (inCidr(4, v4, cidr)) return cidr;
  }
  return undefined;
}

/** Parses every range, throwing on the first malformed one (config parsing has already refused those). */
export function parseCidrs(texts: readonly string[]): Cidr[] {
  return texts.map((text) => {
    const cidr = parseCidr(text);
    if (!cidr) throw new Error(`deniedCidrs: "${text}" is not a CIDR range`);
    return cidr;
  });
}

export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

/** Resolves a name (without a trailing dot) to every address it has. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;
