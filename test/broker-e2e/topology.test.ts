/**
 * The harness itself: the denied ranges carve exactly the upstream /24 out of 10.0.0.0/8, and the namespaces
 * are wired as the broker tests assume (agent reaches the broker, not the upstream; broker reaches the
 * upstream) and gone after `remove()`.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Server } from 'node:net';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { DEFAULT_DENIED_CIDRS } from '../../toolchain-server/broker/config.ts';
import { canEmulatePods } from '../backends/pod-emulation.ts';
import {
  AGENT_POD_IP,
  BROKER_AGENT_SIDE,
  BrokerTopology,
  cidrsExcept,
  testDeniedCidrs,
  UPSTREAM_SUBNET,
} from './topology.ts';

const toRange = (cidr: string): [number, number] => {
  const [address, bits] = cidr.split('/') as [string, string];
  const start = address.split('.').reduce((n, o) => n * 256 + Number(o), 0);
  return [start, start + 2 ** (32 - Number(bits)) - 1];
};

describe('broker e2e topology', () => {
  it('carves exactly the upstream /24 out of 10.0.0.0/8 and keeps every other default range', () => {
    const parts = cidrsExcept('10.0.0.0/8', UPSTREAM_SUBNET).map(toRange);
    const [holeStart, holeEnd] = toRange(UPSTREAM_SUBNET);
    const covered = parts.reduce((n, [s, e]) => n + (e - s + 1), 0);
    assert.equal(covered, 2 ** 24 - 256);
    for (const [s, e] of parts)
      assert.ok(e < holeStart || s > holeEnd, 'a part overlaps the upstream subnet');
    const denied = testDeniedCidrs(DEFAULT_DENIED_CIDRS);
    for (const cidr of DEFAULT_DENIED_CIDRS.filter((c) => c !== '10.0.0.0/8'))
      assert.ok(denied.includes(cidr));
    assert.ok(denied.includes('127.0.0.0/8'));
    // The agent link stays denied: a name resolving to a pod address is refused.
    const [agent] = toRange(`${AGENT_POD_IP}/32`);
    assert.ok(
      denied.filter((c) => c.startsWith('10.')).some((c) => agent >= toRange(c)[0] && agent <= toRange(c)[1]),
    );
  });

  const skip = canEmulatePods();
  let topology: BrokerTopology | undefined;
  after(() => topology?.remove());

  it('the agent namespace reaches the broker address only; namespaces are gone after remove()', async (t) => {
    if (skip) return t.skip(skip);
    topology = new BrokerTopology();
    const run = promisify(execFile);
    // A TCP connect from a namespace (asynchronously: the listeners live in this process).
    const reaches = (role: string, address: string, port: number) =>
      run(
        'ip',
        topology!.namespaces
          .exec(role, [
            process.execPath,
            '-e',
            `const s=require('net').connect(${port},'${address}',()=>process.exit(0));s.on('error',()=>process.exit(1));setTimeout(()=>process.exit(1),1500)`,
          ])
          .slice(1),
      ).then(
        () => true,
        () => false,
      );
    const sockets: Server[] = [];
    t.after(() => {
      for (const socket of sockets) socket.close();
    });
    const listen = async (role: string, address: string) => {
      const socket = await topology!.namespaces.listen(role, address, 0);
      sockets.push(socket);
      socket.on('connection', (c) => c.destroy());
      return (socket.address() as { port: number }).port;
    };
    const brokerPort = await listen('broker', BROKER_AGENT_SIDE);
    const upstreamPort = await listen('upstream', '10.231.2.2');
    assert.equal(await reaches('agent', BROKER_AGENT_SIDE, brokerPort), true);
    assert.equal(await reaches('agent', '10.231.2.2', upstreamPort), false);
    assert.equal(await reaches('broker', '10.231.2.2', upstreamPort), true);
    const names = ['agent', 'broker', 'upstream'].map((role) => topology!.namespaces.name(role));
    topology.remove();
    for (const name of names) assert.equal(existsSync(`/run/netns/${name}`), false);
  });
});
