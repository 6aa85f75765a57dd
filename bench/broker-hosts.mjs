/**
 * Preloaded into the benchmarked broker process (`node --import bench/broker-hosts.mjs …`): its resolver
 * (dns.promises.lookup) answers `*.bench.test` with 127.0.0.1 and refuses every other name, so that the
 * benchmark's CONNECT target resolves without /etc/hosts or DNS and nothing is ever asked of the network.
 * Plain JavaScript on purpose: a TypeScript preload would load Node's type stripper into the measured process
 * (about 15 MB of RSS the image's broker never has).
 */
import dnsPromises from 'node:dns/promises';
import { syncBuiltinESMExports } from 'node:module';

/** @param {string} hostname @param {unknown} [options] */
const answer = async (hostname, options) => {
  const name = hostname.replace(/\.$/, '');
  if (!name.endsWith('.bench.test'))
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  const all = typeof options === 'object' && options !== null && Reflect.get(options, 'all') === true;
  return all ? [{ address: '127.0.0.1', family: 4 }] : { address: '127.0.0.1', family: 4 };
};
Object.assign(dnsPromises, { lookup: answer });
syncBuiltinESMExports();
