/**
 * How the broker resolves a CONNECT host: the hosts file first (as the system's `files dns` order does, so a
 * pod's hostAliases apply), then DNS for the name as a fully qualified name — with a trailing dot, so no search
 * domain of the pod (`<name>.<namespace>.svc.cluster.local`, …) can answer for it first. getaddrinfo alone
 * cannot do both: with the trailing dot it skips the hosts file, without it the search domains apply.
 */
import { lookup } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import type { ResolvedAddress, Resolver } from './addresses.ts';
import { parseIp } from './addresses.ts';

/** Addresses the hosts file gives `name` (lower-case, no trailing dot), in file order. */
export function hostsFileAddresses(text: string, name: string): ResolvedAddress[] {
  const found: ResolvedAddress[] = [];
  for (const raw of text.split('\n')) {
    const [address, ...names] = raw.replace(/#.*/, '').trim().split(/\s+/);
    if (!address || !names.some((n) => n.toLowerCase().replace(/\.$/, '') === name)) continue;
    const ip = parseIp(address);
    if (ip) found.push({ address, family: ip.family });
  }
  return found;
}

export function systemResolver(hostsFile = '/etc/hosts'): Resolver {
  return async (hostname) => {
    const name = hostname.replace(/\.$/, '');
    const text = await readFile(hostsFile, 'utf8').catch(() => '');
    const fromFile = hostsFileAddresses(text, name);
    if (fromFile.length > 0) return fromFile;
    return lookup(`${name}.`, { all: true, order: 'verbatim' });
  };
}
