/**
 * Pod Security Standards, profile "restricted" (latest): every baseline and restricted check, over the pod's
 * containers, initContainers and ephemeralContainers. https://kubernetes.io/docs/concepts/security/pod-security-standards/
 *
 * Works on plain JSON (rendered objects), so a field with the wrong type counts as a violation, never as "unset".
 */

type Json = Record<string, unknown>;

export interface PodTemplate {
  /** Where the pod spec sits, e.g. `Deployment/reviewer`. */
  readonly where: string;
  readonly podSpec: Json;
  readonly podMetadata: Json | undefined;
}

/** The pod specs inside a Pod or any workload kind (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob). */
export function podSpecsOf(obj: unknown): PodTemplate[] {
  if (!isObject(obj)) return [];
  const kind = String(obj['kind']);
  const where = `${kind}/${String(asObject(obj['metadata'])?.['name'] ?? '<unnamed>')}`;
  const spec = asObject(obj['spec']);
  if (!spec) return [];
  if (kind === 'Pod') return [{ where, podSpec: spec, podMetadata: asObject(obj['metadata']) }];
  const templateOf = (holder: Json | undefined): PodTemplate[] => {
    const template = asObject(holder?.['template']);
    const podSpec = asObject(template?.['spec']);
    return podSpec ? [{ where, podSpec, podMetadata: asObject(template?.['metadata']) }] : [];
  };
  if (kind === 'CronJob') return templateOf(asObject(spec['jobTemplate'])?.['spec'] as Json | undefined);
  if (['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'ReplicationController', 'Job'].includes(kind))
    return templateOf(spec);
  return [];
}

const ALLOWED_CAPABILITY_ADDS = new Set(['NET_BIND_SERVICE']);
const ALLOWED_SELINUX_TYPES = new Set([
  '',
  'container_t',
  'container_init_t',
  'container_kvm_t',
  'container_engine_t',
]);
const ALLOWED_VOLUME_TYPES = new Set([
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
]);
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
  'net.ipv4.tcp_rmem',
  'net.ipv4.tcp_wmem',
]);
const APPARMOR_ANNOTATION = 'container.apparmor.security.beta.kubernetes.io/';

/** Every violation of the restricted profile, as `<path>: <why>`; empty when the pod passes. */
export function checkRestricted(podSpec: unknown, podMetadata?: unknown): string[] {
  const violations: string[] = [];
  const fail = (path: string, why: string) => violations.push(`${path}: ${why}`);
  if (!isObject(podSpec)) return ['spec: not an object'];
  const windows = asObject(podSpec['os'])?.['name'] === 'windows';
  const podContext = podSpec['securityContext'];
  if (podContext !== undefined && !isObject(podContext)) fail('spec.securityContext', 'must be an object');
  const pod = asObject(podContext) ?? {};

  // Host namespaces.
  for (const field of ['hostNetwork', 'hostPID', 'hostIPC'] as const)
    if (!isUnsetOr(podSpec[field], false)) fail(`spec.${field}`, 'host namespaces are forbidden');

  // HostProcess (pod level).
  if (!isUnsetOr(asObject(pod['windowsOptions'])?.['hostProcess'], false))
    fail('spec.securityContext.windowsOptions.hostProcess', 'must be unset or false');

  // Volumes: no hostPath, only the restricted volume types.
  const volumes = podSpec['volumes'];
  if (volumes !== undefined && !Array.isArray(volumes)) fail('spec.volumes', 'must be a list');
  for (const [index, volume] of (Array.isArray(volumes) ? volumes : []).entries()) {
    const path = `spec.volumes[${index}]`;
    if (!isObject(volume)) {
      fail(path, 'must be an object');
      continue;
    }
    const types = Object.keys(volume).filter((key) => key !== 'name');
    if (types.length !== 1) fail(path, `must have exactly one volume source, has ${JSON.stringify(types)}`);
    for (const type of types) {
      if (type === 'hostPath') fail(`${path}.hostPath`, 'hostPath volumes are forbidden');
      else if (!ALLOWED_VOLUME_TYPES.has(type))
        fail(`${path}.${type}`, `volume type "${type}" is not allowed`);
    }
  }

  // Pod-level seccomp, SELinux, AppArmor, runAsNonRoot, runAsUser, sysctls.
  const podSeccomp = seccompType(pod['seccompProfile']);
  if (pod['seccompProfile'] !== undefined && !['RuntimeDefault', 'Localhost'].includes(String(podSeccomp)))
    fail(
      'spec.securityContext.seccompProfile.type',
      `must be RuntimeDefault or Localhost, is ${JSON.stringify(podSeccomp)}`,
    );
  checkSeLinux(pod['seLinuxOptions'], 'spec.securityContext.seLinuxOptions', fail);
  checkAppArmor(pod['appArmorProfile'], 'spec.securityContext.appArmorProfile', fail);
  if (!isUnsetOr(pod['runAsNonRoot'], true))
    fail('spec.securityContext.runAsNonRoot', 'must be unset or true');
  checkRunAsUser(pod['runAsUser'], 'spec.securityContext.runAsUser', fail);
  const sysctls = pod['sysctls'];
  if (sysctls !== undefined && !Array.isArray(sysctls))
    fail('spec.securityContext.sysctls', 'must be a list');
  for (const [index, sysctl] of (Array.isArray(sysctls) ? sysctls : []).entries()) {
    const name = asObject(sysctl)?.['name'];
    if (typeof name !== 'string' || !SAFE_SYSCTLS.has(name))
      fail(`spec.securityContext.sysctls[${index}]`, `sysctl ${JSON.stringify(name)} is not in the safe set`);
  }

  // AppArmor annotations (pre-1.30 form, still checked).
  const annotations = asObject(asObject(podMetadata)?.['annotations']) ?? {};
  for (const [key, value] of Object.entries(annotations)) {
    if (!key.startsWith(APPARMOR_ANNOTATION)) continue;
    if (typeof value !== 'string' || !(value === 'runtime/default' || value.startsWith('localhost/')))
      fail(`metadata.annotations["${key}"]`, `AppArmor profile ${JSON.stringify(value)} is not allowed`);
  }

  // Containers of every sort.
  for (const list of ['containers', 'initContainers', 'ephemeralContainers'] as const) {
    const containers = podSpec[list];
    if (list === 'containers' && (!Array.isArray(containers) || containers.length === 0))
      fail('spec.containers', 'a pod needs at least one container');
    if (containers !== undefined && !Array.isArray(containers)) {
      fail(`spec.${list}`, 'must be a list');
      continue;
    }
    for (const [index, container] of (containers ?? []).entries()) {
      const path = `spec.${list}[${index}]`;
      if (!isObject(container)) {
        fail(path, 'must be an object');
        continue;
      }
      const name = typeof container['name'] === 'string' ? container['name'] : String(index);
      checkContainer(container, `spec.${list}[${name}]`, pod, podSeccomp, windows, fail);
    }
  }
  return violations;
}

function checkContainer(
  container: Json,
  path: string,
  pod: Json,
  podSeccomp: unknown,
  windows: boolean,
  fail: (path: string, why: string) => void,
): void {
  const raw = container['securityContext'];
  if (raw !== undefined && !isObject(raw)) fail(`${path}.securityContext`, 'must be an object');
  const sc = asObject(raw) ?? {};
  const at = `${path}.securityContext`;

  if (!isUnsetOr(asObject(sc['windowsOptions'])?.['hostProcess'], false))
    fail(`${at}.windowsOptions.hostProcess`, 'must be unset or false');
  if (!isUnsetOr(sc['privileged'], false)) fail(`${at}.privileged`, 'must be unset or false');
  if (!isUnsetOr(sc['procMount'], 'Default')) fail(`${at}.procMount`, 'must be unset or Default');
  checkSeLinux(sc['seLinuxOptions'], `${at}.seLinuxOptions`, fail);
  checkAppArmor(sc['appArmorProfile'], `${at}.appArmorProfile`, fail);

  const ports = container['ports'];
  for (const [index, port] of (Array.isArray(ports) ? ports : []).entries()) {
    const hostPort = asObject(port)?.['hostPort'];
    if (!isUnsetOr(hostPort, 0)) fail(`${path}.ports[${index}].hostPort`, 'host ports are forbidden');
  }

  // Seccomp: the container's own profile, or the pod's when the container sets none.
  const ownSeccomp = sc['seccompProfile'];
  if (ownSeccomp !== undefined) {
    const type = seccompType(ownSeccomp);
    if (!['RuntimeDefault', 'Localhost'].includes(String(type)))
      fail(`${at}.seccompProfile.type`, `must be RuntimeDefault or Localhost, is ${JSON.stringify(type)}`);
  } else if (!windows && !['RuntimeDefault', 'Localhost'].includes(String(podSeccomp))) {
    fail(`${at}.seccompProfile`, 'must be set (RuntimeDefault or Localhost) here or at pod level');
  }

  // runAsNonRoot: true on the container, or true on the pod and not false on the container.
  const nonRoot = sc['runAsNonRoot'];
  if (!(nonRoot === true || (nonRoot === undefined && pod['runAsNonRoot'] === true)))
    fail(`${at}.runAsNonRoot`, 'must be true (here or at pod level, and not false here)');
  checkRunAsUser(sc['runAsUser'], `${at}.runAsUser`, fail);

  if (windows) return;
  if (sc['allowPrivilegeEscalation'] !== false) fail(`${at}.allowPrivilegeEscalation`, 'must be false');
  const capabilities = sc['capabilities'];
  if (capabilities !== undefined && !isObject(capabilities)) fail(`${at}.capabilities`, 'must be an object');
  const caps = asObject(capabilities) ?? {};
  const drop = caps['drop'];
  if (!Array.isArray(drop) || !drop.includes('ALL')) fail(`${at}.capabilities.drop`, 'must include ALL');
  const add = caps['add'];
  if (add !== undefined && !Array.isArray(add)) fail(`${at}.capabilities.add`, 'must be a list');
  for (const capability of Array.isArray(add) ? add : [])
    if (typeof capability !== 'string' || !ALLOWED_CAPABILITY_ADDS.has(capability))
      fail(
        `${at}.capabilities.add`,
        `capability ${JSON.stringify(capability)} may not be added (only NET_BIND_SERVICE)`,
      );
}

function checkSeLinux(options: unknown, path: string, fail: (path: string, why: string) => void): void {
  if (options === undefined) return;
  if (!isObject(options)) {
    fail(path, 'must be an object');
    return;
  }
  const type = options['type'];
  if (type !== undefined && (typeof type !== 'string' || !ALLOWED_SELINUX_TYPES.has(type)))
    fail(`${path}.type`, `SELinux type ${JSON.stringify(type)} is not allowed`);
  for (const field of ['user', 'role'] as const)
    if (options[field] !== undefined && options[field] !== '') fail(`${path}.${field}`, 'must be unset');
}

function checkAppArmor(profile: unknown, path: string, fail: (path: string, why: string) => void): void {
  if (profile === undefined) return;
  const type = asObject(profile)?.['type'];
  if (type !== 'RuntimeDefault' && type !== 'Localhost')
    fail(`${path}.type`, `AppArmor profile ${JSON.stringify(type)} is not allowed`);
}

function checkRunAsUser(user: unknown, path: string, fail: (path: string, why: string) => void): void {
  if (user === undefined) return;
  if (typeof user !== 'number' || !Number.isInteger(user))
    fail(path, `must be an integer, is ${JSON.stringify(user)}`);
  else if (user === 0) fail(path, 'must not be 0 (root)');
}

function seccompType(profile: unknown): unknown {
  return profile === undefined ? undefined : asObject(profile)?.['type'];
}

/** Unset, or exactly the allowed value (a wrong type is never "unset"). */
function isUnsetOr(value: unknown, allowed: unknown): boolean {
  return value === undefined || value === allowed;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asObject(value: unknown): Json | undefined {
  return isObject(value) ? value : undefined;
}
