/**
 * Preloaded into the benchmarked broker process (`node --import bench/broker-hosts.ts …`): its resolver
 * (dns.promises.lookup) answers `*.bench.test` with 127.0.0.1 and refuses every other name, so that the
 * benchmark's CONNECT target resolves without /etc/hosts or DNS and nothing is ever asked of the network.
 */
import dnsPromises from 'node:dns/promises';
import { syncBuiltinESMExports } from 'node:module';

const answer = async (hostname: string, options?: unknown) => {
  const name = hostname.replace(/\.$/, '');
  if (!name.endsWith('.bench.test'))
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
  return all ? [{ address: '127.0.0.1', family: 4 }] : { address: '127.0.0.1', family: 4 };
};
(dnsPromises as { lookup: unknown }).lookup = answer;
syncBuiltinESMExports();
