/**
 * The Kubernetes API server's own validation (k8s.io/kubernetes v1.35 `pkg/apis/*\/validation`, apimachinery's
 * `util/validation`), as far as the kinds toolyard renders use it: what `kubectl apply` would refuse that the
 * OpenAPI schemas (test/support/kubernetes-schema.ts) let through — names per kind, label keys and values,
 * annotation keys, port names and numbers, environment variable names, Secret keys, quantities, CIDRs,
 * volume references, selectors that match their templates.
 *
 * Written from the Kubernetes rules, independently of toolyard's own checks (constructs/src), so that a test
 * that holds rendered output against it can catch a check that is missing or wrong. CIDRs are held to the
 * strict form (StrictIPCIDRValidation: no host bits, no leading zeros), which the API server warns about today
 * and refuses when that gate is on.
 */
import { isIPv4, isIPv6 } from 'node:net';

type Json = Record<string, unknown>;

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const CONFIG_MAP_KEY = /^[-._a-zA-Z0-9]+$/;
const QUANTITY = /^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([numkMGTPE]|[KMGTPE]i|[eE][-+]?[0-9]+)?$/;
const TOTAL_ANNOTATION_BYTES = 256 * 1024;
const CONFIG_MAP_BYTES = 1024 * 1024;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const objectAt = (value: unknown): Json => (isObject(value) ? value : {});
const listAt = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

export function isDns1123Label(value: string): boolean {
  return value.length <= 63 && DNS1123_LABEL.test(value);
}
export function isDns1123Subdomain(value: string): boolean {
  return value.length <= 253 && DNS1123_SUBDOMAIN.test(value);
}
export function isDns1035Label(value: string): boolean {
  return value.length <= 63 && DNS1035_LABEL.test(value);
}

/** A label key (and an annotation key): an optional DNS-subdomain prefix and `/`, then a name of ≤ 63. */
export function isQualifiedName(value: string): boolean {
  const parts = value.split('/');
  if (parts.length > 2) return false;
  const name = parts.at(-1)!;
  if (parts.length === 2 && !isDns1123Subdomain(parts[0]!)) return false;
  return name.length <= 63 && QUALIFIED_NAME_PART.test(name);
}
export function isLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE.test(value);
}

/** IANA_SVC_NAME: ≤ 15, [-a-z0-9], a letter, no `--`, no hyphen at either end. */
export function isPortName(value: string): boolean {
  return (
    value.length > 0 &&
    value.length <= 15 &&
    /^[-a-z0-9]+$/.test(value) &&
    /[a-z]/.test(value) &&
    !value.includes('--') &&
    !value.startsWith('-') &&
    !value.endsWith('-')
  );
}

/** RelaxedEnvironmentVariableValidation (GA in 1.34): printable ASCII other than `=`. */
export function isEnvVarName(value: string): boolean {
  return value.length > 0 && /^[\x20-\x3c\x3e-\x7e]+$/.test(value);
}

export function isConfigMapKey(value: string): boolean {
  return value.length <= 253 && CONFIG_MAP_KEY.test(value) && value !== '.' && !value.startsWith('..');
}

function isPort(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535;
}

/** A quantity's value as a fraction (numerator, denominator), or undefined when it does not parse. */
export function quantityValue(text: string): { num: bigint; den: bigint } | undefined {
  const match = QUANTITY.exec(text);
  if (!match) return undefined;
  const negative = text.startsWith('-');
  const [whole = '', fraction = ''] = text
    .replace(/^[+-]/, '')
    .replace(/[a-zA-Z].*$/, '')
    .split('.');
  let num = BigInt(`${whole || '0'}${fraction}`);
  let den = 10n ** BigInt(fraction.length);
  const suffix = match[3] ?? '';
  const decimal: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
  const binary: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
  let exponent = 0;
  if (suffix in binary) num *= 2n ** BigInt(binary[suffix]!);
  else if (suffix in decimal) exponent = decimal[suffix]!;
  else if (suffix !== '') exponent = Number(suffix.slice(1));
  if (exponent >= 0) num *= 10n ** BigInt(exponent);
  else den *= 10n ** BigInt(-exponent);
  return { num: negative ? -num : num, den };
}

function compareQuantities(a: string, b: string): number | undefined {
  const x = quantityValue(a);
  const y = quantityValue(b);
  if (!x || !y) return undefined;
  const left = x.num * y.den;
  const right = y.num * x.den;
  return left < right ? -1 : left > right ? 1 : 0;
}

function ipToBigInt(ip: string): bigint {
  if (isIPv4(ip)) return ip.split('.').reduce((value, octet) => (value << 8n) | BigInt(octet), 0n);
  let text = ip;
  let tail: number[] = [];
  const v4 = /:(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const value = ipToBigInt(v4[1]!);
    tail = [Number(value >> 16n), Number(value & 0xffffn)];
    text = `${text.slice(0, v4.index + 1)}${text.endsWith(`::${v4[1]}`) ? ':' : ''}`.replace(/:$/, '');
    if (text === '') text = '::';
  }
  const [head = '', rest] = text.split('::');
  const words = (part: string) => (part === '' ? [] : part.split(':').map((w) => Number.parseInt(w, 16)));
  const left = words(head);
  const right = rest === undefined ? [] : words(rest);
  const fill = 8 - left.length - right.length - tail.length;
  const all = [...left, ...new Array<number>(Math.max(fill, 0)).fill(0), ...right, ...tail];
  return all.reduce((value, word) => (value << 16n) | BigInt(word), 0n);
}

/** Why a CIDR would be refused (strict form), or undefined. */
export function cidrProblem(value: string): string | undefined {
  const slash = value.indexOf('/');
  if (slash < 0) return 'must be a valid CIDR value';
  const ip = value.slice(0, slash);
  const prefixText = value.slice(slash + 1);
  const family = isIPv4(ip) ? 4 : isIPv6(ip) && !ip.includes('%') ? 6 : 0;
  if (family === 0 || !/^(0|[1-9][0-9]*)$/.test(prefixText)) return 'must be a valid CIDR value';
  if (family === 4 && ip.split('.').some((octet) => /^0\d/.test(octet)))
    return 'must not have leading 0s in IP or prefix length';
  const bits = family === 4 ? 32 : 128;
  const prefix = Number(prefixText);
  if (prefix > bits) return 'must be a valid CIDR value';
  const value64 = ipToBigInt(ip);
  if (family === 6 && value64 >> 32n === 0xffffn) return 'must not have an IPv4-mapped IPv6 address';
  const hostMask = (1n << BigInt(bits - prefix)) - 1n;
  if ((value64 & hostMask) !== 0n) return 'must not have bits set beyond the prefix length';
  return undefined;
}

function cidrRange(value: string): { family: 4 | 6; network: bigint; prefix: number } {
  const [ip = '', prefix = '0'] = value.split('/');
  return { family: isIPv4(ip) ? 4 : 6, network: ipToBigInt(ip), prefix: Number(prefix) };
}

/** Collects problems as `<Kind>/<name>: <path>: <message>`. */
class Problems {
  readonly list: string[] = [];
  private readonly where: string;
  constructor(where: string) {
    this.where = where;
  }
  add(path: string, message: string): void {
    this.list.push(`${this.where}: ${path}: ${message}`);
  }
}

function checkName(
  problems: Problems,
  path: string,
  value: unknown,
  rule: 'label' | 'subdomain' | 'dns1035',
) {
  const ok =
    typeof value === 'string' &&
    (rule === 'label'
      ? isDns1123Label(value)
      : rule === 'dns1035'
        ? isDns1035Label(value)
        : isDns1123Subdomain(value));
  if (!ok)
    problems.add(
      path,
      `${JSON.stringify(value)} is not a valid ${rule === 'dns1035' ? 'DNS-1035 label' : `DNS-1123 ${rule}`}`,
    );
}

function checkLabels(problems: Problems, path: string, labels: unknown) {
  for (const [key, value] of Object.entries(objectAt(labels))) {
    if (!isQualifiedName(key)) problems.add(`${path}/${key}`, 'invalid label key');
    if (typeof value !== 'string' || !isLabelValue(value))
      problems.add(`${path}/${key}`, `invalid label value ${JSON.stringify(value)}`);
  }
}

function checkAnnotations(problems: Problems, path: string, annotations: unknown) {
  let size = 0;
  for (const [key, value] of Object.entries(objectAt(annotations))) {
    if (!isQualifiedName(key.toLowerCase())) problems.add(`${path}/${key}`, 'invalid annotation key');
    size += key.length + String(value).length;
  }
  if (size > TOTAL_ANNOTATION_BYTES) problems.add(path, `annotations total ${size} bytes, more than 256 KiB`);
}

function checkMetadata(
  problems: Problems,
  metadata: Json,
  nameRule: 'label' | 'subdomain' | 'dns1035' | 'path',
) {
  if (nameRule === 'path') {
    const name = metadata['name'];
    if (typeof name !== 'string' || name === '' || name === '.' || name === '..' || /[/%]/.test(name))
      problems.add('/metadata/name', `${JSON.stringify(name)} is not a valid path segment name`);
  } else checkName(problems, '/metadata/name', metadata['name'], nameRule);
  if (metadata['namespace'] !== undefined)
    checkName(problems, '/metadata/namespace', metadata['namespace'], 'label');
  checkLabels(problems, '/metadata/labels', metadata['labels']);
  checkAnnotations(problems, '/metadata/annotations', metadata['annotations']);
}

function checkResources(problems: Problems, path: string, resources: unknown) {
  const requests = objectAt(objectAt(resources)['requests']);
  const limits = objectAt(objectAt(resources)['limits']);
  for (const [kind, map] of [
    ['requests', requests],
    ['limits', limits],
  ] as const) {
    for (const [name, value] of Object.entries(map)) {
      const text = String(value);
      const parsed = quantityValue(text);
      if (!parsed) problems.add(`${path}/${kind}/${name}`, `${JSON.stringify(value)} is not a quantity`);
      else if (parsed.num < 0n) problems.add(`${path}/${kind}/${name}`, 'must be greater than or equal to 0');
    }
  }
  for (const [name, request] of Object.entries(requests)) {
    const limit = limits[name];
    if (limit === undefined) continue;
    if ((compareQuantities(String(request), String(limit)) ?? 0) > 0)
      problems.add(
        `${path}/requests/${name}`,
        `must be less than or equal to ${name} limit of ${String(limit)}`,
      );
  }
}

function checkContainer(
  problems: Problems,
  path: string,
  container: Json,
  volumes: ReadonlySet<string>,
  portNames: Set<string>,
) {
  checkName(problems, `${path}/name`, container['name'], 'label');
  if (
    typeof container['image'] !== 'string' ||
    container['image'].trim() !== container['image'] ||
    container['image'] === ''
  )
    problems.add(`${path}/image`, 'required, without surrounding whitespace');
  listAt(container['ports']).forEach((raw, i) => {
    const port = objectAt(raw);
    if (!isPort(port['containerPort']))
      problems.add(`${path}/ports/${i}/containerPort`, 'must be between 1 and 65535');
    const name = port['name'];
    if (name !== undefined) {
      if (typeof name !== 'string' || !isPortName(name))
        problems.add(`${path}/ports/${i}/name`, `${JSON.stringify(name)} is not a valid port name`);
      else if (portNames.has(name)) problems.add(`${path}/ports/${i}/name`, `duplicate port name ${name}`);
      else portNames.add(name);
    }
  });
  const envNames = new Set<string>();
  listAt(container['env']).forEach((raw, i) => {
    const env = objectAt(raw);
    const name = env['name'];
    if (typeof name !== 'string' || !isEnvVarName(name))
      problems.add(`${path}/env/${i}/name`, `${JSON.stringify(name)} is not a valid variable name`);
    envNames.add(String(name));
    const secret = objectAt(objectAt(env['valueFrom'])['secretKeyRef']);
    if (Object.keys(secret).length > 0) {
      checkName(problems, `${path}/env/${i}/valueFrom/secretKeyRef/name`, secret['name'], 'subdomain');
      if (typeof secret['key'] !== 'string' || !isConfigMapKey(secret['key']))
        problems.add(`${path}/env/${i}/valueFrom/secretKeyRef/key`, 'not a valid Secret key');
    }
  });
  const mountPaths = new Set<string>();
  listAt(container['volumeMounts']).forEach((raw, i) => {
    const mount = objectAt(raw);
    if (!volumes.has(String(mount['name'])))
      problems.add(`${path}/volumeMounts/${i}/name`, `not found: ${String(mount['name'])}`);
    const mountPath = String(mount['mountPath']);
    if (mountPath === '') problems.add(`${path}/volumeMounts/${i}/mountPath`, 'required');
    if (mountPaths.has(mountPath)) problems.add(`${path}/volumeMounts/${i}/mountPath`, 'must be unique');
    mountPaths.add(mountPath);
  });
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
    const http = objectAt(objectAt(container[probe])['httpGet']);
    const port = http['port'];
    if (port !== undefined && !isPort(port) && !(typeof port === 'string' && portNames.has(port)))
      problems.add(`${path}/${probe}/httpGet/port`, `${JSON.stringify(port)} is not a port of the pod`);
  }
  checkResources(problems, `${path}/resources`, container['resources']);
}

function checkPodSpec(problems: Problems, path: string, spec: Json, claimTemplates: readonly string[] = []) {
  // A StatefulSet's volumeClaimTemplates are volumes of its pods.
  const volumes = new Set<string>(claimTemplates);
  listAt(spec['volumes']).forEach((raw, i) => {
    const volume = objectAt(raw);
    const name = String(volume['name']);
    checkName(problems, `${path}/volumes/${i}/name`, name, 'label');
    if (volumes.has(name)) problems.add(`${path}/volumes/${i}/name`, `duplicate volume ${name}`);
    volumes.add(name);
    const emptyDir = objectAt(volume['emptyDir']);
    if (emptyDir['sizeLimit'] !== undefined) {
      const size = quantityValue(String(emptyDir['sizeLimit']));
      if (!size || size.num < 0n)
        problems.add(`${path}/volumes/${i}/emptyDir/sizeLimit`, 'not a valid quantity');
    }
    const claim = objectAt(volume['persistentVolumeClaim']);
    if (Object.keys(claim).length > 0)
      checkName(
        problems,
        `${path}/volumes/${i}/persistentVolumeClaim/claimName`,
        claim['claimName'],
        'subdomain',
      );
    const configMap = objectAt(volume['configMap']);
    if (Object.keys(configMap).length > 0)
      checkName(problems, `${path}/volumes/${i}/configMap/name`, configMap['name'], 'subdomain');
    const secret = objectAt(volume['secret']);
    if (Object.keys(secret).length > 0)
      checkName(problems, `${path}/volumes/${i}/secret/secretName`, secret['secretName'], 'subdomain');
    for (const item of [...listAt(configMap['items']), ...listAt(secret['items'])])
      if (!isConfigMapKey(String(objectAt(item)['key'])))
        problems.add(`${path}/volumes/${i}`, `item key ${String(objectAt(item)['key'])} is not a valid key`);
  });
  const containerNames = new Set<string>();
  const portNames = new Set<string>();
  for (const field of ['initContainers', 'containers']) {
    listAt(spec[field]).forEach((raw, i) => {
      const container = objectAt(raw);
      const name = String(container['name']);
      if (containerNames.has(name)) problems.add(`${path}/${field}/${i}/name`, `duplicate container ${name}`);
      containerNames.add(name);
      checkContainer(problems, `${path}/${field}/${i}`, container, volumes, portNames);
    });
  }
  if (spec['serviceAccountName'] !== undefined)
    checkName(problems, `${path}/serviceAccountName`, spec['serviceAccountName'], 'subdomain');
  listAt(spec['imagePullSecrets']).forEach((raw, i) => {
    checkName(problems, `${path}/imagePullSecrets/${i}/name`, objectAt(raw)['name'], 'subdomain');
  });
}

function checkWorkload(problems: Problems, spec: Json) {
  const template = objectAt(spec['template']);
  const templateLabels = objectAt(objectAt(template['metadata'])['labels']);
  checkLabels(problems, '/spec/template/metadata/labels', templateLabels);
  checkAnnotations(
    problems,
    '/spec/template/metadata/annotations',
    objectAt(template['metadata'])['annotations'],
  );
  const selector = objectAt(objectAt(spec['selector'])['matchLabels']);
  checkLabels(problems, '/spec/selector/matchLabels', selector);
  if (Object.keys(selector).length === 0) problems.add('/spec/selector', 'empty selector');
  for (const [key, value] of Object.entries(selector))
    if (templateLabels[key] !== value)
      problems.add('/spec/selector', '`selector` does not match template `labels`');
  const claimTemplates = listAt(spec['volumeClaimTemplates']).map((raw) =>
    String(objectAt(objectAt(raw)['metadata'])['name']),
  );
  checkPodSpec(problems, '/spec/template/spec', objectAt(template['spec']), claimTemplates);
  listAt(spec['volumeClaimTemplates']).forEach((raw, i) => {
    checkClaim(problems, `/spec/volumeClaimTemplates/${i}`, objectAt(raw));
  });
}

function checkClaim(problems: Problems, path: string, claim: Json) {
  const spec = objectAt(claim['spec']);
  const modes = listAt(spec['accessModes']);
  if (modes.length === 0) problems.add(`${path}/spec/accessModes`, 'at least 1 access mode is required');
  if (modes.includes('ReadWriteOncePod') && modes.length > 1)
    problems.add(`${path}/spec/accessModes`, 'may not use ReadWriteOncePod with other access modes');
  const storage = objectAt(objectAt(spec['resources'])['requests'])['storage'];
  const size = storage === undefined ? undefined : quantityValue(String(storage));
  if (!size || size.num <= 0n)
    problems.add(`${path}/spec/resources/requests/storage`, 'must be greater than zero');
  const storageClass = spec['storageClassName'];
  if (typeof storageClass === 'string' && storageClass !== '')
    checkName(problems, `${path}/spec/storageClassName`, storageClass, 'subdomain');
}

function checkService(problems: Problems, spec: Json) {
  const ports = listAt(spec['ports']).map(objectAt);
  const names = new Set<string>();
  ports.forEach((port, i) => {
    if (!isPort(port['port'])) problems.add(`/spec/ports/${i}/port`, 'must be between 1 and 65535');
    const name = port['name'];
    if (ports.length > 1 && (typeof name !== 'string' || name === ''))
      problems.add(`/spec/ports/${i}/name`, 'required with more than one port');
    if (typeof name === 'string' && name !== '') {
      if (!isDns1123Label(name)) problems.add(`/spec/ports/${i}/name`, `${name} is not a DNS-1123 label`);
      if (names.has(name)) problems.add(`/spec/ports/${i}/name`, `duplicate port name ${name}`);
      names.add(name);
    }
    const target = port['targetPort'];
    if (target !== undefined && !isPort(target) && !(typeof target === 'string' && isPortName(target)))
      problems.add(`/spec/ports/${i}/targetPort`, `${JSON.stringify(target)} is not a port`);
  });
  checkLabels(problems, '/spec/selector', spec['selector']);
}

function checkPeer(problems: Problems, path: string, peer: Json) {
  const block = objectAt(peer['ipBlock']);
  if (Object.keys(block).length > 0) {
    const cidr = String(block['cidr']);
    const why = cidrProblem(cidr);
    if (why) problems.add(`${path}/ipBlock/cidr`, `${cidr}: ${why}`);
    listAt(block['except']).forEach((raw, k) => {
      const except = String(raw);
      const exceptWhy = cidrProblem(except);
      if (exceptWhy) problems.add(`${path}/ipBlock/except/${k}`, `${except}: ${exceptWhy}`);
      if (why || exceptWhy) return;
      const outer = cidrRange(cidr);
      const inner = cidrRange(except);
      const bits = outer.family === 4 ? 32 : 128;
      const contained =
        outer.family === inner.family &&
        inner.prefix > outer.prefix &&
        inner.network >> BigInt(bits - outer.prefix) === outer.network >> BigInt(bits - outer.prefix);
      if (!contained)
        problems.add(`${path}/ipBlock/except/${k}`, `${except} must be a strict subset of \`cidr\``);
    });
  }
  for (const selector of ['podSelector', 'namespaceSelector'])
    checkLabels(problems, `${path}/${selector}/matchLabels`, objectAt(peer[selector])['matchLabels']);
}

function checkNetworkPolicy(problems: Problems, spec: Json) {
  checkLabels(problems, '/spec/podSelector/matchLabels', objectAt(spec['podSelector'])['matchLabels']);
  for (const direction of ['ingress', 'egress'] as const) {
    listAt(spec[direction]).forEach((raw, i) => {
      const rule = objectAt(raw);
      listAt(rule['ports']).forEach((rawPort, j) => {
        const port = objectAt(rawPort)['port'];
        if (port !== undefined && !isPort(port) && !(typeof port === 'string' && isPortName(port)))
          problems.add(`/spec/${direction}/${i}/ports/${j}/port`, `${JSON.stringify(port)} is not a port`);
      });
      listAt(rule[direction === 'ingress' ? 'from' : 'to']).forEach((peer, j) => {
        checkPeer(
          problems,
          `/spec/${direction}/${i}/${direction === 'ingress' ? 'from' : 'to'}/${j}`,
          objectAt(peer),
        );
      });
    });
  }
}

function checkConfigMap(problems: Problems, obj: Json) {
  let size = 0;
  for (const field of ['data', 'binaryData']) {
    for (const [key, value] of Object.entries(objectAt(obj[field]))) {
      if (!isConfigMapKey(key)) problems.add(`/${field}/${key}`, 'not a valid config key');
      size += key.length + String(value).length;
    }
  }
  if (size > CONFIG_MAP_BYTES) problems.add('/data', `${size} bytes, more than 1 MiB`);
}

function checkRoleBinding(problems: Problems, obj: Json) {
  const roleRef = objectAt(obj['roleRef']);
  if (roleRef['kind'] !== 'Role' && roleRef['kind'] !== 'ClusterRole')
    problems.add('/roleRef/kind', 'must be Role or ClusterRole');
  listAt(obj['subjects']).forEach((raw, i) => {
    const subject = objectAt(raw);
    if (subject['kind'] === 'ServiceAccount') {
      checkName(problems, `/subjects/${i}/name`, subject['name'], 'subdomain');
      if (subject['namespace'] !== undefined)
        checkName(problems, `/subjects/${i}/namespace`, subject['namespace'], 'label');
    }
  });
}

function checkRole(problems: Problems, obj: Json) {
  listAt(obj['rules']).forEach((raw, i) => {
    const rule = objectAt(raw);
    if (listAt(rule['verbs']).length === 0)
      problems.add(`/rules/${i}/verbs`, 'verbs must contain at least one value');
    if (listAt(rule['resources']).length === 0 && listAt(rule['nonResourceURLs']).length === 0)
      problems.add(`/rules/${i}/resources`, 'resource rules must supply at least one resource');
  });
}

const NAME_RULES: Readonly<Record<string, 'label' | 'subdomain' | 'dns1035' | 'path'>> = {
  Service: 'dns1035',
  Role: 'path',
  RoleBinding: 'path',
};

/** Every refusal the API server would give `obj`, as `<Kind>/<name>: <path>: <message>`; empty when none. */
export function apiServerProblems(obj: unknown): string[] {
  if (!isObject(obj)) return ['not an object'];
  const kind = String(obj['kind']);
  const metadata = objectAt(obj['metadata']);
  const problems = new Problems(`${kind}/${String(metadata['name'])}`);
  checkMetadata(problems, metadata, NAME_RULES[kind] ?? 'subdomain');
  const spec = objectAt(obj['spec']);
  switch (kind) {
    case 'Deployment':
    case 'StatefulSet':
      checkWorkload(problems, spec);
      break;
    case 'Pod':
      checkPodSpec(problems, '/spec', spec);
      break;
    case 'Service':
      checkService(problems, spec);
      break;
    case 'NetworkPolicy':
      checkNetworkPolicy(problems, spec);
      break;
    case 'PersistentVolumeClaim':
      checkClaim(problems, '', obj);
      break;
    case 'ConfigMap':
      checkConfigMap(problems, obj);
      break;
    case 'RoleBinding':
      checkRoleBinding(problems, obj);
      break;
    case 'Role':
      checkRole(problems, obj);
      break;
  }
  return problems.list;
}
