/**
 * A throwaway certificate authority for TLS tests, made at test time with the `openssl` CLI in a temp
 * directory: nothing is checked in, nothing is trusted outside the test. `makeTestCa()` makes the CA and a
 * server certificate for the given names; `issue()` makes more certificates from the same CA.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface IssuedCert {
  readonly certFile: string;
  readonly keyFile: string;
  readonly cert: string;
  readonly key: string;
}

export interface TestCa extends IssuedCert {
  readonly dir: string;
  /** The CA certificate (PEM file): what a client must trust. */
  readonly caFile: string;
  readonly ca: string;
  /** A certificate and key for other names (`DNS:` is implied for names, `IP:` for addresses). */
  issue(sans: readonly string[], name?: string): IssuedCert;
  cleanup(): void;
}

function openssl(args: readonly string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

function sanList(sans: readonly string[]): string {
  return sans
    .map((s) => (/^(DNS|IP):/.test(s) ? s : /^[0-9.]+$|:/.test(s) ? `IP:${s}` : `DNS:${s}`))
    .join(',');
}

/** A CA plus a server certificate for `sans` (default: localhost, 127.0.0.1 and ::1). */
export function makeTestCa(sans: readonly string[] = ['localhost', '127.0.0.1', '::1']): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'toolyard-test-ca-'));
  const caFile = join(dir, 'ca.pem');
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=toolyard test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  let serial = 0;
  const issue = (names: readonly string[], name = `server${++serial}`): IssuedCert => {
    const ext = join(dir, `${name}.ext`);
    writeFileSync(
      ext,
      `subjectAltName=${sanList(names)}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`,
    );
    openssl(
      [
        'req',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.csr`,
        '-subj',
        `/CN=${names[0] ?? name}`,
      ],
      dir,
    );
    openssl(
      [
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${name}.pem`,
        '-days',
        '2',
        '-extfile',
        ext,
      ],
      dir,
    );
    const certFile = join(dir, `${name}.pem`);
    const keyFile = join(dir, `${name}.key`);
    return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
  };
  const server = issue(sans);
  return {
    dir,
    caFile,
    ca: readFileSync(caFile, 'utf8'),
    ...server,
    issue,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
