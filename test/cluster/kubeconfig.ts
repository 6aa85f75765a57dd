/** A kubeconfig file for one client certificate against the test cluster's API server. */
import { writeFileSync } from 'node:fs';
import type { KeyPair } from './pki.ts';

export function writeKubeconfig(
  file: string,
  server: string,
  caCert: string,
  client: KeyPair,
  user: string,
): string {
  // JSON is YAML: no quoting rules to get wrong for paths or user names.
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'toolyard-test', cluster: { server, 'certificate-authority': caCert } }],
    users: [{ name: user, user: { 'client-certificate': client.cert, 'client-key': client.key } }],
    contexts: [{ name: 'toolyard-test', context: { cluster: 'toolyard-test', user } }],
    'current-context': 'toolyard-test',
    preferences: {},
  };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  return file;
}
