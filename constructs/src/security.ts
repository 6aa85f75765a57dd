/** Pod Security "restricted" defaults shared by every generated pod and container. */
import type { k8s } from 'cdk8s-plus-28';
import { RUN_AS_ID } from './defaults.ts';

export function restrictedContainerSecurityContext(): k8s.SecurityContext {
  return {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    privileged: false,
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    runAsUser: RUN_AS_ID,
    runAsGroup: RUN_AS_ID,
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

export function restrictedPodSecurityContext(): k8s.PodSecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: RUN_AS_ID,
    runAsGroup: RUN_AS_ID,
    fsGroup: RUN_AS_ID,
    fsGroupChangePolicy: 'OnRootMismatch',
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

/** `imagePullSecrets` of a pod spec, omitted when there are none. */
export function pullSecrets(names: readonly string[]): Pick<k8s.PodSpec, 'imagePullSecrets'> {
  return names.length > 0 ? { imagePullSecrets: names.map((name) => ({ name })) } : {};
}
