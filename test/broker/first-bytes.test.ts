/**
 * Domain fronting through a tunnel: the broker holds a tunnel's first bytes until they name the CONNECT host
 * (TLS SNI, or an HTTP Host) — a real TLS client through the broker to a real TLS upstream, and the parser on
 * its own over real and truncated ClientHellos.
 */
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import { DEFAULT_DENIED_CIDRS } from '../../toolchain-server/broker/config.ts';
import { namesTarget, readFirstBytes } from '../../toolchain-server/broker/first-bytes.ts';
import { basicAuth, connectVia, startBroker, type TestBroker } from './helpers.ts';
import { makeTestCa, type TestCa } from './tls-fixture.ts';

const TOKEN = 'tok-first-bytes-0000000';

/** A real ClientHello, as Node sends it for `servername`, captured from a socket that never answers. */
async function clientHello(servername: string): Promise<Buffer> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer((socket) => {
      socket.once('data', (chunk: Buffer) => {
        resolve(chunk);
        socket.destroy();
        server.close();
      });
    });
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      const client = tlsConnect({ port, host: '127.0.0.1', servername });
      client.on('error', () => {});
    });
  });
}

describe('first bytes parser', () => {
  it('reads the SNI of a real ClientHello, and waits while it is incomplete', async () => {
    const hello = await clientHello('registry.example');
    assert.deepEqual(readFirstBytes(hello), { kind: 'tls', serverName: 'registry.example' });
    for (const cut of [1, 5, 40, hello.length - 1])
      assert.equal(readFirstBytes(hello.subarray(0, cut)).kind, 'incomplete', `cut at ${cut}`);
  });

  it('never throws on corrupted ClientHellos', async () => {
    const hello = await clientHello('registry.example');
    for (let i = 5; i < hello.length; i += 3) {
      const bad = Buffer.from(hello);
      bad[i] = bad[i]! ^ 0xff;
      const kind = readFirstBytes(bad).kind;
      assert.ok(['tls', 'invalid', 'incomplete'].includes(kind), `byte ${i}: ${kind}`);
    }
  });

  it('reads the Host of plain HTTP and lets other protocols pass', () => {
    assert.deepEqual(readFirstBytes(Buffer.from('GET / HTTP/1.1\r\nHost: a.example\r\n\r\n')), {
      kind: 'http',
      host: 'a.example',
    });
    assert.equal(readFirstBytes(Buffer.from('GET / HTTP/1.1\r\nHo')).kind, 'incomplete');
    assert.equal(readFirstBytes(Buffer.from('GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n')).kind, 'invalid');
    assert.equal(readFirstBytes(Buffer.from('SSH-2.0-OpenSSH_9.6\r\n')).kind, 'other');
  });

  it('reads any RFC 9110 method as an HTTP request (tokens of any case and length), and only HTTP/1.x', () => {
    const head = (line: string, host = 'evil.example') => Buffer.from(`${line}\r\nHost: ${host}\r\n\r\n`);
    for (const method of [
      'get',
      'FOO',
      'M-SEARCH',
      'UNSUBSCRIBE',
      'X_Y',
      'a.b',
      "!#$%&'*+^`|~",
      'Q'.repeat(64),
    ])
      assert.deepEqual(
        readFirstBytes(head(`${method} / HTTP/1.1`)),
        { kind: 'http', host: 'evil.example' },
        method,
      );
    assert.deepEqual(readFirstBytes(head('OPTIONS * HTTP/1.0')), { kind: 'http', host: 'evil.example' });
    // The target names the site where it can: absolute-form, and a CONNECT's authority-form.
    assert.deepEqual(readFirstBytes(head('propfind http://evil.example/ HTTP/1.1', 'evil.example')), {
      kind: 'http',
      host: 'evil.example',
    });
    assert.deepEqual(readFirstBytes(Buffer.from('CONNECT evil.example:443 HTTP/1.1\r\n\r\n')), {
      kind: 'http',
      host: 'evil.example:443',
    });
    assert.equal(readFirstBytes(head('CONNECT evil.example:443 HTTP/1.1', 'a.example')).kind, 'invalid');
    // LF alone ends lines; a folded line or another version cannot be checked: refused on every port.
    assert.deepEqual(readFirstBytes(Buffer.from('GET / HTTP/1.1\nHost: evil.example\n\n')), {
      kind: 'http',
      host: 'evil.example',
    });
    assert.equal(readFirstBytes(Buffer.from('GET / HTTP/1.1\r\nX: a\r\n Host: b\r\n\r\n')).kind, 'invalid');
    assert.equal(readFirstBytes(Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n')).kind, 'invalid');
    assert.equal(readFirstBytes(Buffer.from('GET / HTTP/3.0\r\nHost: a\r\n\r\n')).kind, 'invalid');
    // Held while it may still become a request line; read as other bytes once it cannot.
    for (const prefix of ['g', 'get', 'get ', 'get /x', 'get /x ', 'get /x HT', 'get /x HTTP/1.'])
      assert.equal(readFirstBytes(Buffer.from(prefix)).kind, 'incomplete', prefix);
    for (const bytes of [
      'ping through the tunnel',
      'get /x y',
      'GET /evil\r\n\r\n',
      '\u0000binary',
      '{"a":1}',
    ])
      assert.equal(readFirstBytes(Buffer.from(bytes, 'latin1')).kind, 'other', bytes);
    assert.ok(namesTarget('A.Example.:443', 'a.example', 443));
    assert.ok(!namesTarget('a.example:8443', 'a.example', 443));
    assert.ok(!namesTarget('b.example', 'a.example', 443));
  });
});

describe('tunnels and the name in their first bytes', () => {
  let ca: TestCa;
  let tlsPort: number;
  let httpPort: number;
  let handshakes = 0;
  let httpRequests = 0;
  let rawPort: number;
  let rawBytes = '';
  let broker: TestBroker;
  const closers: (() => void)[] = [];

  before(async () => {
    ca = makeTestCa(['registry.example']);
    const tlsServer = createHttpsServer({ cert: ca.cert, key: ca.key }, (_q, s) =>
      s.end('from the registry'),
    );
    tlsServer.on('secureConnection', () => handshakes++);
    await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.2', r));
    tlsPort = (tlsServer.address() as { port: number }).port;
    const httpServer = createHttpServer((_q, s) => {
      httpRequests++;
      s.end('plain');
    });
    await new Promise<void>((r) => httpServer.listen(0, '127.0.0.2', r));
    httpPort = (httpServer.address() as { port: number }).port;
    const rawServer = createNetServer((s) => {
      s.on('data', (d: Buffer) => {
        rawBytes += d.toString('latin1');
        s.end('raw ok');
      });
      s.on('error', () => {});
    });
    await new Promise<void>((r) => rawServer.listen(0, '127.0.0.2', r));
    rawPort = (rawServer.address() as { port: number }).port;
    closers.push(
      () => tlsServer.close(),
      () => httpServer.close(),
      () => rawServer.close(),
    );
    broker = await startBroker(
      {
        deniedCidrs: DEFAULT_DENIED_CIDRS.filter((c) => c !== '127.0.0.0/8'),
        // Both test ports are HTTP ports; rawPort (below) is not listed, so it passes what it cannot read.
        httpPorts: [tlsPort, httpPort],
        callers: [{ name: 'c', egress: [{ host: 'registry.example', ports: [tlsPort, httpPort, rawPort] }] }],
      },
      { tokens: { c: TOKEN }, resolve: async () => [{ address: '127.0.0.2', family: 4 }] },
    );
  });
  after(async () => {
    await broker?.close();
    for (const close of closers) close();
    ca?.cleanup();
  });

  const tunnel = async (port: number) => {
    const reply = await connectVia(broker.port, `registry.example:${port}`, {
      'Proxy-Authorization': basicAuth('c', TOKEN),
    });
    assert.equal(reply.status, 200);
    return reply.socket;
  };

  it('passes a TLS session whose SNI is the CONNECT host', async () => {
    const socket = await tunnel(tlsPort);
    const text = await new Promise<string>((resolve, reject) => {
      const tls = tlsConnect({ socket, servername: 'registry.example', ca: ca.ca }, () => {
        tls.write('GET / HTTP/1.1\r\nHost: registry.example\r\nConnection: close\r\n\r\n');
      });
      let got = '';
      tls.on('data', (c: Buffer) => {
        got += c.toString();
      });
      tls.on('end', () => resolve(got));
      tls.on('error', reject);
    });
    assert.match(text, /from the registry$/);
  });

  it('closes a tunnel whose SNI names another site before any byte reaches the upstream', async () => {
    const before = handshakes;
    const socket = await tunnel(tlsPort);
    const error = await new Promise<Error | undefined>((resolve) => {
      const tls = tlsConnect({ socket, servername: 'fronted.example', rejectUnauthorized: false });
      tls.on('secureConnect', () => resolve(undefined));
      tls.on('error', resolve);
      tls.on('close', () => resolve(new Error('closed')));
    });
    assert.ok(error, 'the TLS session was established');
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(handshakes, before, 'the upstream saw a handshake');
    const audit = broker.audits().findLast((a) => a.code === 'TOOLYARD_BROKER_NAME_MISMATCH');
    assert.match(String(audit?.reason), /names "fronted\.example", not the CONNECT host registry\.example/);
    assert.equal(audit?.decision, 'denied');
  });

  it('passes plain HTTP with the right Host and closes one with another Host', async () => {
    const exchange = async (host: string) => {
      const socket = await tunnel(httpPort);
      return new Promise<string>((resolve) => {
        let got = '';
        socket.on('data', (c: Buffer) => {
          got += c.toString();
        });
        socket.on('close', () => resolve(got));
        socket.write(`GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      });
    };
    assert.match(await exchange(`registry.example:${httpPort}`), /plain$/);
    const before = httpRequests;
    assert.equal(await exchange('fronted.example'), '');
    assert.equal(httpRequests, before);
  });

  /** Sends `bytes` through a tunnel to `port`; what came back when the tunnel closed. */
  const through = async (port: number, bytes: string) => {
    const socket = await tunnel(port);
    return new Promise<string>((resolve) => {
      let got = '';
      socket.on('data', (c: Buffer) => {
        got += c.toString();
      });
      socket.on('close', () => resolve(got));
      socket.write(bytes);
    });
  };

  it('refuses what it cannot read on an HTTP port, naming why; passes it on another port', async () => {
    for (const port of [httpPort, tlsPort]) {
      assert.equal(await through(port, 'SSH-2.0-OpenSSH_9.6\r\n'), '');
      const audit = broker.audits().findLast((a) => a.code === 'TOOLYARD_BROKER_UNREADABLE_TUNNEL');
      assert.match(
        String(audit?.reason),
        new RegExp(`first bytes to port ${port} are neither a TLS ClientHello`),
      );
    }
    assert.equal(rawBytes, '', 'nothing reached the upstream');
    assert.equal(await through(rawPort, 'SSH-2.0-OpenSSH_9.6\r\n'), 'raw ok');
    assert.equal(rawBytes, 'SSH-2.0-OpenSSH_9.6\r\n');
  });

  it('checks the Host of a request with any method (lower case, WebDAV, made up)', async () => {
    const before = httpRequests;
    for (const method of ['get', 'PROPFIND', 'X-FRONT'])
      assert.equal(await through(httpPort, `${method} / HTTP/1.1\r\nHost: fronted.example\r\n\r\n`), '');
    assert.equal(httpRequests, before);
    assert.match(
      await through(
        httpPort,
        `PROPFIND / HTTP/1.1\r\nHost: registry.example:${httpPort}\r\nConnection: close\r\n\r\n`,
      ),
      /plain$/,
    );
  });
});
