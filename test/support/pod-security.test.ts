import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkRestricted, podSpecsOf } from './pod-security.ts';

type Json = Record<string, unknown>;

const restrictedContext = (): Json => ({
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  runAsNonRoot: true,
  seccompProfile: { type: 'RuntimeDefault' },
});

const pod = (): Json & { containers: Json[]; securityContext: Json } => ({
  securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } },
  containers: [{ name: 'app', image: 'x:1', securityContext: restrictedContext() }],
  initContainers: [{ name: 'init', image: 'x:1', securityContext: restrictedContext() }],
  volumes: [
    { name: 'w', emptyDir: {} },
    { name: 'c', configMap: { name: 'c' } },
  ],
});

const firstContainerContext = (spec: ReturnType<typeof pod>) =>
  spec.containers[0]!['securityContext'] as Json;

describe('checkRestricted', () => {
  it('passes a restricted pod', () => {
    assert.deepEqual(checkRestricted(pod()), []);
  });

  it('fails a privileged container', () => {
    const spec = pod();
    firstContainerContext(spec)['privileged'] = true;
    assert.deepEqual(checkRestricted(spec), [
      'spec.containers[app].securityContext.privileged: must be unset or false',
    ]);
  });

  it('fails when allowPrivilegeEscalation is missing, or has the wrong type', () => {
    const missing = pod();
    delete firstContainerContext(missing)['allowPrivilegeEscalation'];
    assert.deepEqual(checkRestricted(missing), [
      'spec.containers[app].securityContext.allowPrivilegeEscalation: must be false',
    ]);
    const wrongType = pod();
    firstContainerContext(wrongType)['allowPrivilegeEscalation'] = 'false';
    assert.equal(checkRestricted(wrongType).length, 1);
  });

  it('fails capabilities that do not drop ALL or add more than NET_BIND_SERVICE', () => {
    const spec = pod();
    firstContainerContext(spec)['capabilities'] = {
      drop: ['NET_RAW'],
      add: ['NET_BIND_SERVICE', 'SYS_ADMIN'],
    };
    assert.deepEqual(checkRestricted(spec), [
      'spec.containers[app].securityContext.capabilities.drop: must include ALL',
      'spec.containers[app].securityContext.capabilities.add: capability "SYS_ADMIN" may not be added (only NET_BIND_SERVICE)',
    ]);
  });

  it('fails host namespaces, hostPath and other volume types, and host ports', () => {
    const spec = pod();
    spec['hostNetwork'] = true;
    spec['hostPID'] = true;
    spec['volumes'] = [
      { name: 'h', hostPath: { path: '/' } },
      { name: 'n', nfs: { server: 's', path: '/' } },
    ];
    spec.containers[0]!['ports'] = [{ containerPort: 80, hostPort: 80 }];
    assert.deepEqual(checkRestricted(spec), [
      'spec.hostNetwork: host namespaces are forbidden',
      'spec.hostPID: host namespaces are forbidden',
      'spec.volumes[0].hostPath: hostPath volumes are forbidden',
      'spec.volumes[1].nfs: volume type "nfs" is not allowed',
      'spec.containers[app].ports[0].hostPort: host ports are forbidden',
    ]);
  });

  it('fails a missing or unconfined seccomp profile', () => {
    const spec = pod();
    delete spec.securityContext['seccompProfile'];
    delete firstContainerContext(spec)['seccompProfile'];
    assert.deepEqual(checkRestricted(spec), [
      'spec.containers[app].securityContext.seccompProfile: must be set (RuntimeDefault or Localhost) here or at pod level',
    ]);
    const unconfined = pod();
    (unconfined.initContainers as Json[])[0]!['securityContext'] = {
      ...restrictedContext(),
      seccompProfile: { type: 'Unconfined' },
    };
    assert.deepEqual(checkRestricted(unconfined), [
      'spec.initContainers[init].securityContext.seccompProfile.type: must be RuntimeDefault or Localhost, is "Unconfined"',
    ]);
  });

  it('fails root: runAsNonRoot false on a container, runAsUser 0 anywhere', () => {
    const spec = pod();
    firstContainerContext(spec)['runAsNonRoot'] = false;
    spec.securityContext['runAsUser'] = 0;
    assert.deepEqual(checkRestricted(spec), [
      'spec.securityContext.runAsUser: must not be 0 (root)',
      'spec.containers[app].securityContext.runAsNonRoot: must be true (here or at pod level, and not false here)',
    ]);
    const noNonRoot = pod();
    delete noNonRoot.securityContext['runAsNonRoot'];
    delete firstContainerContext(noNonRoot)['runAsNonRoot'];
    assert.deepEqual(checkRestricted(noNonRoot), [
      'spec.containers[app].securityContext.runAsNonRoot: must be true (here or at pod level, and not false here)',
    ]);
  });

  it('fails SELinux, AppArmor, procMount, sysctls and hostProcess', () => {
    const spec = pod();
    spec.securityContext['seLinuxOptions'] = { type: 'spc_t', user: 'root' };
    spec.securityContext['sysctls'] = [{ name: 'kernel.msgmax', value: '1' }];
    spec.securityContext['windowsOptions'] = { hostProcess: true };
    Object.assign(firstContainerContext(spec), {
      procMount: 'Unmasked',
      appArmorProfile: { type: 'Unconfined' },
    });
    assert.deepEqual(
      checkRestricted(spec, {
        annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'unconfined' },
      }),
      [
        'spec.securityContext.windowsOptions.hostProcess: must be unset or false',
        'spec.securityContext.seLinuxOptions.type: SELinux type "spc_t" is not allowed',
        'spec.securityContext.seLinuxOptions.user: must be unset',
        'spec.securityContext.sysctls[0]: sysctl "kernel.msgmax" is not in the safe set',
        'metadata.annotations["container.apparmor.security.beta.kubernetes.io/app"]: AppArmor profile "unconfined" is not allowed',
        'spec.containers[app].securityContext.procMount: must be unset or Default',
        'spec.containers[app].securityContext.appArmorProfile.type: AppArmor profile "Unconfined" is not allowed',
      ],
    );
  });

  it('checks ephemeral containers too', () => {
    const spec = pod();
    spec['ephemeralContainers'] = [{ name: 'debug', image: 'busybox:1' }];
    assert.deepEqual(checkRestricted(spec), [
      'spec.ephemeralContainers[debug].securityContext.allowPrivilegeEscalation: must be false',
      'spec.ephemeralContainers[debug].securityContext.capabilities.drop: must include ALL',
    ]);
  });

  it('fails wrong types instead of treating them as unset', () => {
    const spec = pod();
    spec['hostIPC'] = 'false';
    firstContainerContext(spec)['runAsUser'] = '1000';
    assert.deepEqual(checkRestricted(spec), [
      'spec.hostIPC: host namespaces are forbidden',
      'spec.containers[app].securityContext.runAsUser: must be an integer, is "1000"',
    ]);
    assert.deepEqual(checkRestricted('nope'), ['spec: not an object']);
    assert.deepEqual(checkRestricted({ containers: [] }), [
      'spec.containers: a pod needs at least one container',
    ]);
  });
});

describe('podSpecsOf', () => {
  it('finds the pod template of workloads, pods and cronjobs, nothing in other kinds', () => {
    const spec = pod();
    const template = { metadata: { labels: { a: 'b' } }, spec };
    assert.equal(
      podSpecsOf({ kind: 'Deployment', metadata: { name: 'd' }, spec: { template } })[0]?.podSpec,
      spec,
    );
    assert.equal(
      podSpecsOf({ kind: 'StatefulSet', metadata: { name: 's' }, spec: { template } })[0]?.where,
      'StatefulSet/s',
    );
    assert.equal(podSpecsOf({ kind: 'Pod', metadata: { name: 'p' }, spec })[0]?.podSpec, spec);
    assert.equal(
      podSpecsOf({ kind: 'CronJob', metadata: { name: 'c' }, spec: { jobTemplate: { spec: { template } } } })
        .length,
      1,
    );
    assert.deepEqual(podSpecsOf({ kind: 'ConfigMap', metadata: { name: 'c' }, data: {} }), []);
  });
});
