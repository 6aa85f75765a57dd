/**
 * The configuration files of the test cluster's control plane: Pod Security admission with `restricted` as
 * the cluster's default (enforce, audit and warn, latest version; only kube-system exempt, where nothing of
 * toolyard's runs), and an audit policy that records every write's admission outcome at the Metadata level.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function writeAdmissionConfig(dir: string): string {
  const file = join(dir, 'admission.yaml');
  const config = {
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AdmissionConfiguration',
    plugins: [
      {
        name: 'PodSecurity',
        configuration: {
          apiVersion: 'pod-security.admission.config.k8s.io/v1',
          kind: 'PodSecurityConfiguration',
          defaults: {
            enforce: 'restricted',
            'enforce-version': 'latest',
            audit: 'restricted',
            'audit-version': 'latest',
            warn: 'restricted',
            'warn-version': 'latest',
          },
          exemptions: { usernames: [], runtimeClasses: [], namespaces: ['kube-system'] },
        },
      },
    ],
  };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}

export function writeAuditPolicy(dir: string): string {
  const file = join(dir, 'audit-policy.yaml');
  const policy = {
    apiVersion: 'audit.k8s.io/v1',
    kind: 'Policy',
    omitStages: ['RequestReceived'],
    rules: [
      { level: 'None', verbs: ['get', 'list', 'watch'] },
      { level: 'None', resources: [{ group: 'coordination.k8s.io', resources: ['leases'] }] },
      { level: 'None', userGroups: ['system:nodes'] },
      { level: 'Metadata' },
    ],
  };
  writeFileSync(file, `${JSON.stringify(policy, null, 2)}\n`);
  return file;
}
