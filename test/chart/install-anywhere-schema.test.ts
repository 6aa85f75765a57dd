/**
 * values.schema.json of every example's and generated spec's chart, applied as Helm applies it — to the user's
 * files merged with the defaults: what issue #12 opens is accepted (nulls that remove defaults, unknown
 * `global` keys, pull secrets as strings), and what it must not open is refused at its path: typos,
 * privileged containers, privilege escalation, root, added capabilities, host volumes.
 */
import { describe, it } from 'node:test';
import { assertRejected, assertValid, chartTargets, type Json } from './chart-targets.ts';

for (const t of chartTargets()) {
  const agent = t.defaults['agent'] as Json;
  const containers = Object.keys(agent['containers'] as Json);
  const initContainers = Object.keys((agent['initContainers'] as Json | undefined) ?? {});
  const gateways = Object.keys((t.defaults['gateways'] as Json | undefined) ?? {});
  const c = containers[0]!;
  const containerSc = (sc: Json): Json => ({ agent: { containers: { [c]: { securityContext: sc } } } });

  describe(`${t.label}: values schema, as Helm merges values`, () => {
    it('accepts nulls that remove every default security field, unknown global keys and string pull secrets', () => {
      const podSc = agent['podSecurityContext'] as Json;
      const sc = (agent['containers'] as Record<string, Json>)[c]!['securityContext'] as Json;
      assertValid(t, {
        global: { anything: { from: 'a parent chart' }, imagePullSecrets: ['mirror', { name: 'other' }] },
        imagePullSecrets: ['registry'],
        agent: {
          podSecurityContext: Object.fromEntries(Object.keys(podSc).map((k) => [k, null])),
          containers: { [c]: { securityContext: Object.fromEntries(Object.keys(sc).map((k) => [k, null])) } },
        },
      });
      assertValid(t, { agent: { podSecurityContext: null, containers: { [c]: { securityContext: null } } } });
    });

    it('refuses typos at every level', () => {
      assertRejected(t, [{ agent: { podSecurityContex: {} } }], '/agent');
      assertRejected(
        t,
        [{ agent: { containers: { [c]: { securityContex: {} } } } }],
        `/agent/containers/${c}`,
      );
      assertRejected(
        t,
        [containerSc({ readOnlyRootFileSystem: false })],
        `/agent/containers/${c}/securityContext`,
      );
      assertRejected(t, [{ agent: { persistence: { sizee: '1Gi' } } }], '/agent/persistence');
      assertRejected(t, [{ agent: { serviceAccount: { craete: false } } }], '/agent/serviceAccount');
      assertRejected(
        t,
        [{ secretNames: { 'no-such-secret': 'x' } }],
        t.defaults['secretNames'] ? '/secretNames' : '',
      );
      assertRejected(t, [{ extraObject: [] }], '');
    });

    it('refuses privileged containers and privilege escalation, in every container', () => {
      for (const key of containers) {
        const at = `/agent/containers/${key}/securityContext`;
        assertRejected(
          t,
          [{ agent: { containers: { [key]: { securityContext: { privileged: true } } } } }],
          at,
        );
        assertRejected(
          t,
          [{ agent: { containers: { [key]: { securityContext: { allowPrivilegeEscalation: true } } } } }],
          at,
        );
      }
      for (const key of initContainers) {
        assertRejected(
          t,
          [{ agent: { initContainers: { [key]: { securityContext: { privileged: true } } } } }],
          `/agent/initContainers/${key}/securityContext`,
        );
      }
      for (const g of gateways) {
        assertRejected(
          t,
          [{ gateways: { [g]: { securityContext: { privileged: true } } } }],
          `/gateways/${g}`,
        );
        assertRejected(
          t,
          [{ gateways: { [g]: { securityContext: { allowPrivilegeEscalation: true } } } }],
          `/gateways/${g}`,
        );
      }
      if (t.defaults['tests']) {
        assertRejected(t, [{ tests: { securityContext: { privileged: true } } }], '/tests/securityContext');
      }
      // A later file cannot sneak it in either: files merge first, then the result is validated.
      assertRejected(
        t,
        [containerSc({ privileged: null }), containerSc({ privileged: true })],
        `/agent/containers/${c}`,
      );
    });

    it('refuses what Pod Security restricted forbids: root, added capabilities, Unconfined, host volumes', () => {
      assertRejected(
        t,
        [{ agent: { podSecurityContext: { runAsUser: 0 } } }],
        '/agent/podSecurityContext/runAsUser',
      );
      assertRejected(
        t,
        [{ agent: { podSecurityContext: { runAsNonRoot: false } } }],
        '/agent/podSecurityContext',
      );
      assertRejected(t, [containerSc({ capabilities: { add: ['SYS_ADMIN'] } })], `/agent/containers/${c}`);
      assertRejected(t, [containerSc({ seccompProfile: { type: 'Unconfined' } })], `/agent/containers/${c}`);
      assertRejected(t, [containerSc({ windowsOptions: { hostProcess: true } })], `/agent/containers/${c}`);
      assertRejected(
        t,
        [{ agent: { extraVolumes: [{ name: 'host', hostPath: { path: '/' } }] } }],
        '/agent/extraVolumes/0',
      );
      assertRejected(
        t,
        [{ agent: { extraVolumes: [{ name: 'two', emptyDir: {}, configMap: { name: 'x' } }] } }],
        '/agent/extraVolumes/0',
      );
      assertRejected(
        t,
        [
          {
            agent: {
              containers: {
                [c]: {
                  extraVolumeMounts: [{ name: 'x', mountPath: '/x', mountPropagation: 'Bidirectional' }],
                },
              },
            },
          },
        ],
        `/agent/containers/${c}/extraVolumeMounts/0`,
      );
    });

    it('refuses wrong types and shapes', () => {
      assertRejected(t, [{ global: { imagePullSecrets: [42] } }], '/global/imagePullSecrets/0');
      assertRejected(t, [{ imagePullSecrets: [{ nam: 'x' }] }], '/imagePullSecrets/0');
      assertRejected(t, [{ extraObjects: [42] }], '/extraObjects/0');
      assertRejected(
        t,
        [{ agent: { containers: { [c]: { extraEnv: [{ value: 'no name' }] } } } }],
        `/agent/containers/${c}/extraEnv/0`,
      );
      assertRejected(t, [{ agent: { serviceAccount: { create: 'no' } } }], '/agent/serviceAccount/create');
      assertRejected(
        t,
        [{ global: { compatibility: { openshift: { adaptSecurityContext: 'yes' } } } }],
        '/global/compatibility',
      );
      const persistence = agent['persistence'] as Json;
      if ('size' in persistence) {
        assertRejected(t, [{ agent: { persistence: { size: 'lots' } } }], '/agent/persistence/size');
        assertRejected(t, [{ agent: { replicas: 2 } }], '/agent');
      } else {
        assertRejected(t, [{ agent: { replicas: -1 } }], '/agent/replicas');
      }
      for (const g of gateways) {
        assertRejected(
          t,
          [{ gateways: { [g]: { serviceAccount: { name: 'Not_A_Name' } } } }],
          `/gateways/${g}/serviceAccount/name`,
        );
      }
    });
  });
}
