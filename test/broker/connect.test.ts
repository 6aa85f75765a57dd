/**
 * The CONNECT proxy with an injected resolver that maps test names to 127.0.0.x. 127.0.0.0/8 is denied by
 * default, so the brokers that must allow a tunnel use the default ranges minus 127.0.0.0/8; the loopback
 * refusal cases keep it.
 */
import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_DENIED_CIDRS } from '../../toolchain-server/broker/config.ts';
import type { Resolver } from '../../toolchain-server/broker/context.ts';
import { basicAuth, connectVia, startBroker, type TestBroker } from './helpers.ts';

const RUST = 'tok-rust-1111111111111111';
const NODE = 'tok-node-2222222222222222';
const OPEN = 'tok-open-3333333333333333';
const ALLOW_LOOPBACK = DEFAULT_DENIED_CIDRS.filter((c) => c !== '127.0.0.0/8');

const NAMES: Record<string, string[]> = {
  'crates.example': ['127.0.0.2'],
  'static.crates.example': ['127.0.0.2'],
  'npm.example': ['127.0.0.2'],
  'unlisted.example': ['127.0.0.2'],
  'private.example': ['10.1.2.3'],
  'mixed.example': ['127.0.0.2', '192.168.1.1'],
  'mapped.example': ['::ffff:127.0.0.2'],
  'metadata.example': ['169.254.169.254'],
};
const resolver: Resolver = async (name) => {
  const addresses = NAMES[name];
  if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

async function echoServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0 };
}

function echo(socket: Socket, text: string): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    socket.on('data', (chunk: Buffer) => {
      got += chunk.toString();
      if (got.length >= text.length) resolve(got);
    });
    socket.write(text);
  });
}

describe('broker CONNECT', () => {
  let upstream: { server: Server; port: number };
  let broker: TestBroker;
  let port: number;

  before(async () => {
    upstream = await echoServer();
    port = upstream.port;
    broker = await startBroker(
      {
        deniedCidrs: ALLOW_LOOPBACK,
        limits: { idleTimeoutMs: 400 },
        callers: [
          {
            name: 'toolchain-rust',
            egress: [
              { host: 'crates.example', ports: [port] },
              { host: '*.crates.example', ports: [port] },
              { host: 'private.example', ports: [port] },
              { host: 'mixed.example', ports: [port] },
              { host: 'metadata.example', ports: [port] },
            ],
          },
          { name: 'toolchain-node', egress: [{ host: 'npm.example', ports: [port] }] },
          { name: 'open', openPorts: [port] },
        ],
      },
      { tokens: { 'toolchain-rust': RUST, 'toolchain-node': NODE, open: OPEN }, resolve: resolver },
    );
  });
  after(async () => {
    await broker?.close();
    upstream?.server.close();
  });

  const auth = (user: string, token: string) => ({ 'Proxy-Authorization': basicAuth(user, token) });

  it('tunnels to a listed name, connecting to the vetted address, and audits it', async () => {
    const { status, socket } = await connectVia(
      broker.port,
      `crates.example:${port}`,
      auth('toolchain-rust', RUST),
    );
    assert.equal(status, 200);
    assert.equal(await echo(socket, 'ping through the tunnel'), 'ping through the tunnel');
    socket.end();
    await new Promise((r) => socket.on('close', r));
    await new Promise((r) => setTimeout(r, 50));
    const audit = broker.audits().at(-1)!;
    assert.equal(audit.kind, 'connect');
    assert.equal(audit.caller, 'toolchain-rust');
    assert.equal(audit.target, `crates.example:${port}`);
    assert.equal(audit.rule, `crates.example:${port}`);
    assert.equal(audit.address, '127.0.0.2');
    assert.equal(audit.decision, 'allowed');
    assert.equal(audit.bytesIn, 'ping through the tunnel'.length);
    assert.equal(audit.bytesOut, 'ping through the tunnel'.length);
  });

  for (const [name, target] of [
    ['a wildcard subdomain', 'static.crates.example'],
    ['an upper-case name', 'CRATES.Example'],
    ['a name with one trailing dot', 'crates.example.'],
  ] as const) {
    it(`allows ${name}`, async () => {
      const { status, socket } = await connectVia(
        broker.port,
        `${target}:${port}`,
        auth('toolchain-rust', RUST),
      );
      assert.equal(status, 200);
      socket.destroy();
    });
  }

  it('lets an openPorts caller reach any public name on that port', async () => {
    const { status, socket } = await connectVia(broker.port, `unlisted.example:${port}`, auth('open', OPEN));
    assert.equal(status, 200);
    socket.destroy();
  });

  const refusals: [string, string, Record<string, string>, number, string, RegExp?][] = [
    ['no Proxy-Authorization', 'crates.example:PORT', {}, 407, 'TOOLYARD_BROKER_UNAUTHENTICATED'],
    [
      'a wrong token',
      'crates.example:PORT',
      auth('toolchain-rust', 'nope'),
      407,
      'TOOLYARD_BROKER_UNAUTHENTICATED',
    ],
    [
      "another caller's token under this caller's name",
      'crates.example:PORT',
      auth('toolchain-rust', NODE),
      407,
      'TOOLYARD_BROKER_UNAUTHENTICATED',
    ],
    [
      'an unlisted host',
      'unlisted.example:PORT',
      auth('toolchain-rust', RUST),
      403,
      'TOOLYARD_BROKER_HOST_NOT_ALLOWED',
      /caller "toolchain-rust" may not reach unlisted\.example:\d+; its list: crates\.example:\d+, \*\.crates\.example/,
    ],
    [
      'a listed host on another port',
      'crates.example:443',
      auth('toolchain-rust', RUST),
      403,
      'TOOLYARD_BROKER_HOST_NOT_ALLOWED',
    ],
    [
      'the wildcard base name',
      'crates.example.evil:PORT',
      auth('toolchain-rust', RUST),
      403,
      'TOOLYARD_BROKER_HOST_NOT_ALLOWED',
    ],
    [
      "another caller's host",
      'crates.example:PORT',
      auth('toolchain-node', NODE),
      403,
      'TOOLYARD_BROKER_HOST_NOT_ALLOWED',
    ],
    ['an IPv4 literal', '127.0.0.2:PORT', auth('open', OPEN), 403, 'TOOLYARD_BROKER_IP_LITERAL'],
    ['an IPv6 literal', '[::1]:PORT', auth('open', OPEN), 403, 'TOOLYARD_BROKER_IP_LITERAL'],
    ['a decimal address', '2130706433:PORT', auth('open', OPEN), 403, 'TOOLYARD_BROKER_IP_LITERAL'],
    ['a hex shorthand', '0x7f.1:PORT', auth('open', OPEN), 403, 'TOOLYARD_BROKER_IP_LITERAL'],
    [
      'a name resolving to a private address',
      'private.example:PORT',
      auth('toolchain-rust', RUST),
      403,
      'TOOLYARD_BROKER_ADDRESS_DENIED',
      /10\.0\.0\.0\/8/,
    ],
    [
      'a name with one private address among others',
      'mixed.example:PORT',
      auth('toolchain-rust', RUST),
      403,
      'TOOLYARD_BROKER_ADDRESS_DENIED',
    ],
    [
      'a name resolving to the metadata address',
      'metadata.example:PORT',
      auth('toolchain-rust', RUST),
      403,
      'TOOLYARD_BROKER_ADDRESS_DENIED',
    ],
    [
      'a target without a port',
      'crates.example',
      auth('toolchain-rust', RUST),
      400,
      'TOOLYARD_BROKER_BAD_REQUEST',
    ],
    [
      'a port beyond 65535',
      'crates.example:99999',
      auth('toolchain-rust', RUST),
      400,
      'TOOLYARD_BROKER_BAD_REQUEST',
    ],
  ];
  for (const [name, target, headers, status, code, message] of refusals) {
    it(`refuses ${name} with ${status} ${code}`, async () => {
      const reply = await connectVia(broker.port, target.replace('PORT', String(port)), headers);
      assert.equal(reply.status, status, reply.head + reply.body);
      const body = JSON.parse(reply.body);
      assert.equal(body.error.code, code);
      if (message) assert.match(body.error.message, message);
      if (status === 407) assert.match(reply.head, /proxy-authenticate: Basic realm="toolyard-broker"/i);
      for (const secret of [RUST, NODE, OPEN]) assert.ok(!(reply.head + reply.body).includes(secret));
      // Tunnels of earlier tests may end (and be audited) after this refusal: find its line by code.
      const audit = broker.audits().findLast((a) => a.code === code);
      assert.ok(audit, `no audit line with ${code}`);
      assert.equal(audit.decision, status === 400 ? 'error' : 'denied');
    });
  }

  it('refuses a Host header that does not match the CONNECT target', async () => {
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(broker.port, '127.0.0.1');
      let text = '';
      socket.on('data', (c: Buffer) => {
        text += c.toString();
      });
      socket.on('close', () => resolve(text));
      socket.write(
        `CONNECT crates.example:${port} HTTP/1.1\r\nHost: evil.example:${port}\r\nProxy-Authorization: ${basicAuth('toolchain-rust', RUST)}\r\n\r\n`,
      );
    });
    assert.match(reply, /^HTTP\/1\.1 400 /);
  });

  it('closes an idle tunnel after limits.idleTimeoutMs', async () => {
    const { status, socket } = await connectVia(
      broker.port,
      `npm.example:${port}`,
      auth('toolchain-node', NODE),
    );
    assert.equal(status, 200);
    const started = Date.now();
    await new Promise((r) => socket.on('close', r));
    assert.ok(Date.now() - started >= 300, 'closed too early');
    await new Promise((r) => setTimeout(r, 20));
    const audit = broker.audits().at(-1)!;
    assert.match(String(audit.reason), /idle for 400 ms/);
  });

  it('counts open tunnels per caller in /metrics and writes no token to the log', async () => {
    const { socket } = await connectVia(broker.port, `npm.example:${port}`, auth('toolchain-node', NODE));
    const metrics = await (await fetch(`http://127.0.0.1:${broker.healthPort}/metrics`)).text();
    assert.match(metrics, /toolyard_broker_open_connections\{caller="toolchain-node",kind="connect"\} 1/);
    assert.match(
      metrics,
      new RegExp(
        `toolyard_broker_requests_total\\{caller="toolchain-rust",kind="connect",target="crates\\.example:${port}",decision="allowed",status="200"\\} \\d+`,
      ),
    );
    socket.destroy();
    const log = JSON.stringify(broker.lines);
    for (const secret of [RUST, NODE, OPEN]) assert.ok(!log.includes(secret));
  });
});

describe('broker CONNECT: addresses and limits', () => {
  it('refuses a name resolving to loopback under the default denied ranges', async () => {
    const broker = await startBroker(
      { callers: [{ name: 'c', egress: [{ host: 'crates.example', ports: [443] }] }] },
      { tokens: { c: 'tok-c-000000000000' }, resolve: resolver },
    );
    try {
      const reply = await connectVia(broker.port, 'crates.example:443', auth2('c', 'tok-c-000000000000'));
      assert.equal(reply.status, 403);
      assert.match(
        JSON.parse(reply.body).error.message,
        /resolves to 127\.0\.0\.2, in denied range 127\.0\.0\.0\/8/,
      );
    } finally {
      await broker.close();
    }
  });

  it('refuses an IPv4-mapped IPv6 address inside a denied IPv4 range', async () => {
    const broker = await startBroker(
      {
        deniedCidrs: ['127.0.0.0/8'],
        callers: [{ name: 'c', egress: [{ host: 'mapped.example', ports: [443] }] }],
      },
      { tokens: { c: 'tok-c-000000000000' }, resolve: resolver },
    );
    try {
      const reply = await connectVia(broker.port, 'mapped.example:443', auth2('c', 'tok-c-000000000000'));
      assert.equal(reply.status, 403);
      assert.equal(JSON.parse(reply.body).error.code, 'TOOLYARD_BROKER_ADDRESS_DENIED');
    } finally {
      await broker.close();
    }
  });

  it('refuses a caller beyond limits.maxConnectionsPerCaller with 429', async () => {
    const upstream = await echoServer();
    const broker = await startBroker(
      {
        deniedCidrs: ALLOW_LOOPBACK,
        limits: { maxConnectionsPerCaller: 1 },
        callers: [{ name: 'c', egress: [{ host: 'npm.example', ports: [upstream.port] }] }],
      },
      { tokens: { c: 'tok-c-000000000000' }, resolve: resolver },
    );
    try {
      const first = await connectVia(
        broker.port,
        `npm.example:${upstream.port}`,
        auth2('c', 'tok-c-000000000000'),
      );
      assert.equal(first.status, 200);
      const second = await connectVia(
        broker.port,
        `npm.example:${upstream.port}`,
        auth2('c', 'tok-c-000000000000'),
      );
      assert.equal(second.status, 429);
      assert.equal(JSON.parse(second.body).error.code, 'TOOLYARD_BROKER_TOO_MANY_CONNECTIONS');
      first.socket.destroy();
    } finally {
      await broker.close();
      upstream.server.close();
    }
  });

  it('answers 502 when the name does not resolve', async () => {
    const broker = await startBroker(
      { callers: [{ name: 'c', egress: [{ host: 'nowhere.example', ports: [443] }] }] },
      { tokens: { c: 'tok-c-000000000000' }, resolve: resolver },
    );
    try {
      const reply = await connectVia(broker.port, 'nowhere.example:443', auth2('c', 'tok-c-000000000000'));
      assert.equal(reply.status, 502);
      assert.equal(JSON.parse(reply.body).error.code, 'TOOLYARD_BROKER_RESOLVE_FAILED');
    } finally {
      await broker.close();
    }
  });
});

function auth2(user: string, token: string): Record<string, string> {
  return { 'Proxy-Authorization': basicAuth(user, token) };
}
