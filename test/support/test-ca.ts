/**
 * A certificate authority made for one test run (openssl, EC P-256), and server certificates it signs for the
 * real public names a fake upstream stands in for (`api.anthropic.com`, `registry.npmjs.org`). Clients under
 * test trust the CA file through their own setting (the broker's `extraCaFile`, `NODE_EXTRA_CA_CERTS`,
 * `PIP_CERT`, `CARGO_HTTP_CAINFO`, `SSL_CERT_FILE`); nothing else ever trusts it, and its key is deleted with
 * the directory.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ServerCert {
  readonly key: string;
  readonly cert: string;
}

export interface TestCa {
  /** The CA certificate's PEM file. */
  readonly caFile: string;
  readonly caPem: string;
  /** A certificate for `names` (DNS subjectAltNames), signed by the CA. */
  issue(names: readonly string[]): ServerCert;
}

function openssl(args: readonly string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

export function makeTestCa(dir: string): TestCa {
  mkdirSync(dir, { recursive: true });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    [
      'req',
      '-x509',
      ...ec,
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
  const caFile = join(dir, 'ca.pem');
  let serial = 0;
  return {
    caFile,
    caPem: readFileSync(caFile, 'utf8'),
    issue(names) {
      const base = `leaf-${++serial}`;
      writeFileSync(
        join(dir, `${base}.ext`),
        [
          'basicConstraints=critical,CA:FALSE',
          'keyUsage=critical,digitalSignature',
          'extendedKeyUsage=serverAuth',
          `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}`,
          '',
        ].join('\n'),
      );
      openssl(
        ['req', '-new', ...ec, '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${names[0]}`],
        dir,
      );
      openssl(
        [
          'x509',
          '-req',
          '-in',
          `${base}.csr`,
          '-CA',
          'ca.pem',
          '-CAkey',
          'ca.key',
          '-set_serial',
          String(1000 + serial),
          '-days',
          '2',
          '-extfile',
          `${base}.ext`,
          '-out',
          `${base}.pem`,
        ],
        dir,
      );
      return {
        key: readFileSync(join(dir, `${base}.key`), 'utf8'),
        cert: readFileSync(join(dir, `${base}.pem`), 'utf8'),
      };
    },
  };
}
