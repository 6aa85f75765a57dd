/**
 * The broker's resolver: the hosts file first (hostAliases), then DNS for the fully qualified name only — and a
 * broker using it reaches a name from the hosts file at the address it vetted.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_DENIED_CIDRS } from '../../toolchain-server/broker/config.ts';
import { hostsFileAddresses, systemResolver } from '../../toolchain-server/broker/resolver.ts';
import { basicAuth, connectVia, startBroker } from './helpers.ts';

const HOSTS = `# comment
127.0.0.2   registry.example  Mirror.Example.   # trailing comment
::1         registry.example
10.0.0.7    internal.example
not-an-ip   broken.example
`;

describe('broker resolver', () => {
  it('reads every address of a name from the hosts file, in file order, case- and dot-insensitively', () => {
    assert.deepEqual(hostsFileAddresses(HOSTS, 'registry.example'), [
      { address: '127.0.0.2', family: 4 },
      { address: '::1', family: 6 },
    ]);
    assert.deepEqual(hostsFileAddresses(HOSTS, 'mirror.example'), [{ address: '127.0.0.2', family: 4 }]);
    assert.deepEqual(hostsFileAddresses(HOSTS, 'broken.example'), []);
    assert.deepEqual(hostsFileAddresses(HOSTS, 'example'), []);
  });

  it('lets a broker reach a hosts-file name, and refuses one whose address is denied', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolyard-hosts-'));
    const echo = createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.2', r));
    const port = (echo.address() as { port: number }).port;
    writeFileSync(join(dir, 'hosts'), HOSTS.replace('::1         registry.example\n', ''));
    const broker = await startBroker(
      {
        deniedCidrs: DEFAULT_DENIED_CIDRS.filter((c) => c !== '127.0.0.0/8'),
        callers: [
          {
            name: 'c',
            egress: [
              { host: 'registry.example', ports: [port] },
              { host: 'internal.example', ports: [port] },
            ],
          },
        ],
      },
      { tokens: { c: 'tok-resolver-000000' }, resolve: systemResolver(join(dir, 'hosts')) },
    );
    try {
      const auth = { 'Proxy-Authorization': basicAuth('c', 'tok-resolver-000000') };
      const ok = await connectVia(broker.port, `registry.example:${port}`, auth);
      assert.equal(ok.status, 200);
      ok.socket.destroy();
      const denied = await connectVia(broker.port, `internal.example:${port}`, auth);
      assert.equal(denied.status, 403);
      assert.match(JSON.parse(denied.body).error.message, /10\.0\.0\.7, in denied range 10\.0\.0\.0\/8/);
    } finally {
      await broker.close();
      echo.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
