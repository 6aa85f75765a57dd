/**
 * `node connect-probe.ts <address> <port> <servername> <ca-file>`: opens a TLS connection to the address,
 * verifying the certificate for `servername` against the CA, and prints `{"ok":true}` or
 * `{"ok":false,"code":"EHOSTUNREACH"}`; gives up after 3 s (`ETIMEDOUT`). Run in a namespace to see what it
 * reaches.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:tls';

const [address, port, servername, caFile] = process.argv.slice(2) as [string, string, string, string];
const done = (result: Record<string, unknown>) => {
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
};
setTimeout(() => done({ ok: false, code: 'ETIMEDOUT' }), 3000);
const socket = connect({ host: address, port: Number(port), servername, ca: readFileSync(caFile) }, () =>
  done({ ok: socket.authorized }),
);
socket.on('error', (error: NodeJS.ErrnoException) => done({ ok: false, code: error.code ?? error.message }));
