/**
 * The test cluster's PKI, made with the openssl CLI in the cluster's own directory at start (nothing checked in,
 * nothing trusted outside the run): one CA, the API server's serving certificate, a client certificate per
 * component and user (the subject's CN is the user, each O a group, as the API server's x509 authenticator reads
 * them), and the service-account signing key. P-256 keys: fast to make, accepted everywhere Kubernetes takes keys.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface KeyPair {
  readonly cert: string;
  readonly key: string;
}

export interface ClusterPki {
  readonly dir: string;
  readonly ca: KeyPair;
  /** The service-account token signing key and its public half. */
  readonly serviceAccountKey: string;
  readonly serviceAccountPublicKey: string;
  /** A client certificate for `user` in `groups`. */
  client(name: string, user: string, groups?: readonly string[]): KeyPair;
  /** A serving certificate for the names and addresses in `sans`. */
  server(name: string, commonName: string, sans: readonly string[]): KeyPair;
}

function openssl(dir: string, args: readonly string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** `/O=a/O=b/CN=user`, with the characters openssl's -subj syntax reserves escaped. */
function subject(commonName: string, groups: readonly string[]): string {
  const quote = (value: string) => value.replace(/[/\\+,=]/g, (c) => `\\${c}`);
  return `${groups.map((group) => `/O=${quote(group)}`).join('')}/CN=${quote(commonName)}`;
}

function sanList(sans: readonly string[]): string {
  return sans.map((san) => (/^[\d.]+$|:/.test(san) ? `IP:${san}` : `DNS:${san}`)).join(',');
}

/** Makes the CA and the service-account key in `dir`, then returns the PKI. */
export function makeClusterPki(dir: string): ClusterPki {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const ca = caPair(dir);
  openssl(dir, [
    'req',
    '-x509',
    ...NEW_KEY,
    '-keyout',
    ca.key,
    '-out',
    ca.cert,
    '-days',
    '30',
    '-subj',
    '/CN=toolyard-test-cluster-ca',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  openssl(dir, ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', saKey(dir)]);
  openssl(dir, ['pkey', '-in', saKey(dir), '-pubout', '-out', saPublicKey(dir)]);
  return loadClusterPki(dir);
}

const caPair = (dir: string): KeyPair => ({ cert: join(dir, 'ca.crt'), key: join(dir, 'ca.key') });
const saKey = (dir: string) => join(dir, 'service-account.key');
const saPublicKey = (dir: string) => join(dir, 'service-account.pub');

/** The PKI `makeClusterPki` made in `dir` (e.g. by another process: tests attach to a running cluster). */
export function loadClusterPki(dir: string): ClusterPki {
  const ca = caPair(dir);
  let serial = 0;
  const issue = (name: string, subj: string, extensions: string): KeyPair => {
    const pair: KeyPair = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
    const csr = join(dir, `${name}.csr`);
    const ext = join(dir, `${name}.ext`);
    writeFileSync(ext, extensions);
    openssl(dir, ['req', '-new', ...NEW_KEY, '-keyout', pair.key, '-out', csr, '-subj', subj]);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      ca.cert,
      '-CAkey',
      ca.key,
      '-set_serial',
      `0x${process.pid.toString(16)}${Date.now().toString(16)}${(++serial).toString(16).padStart(4, '0')}`,
      '-days',
      '30',
      '-extfile',
      ext,
      '-out',
      pair.cert,
    ]);
    return pair;
  };

  return {
    dir,
    ca,
    serviceAccountKey: saKey(dir),
    serviceAccountPublicKey: saPublicKey(dir),
    client: (name, user, groups = []) =>
      issue(
        name,
        subject(user, groups),
        'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n',
      ),
    server: (name, commonName, sans) =>
      issue(
        name,
        subject(commonName, []),
        `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=${sanList(sans)}\n`,
      ),
  };
}
