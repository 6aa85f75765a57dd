/**
 * Run by `Namespaces.listen` inside a network namespace: opens a listening socket there and passes it to the
 * parent over the IPC channel, then exits. The parent accepts on it; the socket stays in this namespace.
 */
import { createServer } from 'node:net';

const [host, port] = process.argv.slice(2);
// Paused: a connection accepted here before the handover is left for nobody; none is expected that early.
const server = createServer({ pauseOnConnect: true });
server.on('error', (error) => {
  process.send?.(`error: ${error.message}`);
  process.exit(1);
});
server.listen({ host, port: Number(port) }, () => {
  process.send?.('listening', server, () => {
    server.close();
    process.disconnect();
  });
});
