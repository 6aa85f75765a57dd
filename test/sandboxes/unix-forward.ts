/**
 * Run inside a pod's network namespace by `NodeNetwork.forwardFromAgent`: listens on a Unix socket path and
 * connects each of its connections to `host:port` from this namespace. Prints `ready` once listening.
 */
import { rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';

const [path, host, port] = process.argv.slice(2) as [string, string, string];
rmSync(path, { force: true });
const server = createServer((socket) => {
  const upstream = connect(Number(port), host);
  socket.pipe(upstream).pipe(socket);
  const close = () => {
    socket.destroy();
    upstream.destroy();
  };
  socket.on('error', close);
  upstream.on('error', close);
});
server.listen(path, () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => {
  server.close();
  process.exit(0);
});
