/**
 * The lifecycle kwok plays for the test cluster's fake nodes and their pods (kwok's Stage API, v1alpha1):
 * a node becomes Ready with room for every pod and keeps its heartbeat; a scheduled pod's init containers
 * complete and its containers run and are ready at once (what a Deployment needs to become Available); a pod that
 * must end (`restartPolicy: Never`, Helm test hooks and Jobs) succeeds; a deleted pod goes. With kwok no container
 * runs: these stages are what the API server sees of a healthy node, nothing more (docs/cluster.md).
 */

/** The annotation kwok selects its nodes by (`--manage-nodes-with-annotation-selector`). */
export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';

const NODE_CONDITIONS = `      conditions:
      {{ range NodeConditions }}
      - lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ or $root.metadata.creationTimestamp $now | Quote }}
        message: {{ .message | Quote }}
        reason: {{ .reason | Quote }}
        status: {{ .status | Quote }}
        type: {{ .type | Quote }}
      {{ end }}`;

const nodeReady = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: toolyard-node-ready
spec:
  resourceRef: { apiGroup: v1, kind: Node }
  selector:
    matchExpressions:
    - { key: '.status.conditions.[] | select( .type == "Ready" ) | .status', operator: NotIn, values: ['True'] }
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $root := . }}
${NODE_CONDITIONS}
      addresses:
      - { address: {{ NodeIP | Quote }}, type: InternalIP }
      - { address: {{ NodeName | Quote }}, type: Hostname }
      allocatable: { cpu: "64", memory: 512Gi, pods: "250", ephemeral-storage: 1Ti }
      capacity: { cpu: "64", memory: 512Gi, pods: "250", ephemeral-storage: 1Ti }
      nodeInfo:
        architecture: amd64
        operatingSystem: linux
        containerRuntimeVersion: kwok
        kernelVersion: kwok
        kubeletVersion: kwok
        kubeProxyVersion: kwok
        osImage: kwok
        bootID: ""
        machineID: ""
        systemUUID: ""
      phase: Running
`;

const nodeHeartbeat = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: toolyard-node-heartbeat
spec:
  resourceRef: { apiGroup: v1, kind: Node }
  selector:
    matchExpressions:
    - { key: '.status.phase', operator: In, values: [Running] }
    - { key: '.status.conditions.[] | select( .type == "Ready" ) | .status', operator: In, values: ['True'] }
  delay: { durationMilliseconds: 20000, jitterDurationMilliseconds: 25000 }
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $root := . }}
${NODE_CONDITIONS}
`;

const podRunning = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: toolyard-pod-running
spec:
  resourceRef: { apiGroup: v1, kind: Pod }
  selector:
    matchExpressions:
    - { key: '.metadata.deletionTimestamp', operator: DoesNotExist }
    - { key: '.status.phase', operator: In, values: [Pending] }
    - { key: '.status.conditions.[] | select( .type == "Ready" ) | .status', operator: NotIn, values: ['True'] }
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - { type: PodScheduled, status: "True", lastTransitionTime: {{ $now | Quote }} }
      - { type: Initialized, status: "True", lastTransitionTime: {{ $now | Quote }} }
      - { type: ContainersReady, status: "True", lastTransitionTime: {{ $now | Quote }} }
      - { type: Ready, status: "True", lastTransitionTime: {{ $now | Quote }} }
      initContainerStatuses:
      {{ range .spec.initContainers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        imageID: ""
        restartCount: 0
        {{ if eq .restartPolicy "Always" }}
        ready: true
        started: true
        state: { running: { startedAt: {{ $now | Quote }} } }
        {{ else }}
        ready: true
        state: { terminated: { exitCode: 0, reason: Completed, startedAt: {{ $now | Quote }}, finishedAt: {{ $now | Quote }} } }
        {{ end }}
      {{ end }}
      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        imageID: ""
        ready: true
        started: true
        restartCount: 0
        state: { running: { startedAt: {{ $now | Quote }} } }
      {{ end }}
      {{ with NodeIPsWith .spec.nodeName }}
      hostIP: {{ index . 0 | Quote }}
      hostIPs:
      {{ range . }}
      - ip: {{ . | Quote }}
      {{ end }}
      {{ end }}
      {{ with PodIPsWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) }}
      podIP: {{ index . 0 | Quote }}
      podIPs:
      {{ range . }}
      - ip: {{ . | Quote }}
      {{ end }}
      {{ end }}
      phase: Running
      startTime: {{ $now | Quote }}
`;

const podSucceeded = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: toolyard-pod-succeeded
spec:
  resourceRef: { apiGroup: v1, kind: Pod }
  selector:
    matchExpressions:
    - { key: '.metadata.deletionTimestamp', operator: DoesNotExist }
    - { key: '.status.phase', operator: In, values: [Running] }
    - { key: '.spec.restartPolicy', operator: In, values: [Never, OnFailure] }
  delay: { durationMilliseconds: 500 }
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - { type: Ready, status: "False", reason: PodCompleted, lastTransitionTime: {{ $now | Quote }} }
      - { type: ContainersReady, status: "False", reason: PodCompleted, lastTransitionTime: {{ $now | Quote }} }
      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        imageID: ""
        ready: false
        started: false
        restartCount: 0
        state: { terminated: { exitCode: 0, reason: Completed, startedAt: {{ $now | Quote }}, finishedAt: {{ $now | Quote }} } }
      {{ end }}
      phase: Succeeded
`;

const podGone = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: toolyard-pod-gone
spec:
  resourceRef: { apiGroup: v1, kind: Pod }
  selector:
    matchExpressions:
    - { key: '.metadata.deletionTimestamp', operator: Exists }
  next:
    delete: true
`;

/** The provisioner name of the test cluster's StorageClasses (`TEST_STORAGE_CLASSES`). */
export const TEST_PROVISIONER = 'toolyard.dev/test-volumes';
/**
 * The StorageClasses the test cluster starts with: `standard` (the default) and the classes the examples name (a
 * chart scenario's other class is created before its apply, as `prerequisites.ts` says). A claim of a class is
 * bound at once to a new hostPath volume by the stage below — the test cluster's stand-in for a CSI provisioner
 * (kwok's Stage API can create objects): no storage behind it on kwok nodes, a directory on a real one.
 */
export const TEST_STORAGE_CLASSES = ['standard', 'standard-rwo', 'nfs-csi'] as const;

const claimBound = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: toolyard-claim-bound
spec:
  resourceRef: { apiGroup: v1, kind: PersistentVolumeClaim }
  selector:
    matchExpressions:
    - cel: { expression: "has(self.spec.storageClassName) && self.spec.storageClassName != ''" }
    - cel: { expression: "!has(self.metadata.deletionTimestamp)" }
    - cel: { expression: "!has(self.spec.volumeName)" }
  steps:
  - apply:
      template: |
        apiVersion: v1
        kind: PersistentVolume
        metadata:
          name: pvc-{{ .metadata.uid }}
          annotations: { pv.kubernetes.io/provisioned-by: ${TEST_PROVISIONER} }
        spec:
          accessModes:
          {{ YAML .spec.accessModes 2 }}
          capacity:
          {{ YAML .spec.resources.requests 2 }}
          persistentVolumeReclaimPolicy: Delete
          storageClassName: {{ .spec.storageClassName | Quote }}
          volumeMode: {{ default "Filesystem" .spec.volumeMode | Quote }}
          claimRef:
            apiVersion: v1
            kind: PersistentVolumeClaim
            name: {{ .metadata.name | Quote }}
            namespace: {{ .metadata.namespace | Quote }}
            uid: {{ .metadata.uid | Quote }}
          hostPath:
            path: /var/lib/toolyard-test-volumes/pvc-{{ .metadata.uid }}
            type: DirectoryOrCreate
`;

/** The stages, as the multi-document YAML kwok's `--config` takes. */
export function kwokStagesYaml(): string {
  return [nodeReady, nodeHeartbeat, podRunning, podSucceeded, podGone, claimBound].join('---\n');
}

/** The StorageClass objects of `TEST_STORAGE_CLASSES`, as a kubectl List. */
export function testStorageClasses(names: readonly string[] = TEST_STORAGE_CLASSES): string {
  const items = names.map((name) => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      name,
      ...(name === 'standard'
        ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }
        : {}),
    },
    provisioner: TEST_PROVISIONER,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'Immediate',
    allowVolumeExpansion: true,
  }));
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
}
