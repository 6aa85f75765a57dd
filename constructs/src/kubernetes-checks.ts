/**
 * Checks of values the schema can only shape, against the rules of what receives them: CIDRs parsed (host
 * bits, IPv6) as a NetworkPolicy and the broker read them; the annotations' total size; requests within limits
 * and claims of a positive size; ports toolyard derives from declared ones; names toolyard derives as label
 * values; URLs the broker forwards to. What passes here, Kubernetes and toolyard's own components accept.
 */
import { cidrProblem } from '../../schema/src/cidr.ts';
import {
  compareQuantities,
  labelKeyProblem,
  MAX_DNS_LABEL,
  quantityValue,
} from '../../schema/src/kubernetes-names.ts';
import type { Resources } from '../../schema/src/types.generated.ts';
import type { SpecProblem } from '../../schema/src/validator.ts';
import { joinPointer } from '../../schema/src/validator.ts';
import { HEALTH_PORT_OFFSET, PATHS } from './defaults.ts';
import type { AgentPlan, EgressRule, NewClaimSettings } from './plan.ts';

/** Kubernetes' limit on an object's annotations together (keys and values). */
const TOTAL_ANNOTATION_BYTES = 256 * 1024;
/** Room kept for the annotations toolyard adds itself (config hashes, chart metadata). */
const TOOLYARD_ANNOTATION_BYTES = 4 * 1024;
const MAX_PORT = 65535;

export function checkKubernetesValues(plan: AgentPlan): SpecProblem[] {
  return [
    ...checkCidrs(plan),
    ...checkMapKeys(plan),
    ...checkAnnotationSize(plan),
    ...checkResources(plan),
    ...checkClaimSizes(plan),
    ...checkDerivedPorts(plan),
    ...checkDerivedLabels(plan),
    ...checkUpstreams(plan),
    ...checkCacheRoot(plan),
  ];
}

function egressRuleCidrs(rule: EgressRule, path: string): SpecProblem[] {
  return rule.cidrs.flatMap((cidr, i) => {
    const problem = cidrProblem(cidr);
    return problem ? [{ path: `${path}/cidrs/${i}`, ...problem }] : [];
  });
}

/** Every CIDR of the spec, as its NetworkPolicy (or, for `deniedCidrs`, the broker and a NetworkPolicy) reads it. */
function checkCidrs(plan: AgentPlan): SpecProblem[] {
  const network = plan.network;
  const problems = [
    ...egressRuleCidrs(network.modelEgress, '/spec/networkPolicy/modelEgress'),
    ...egressRuleCidrs(network.registryEgress, '/spec/networkPolicy/registryEgress'),
    ...(network.apiServerEgress
      ? egressRuleCidrs(network.apiServerEgress, '/spec/networkPolicy/apiServerEgress')
      : []),
  ];
  plan.gateways.forEach((gateway, i) => {
    if (gateway.egress) problems.push(...egressRuleCidrs(gateway.egress, `/spec/gateways/${i}/egress`));
  });
  plan.broker.deniedCidrs.forEach((cidr, i) => {
    const problem = cidrProblem(cidr, { allowIpv4Mapped: true });
    if (problem) problems.push({ path: `/spec/broker/deniedCidrs/${i}`, ...problem });
  });
  return problems;
}

/**
 * Label and annotation keys whose DNS-subdomain prefix is longer than 253 characters: the one part of the rule a
 * portable schema pattern (no lookahead: Helm and other Go validators read it too) cannot say.
 */
function checkMapKeys(plan: AgentPlan): SpecProblem[] {
  const maps: [Readonly<Record<string, string>>, string][] = [
    [plan.labels, '/metadata/labels'],
    [plan.annotations, '/metadata/annotations'],
    [plan.serviceAccountAnnotations, '/spec/serviceAccount/annotations'],
    [plan.network.dns.podLabels, '/spec/networkPolicy/dns/podLabels'],
    ...plan.network.agentIngressFrom.map(
      (peer, i) =>
        [peer.podLabels, `/spec/networkPolicy/agentIngressFrom/${i}/podLabels`] as [
          Record<string, string>,
          string,
        ],
    ),
    ...plan.gateways.flatMap((g, i) =>
      g.kind === 'deployed'
        ? [
            [g.serviceAccountAnnotations, `/spec/gateways/${i}/serviceAccountAnnotations`] as [
              Record<string, string>,
              string,
            ],
          ]
        : [],
    ),
  ];
  const observability = plan.observability;
  maps.push(
    ...observability.metrics.scrapeFrom.map(
      (peer, i) =>
        [peer.podLabels, `/spec/observability/metrics/scrapeFrom/${i}/podLabels`] as [
          Record<string, string>,
          string,
        ],
    ),
  );
  if (observability.collector)
    maps.push([observability.collector.podLabels, '/spec/observability/endpoint/collectorPodLabels']);
  const keyProblem = (key: string, path: string): SpecProblem[] => {
    const why = labelKeyProblem(key);
    return why ? [{ path, message: `"${key}" is not a label or annotation key: it ${why}` }] : [];
  };
  return [
    ...maps.flatMap(([map, path]) =>
      Object.keys(map).flatMap((key) => keyProblem(key, joinPointer(path, key))),
    ),
    // teamLabels name label keys.
    ...observability.teamLabels.flatMap((key, i) => keyProblem(key, `/spec/observability/teamLabels/${i}`)),
  ];
}

function annotationBytes(annotations: Readonly<Record<string, string>>): number {
  const encoder = new TextEncoder();
  return Object.entries(annotations).reduce(
    (sum, [key, value]) => sum + encoder.encode(key).length + encoder.encode(value).length,
    0,
  );
}

/** The spec's annotations go on every object (and the ServiceAccounts' on theirs): 256 KiB in all, with toolyard's. */
function checkAnnotationSize(plan: AgentPlan): SpecProblem[] {
  const limit = TOTAL_ANNOTATION_BYTES - TOOLYARD_ANNOTATION_BYTES;
  const problems: SpecProblem[] = [];
  const check = (annotations: Readonly<Record<string, string>>, path: string, extra: string) => {
    const bytes = annotationBytes(annotations);
    if (bytes > limit)
      problems.push({
        path,
        message: `the annotations${extra} come to ${bytes} bytes; Kubernetes allows ${TOTAL_ANNOTATION_BYTES} on an object, and toolyard keeps ${TOOLYARD_ANNOTATION_BYTES} of them for its own`,
        hint: `keep them under ${limit} bytes: store large data in a ConfigMap and annotate a reference to it`,
      });
  };
  check(plan.annotations, '/metadata/annotations', '');
  check(
    { ...plan.annotations, ...plan.serviceAccountAnnotations },
    '/spec/serviceAccount/annotations',
    ' of the agent ServiceAccount (metadata.annotations and these)',
  );
  plan.gateways.forEach((gateway, i) => {
    if (gateway.kind === 'deployed')
      check(
        { ...plan.annotations, ...gateway.serviceAccountAnnotations },
        `/spec/gateways/${i}/serviceAccountAnnotations`,
        ` of gateway "${gateway.name}"'s ServiceAccount (metadata.annotations and these)`,
      );
  });
  return problems;
}

/** A request above its limit is refused by the API server; say which. */
function requestsWithinLimits(resources: Resources, path: string): SpecProblem[] {
  const requests = (resources.requests ?? {}) as Readonly<Record<string, string | undefined>>;
  const limits = (resources.limits ?? {}) as Readonly<Record<string, string | undefined>>;
  const problems: SpecProblem[] = [];
  for (const [name, request] of Object.entries(requests)) {
    const limit = limits[name];
    if (request === undefined || limit === undefined) continue;
    if (!quantityValue(request) || !quantityValue(limit)) continue;
    if (compareQuantities(request, limit) > 0)
      problems.push({
        path: `${path}/requests/${name}`,
        message: `requests ${request} of ${name}, more than its limit ${limit}`,
        hint: `Kubernetes refuses a request above its limit: raise limits.${name} or lower requests.${name}`,
      });
  }
  return problems;
}

function checkResources(plan: AgentPlan): SpecProblem[] {
  return [
    ...plan.backends.flatMap((b, i) => requestsWithinLimits(b.resources, `/spec/backends/${i}/resources`)),
    ...plan.toolchains.flatMap((t, i) =>
      requestsWithinLimits(t.resources, `/spec/toolchains/${i}/resources`),
    ),
    ...plan.gateways.flatMap((g, i) =>
      g.kind === 'deployed' ? requestsWithinLimits(g.resources, `/spec/gateways/${i}/resources`) : [],
    ),
    ...(plan.broker.enabled ? requestsWithinLimits(plan.broker.resources, '/spec/broker/resources') : []),
  ];
}

function positiveStorage(settings: NewClaimSettings, path: string): SpecProblem[] {
  const value = quantityValue(settings.storage);
  if (!value || value.numerator > 0n) return [];
  return [
    {
      path,
      message: `a claim of ${settings.storage} bytes: Kubernetes requires a claim's storage to be more than zero`,
      hint: 'request the size the claim needs, e.g. 10Gi',
    },
  ];
}

function checkClaimSizes(plan: AgentPlan): SpecProblem[] {
  const volume = plan.workspace.volume;
  const problems =
    volume.kind === 'claimTemplate' || volume.kind === 'sharedClaim'
      ? positiveStorage(volume, '/spec/workspace/volume/persistentVolumeClaim/storage')
      : [];
  for (const cache of plan.caches)
    if (cache.volume.kind === 'newClaim')
      problems.push(
        ...positiveStorage(cache.volume, `${cache.specPath}/volume/persistentVolumeClaim/storage`),
      );
  return problems;
}

/** A toolchain's health port defaults to its port + 1000, which must still be a port. */
function checkDerivedPorts(plan: AgentPlan): SpecProblem[] {
  const problems: SpecProblem[] = [];
  plan.toolchains.forEach((t, i) => {
    if (t.healthPort <= MAX_PORT) return;
    problems.push({
      path: `/spec/toolchains/${i}/port`,
      message: `toolchain "${t.name}" listens on ${t.port}, so its health port would be ${t.healthPort} (port + ${HEALTH_PORT_OFFSET}), beyond ${MAX_PORT}`,
      hint: `use a port up to ${MAX_PORT - HEALTH_PORT_OFFSET}, or set healthPort`,
    });
  });
  return problems;
}

/** Names toolyard writes into label values (`app.kubernetes.io/component`), which may be at most 63 characters. */
function checkDerivedLabels(plan: AgentPlan): SpecProblem[] {
  const problems: SpecProblem[] = [];
  plan.gateways.forEach((g, i) => {
    if (g.kind !== 'deployed') return;
    const component = g.selector['app.kubernetes.io/component'] ?? '';
    if (component.length > MAX_DNS_LABEL)
      problems.push({
        path: `/spec/gateways/${i}/name`,
        message: `gateway "${g.name}" would label its pods "${component}", ${component.length} characters; Kubernetes allows ${MAX_DNS_LABEL} in a label value`,
        hint: `shorten the gateway name to at most ${MAX_DNS_LABEL - (component.length - g.name.length)} characters`,
      });
  });
  return problems;
}

/** Why an upstream URL (a model's, an external gateway's) cannot be forwarded to, or undefined. */
function upstreamProblem(text: string): string | undefined {
  if (!URL.canParse(text)) return 'is not a URL';
  const url = new URL(text);
  if (url.port !== '' && Number(url.port) > MAX_PORT) return `has port ${url.port}, beyond ${MAX_PORT}`;
  const host = url.hostname;
  if (host === '' || host.split('.').some((label) => label === ''))
    return 'has no host name, or an empty part in it';
  return undefined;
}

function checkUpstreams(plan: AgentPlan): SpecProblem[] {
  const problems: SpecProblem[] = [];
  plan.backends.forEach((b, i) => {
    const upstream = b.model?.route?.upstream;
    // A custom route without an upstream is reported by the broker checks.
    const why = upstream === undefined || upstream === '' ? undefined : upstreamProblem(upstream);
    if (why) problems.push({ path: `/spec/backends/${i}/model/upstream`, message: `"${upstream}" ${why}` });
  });
  plan.gateways.forEach((g, i) => {
    if (g.kind !== 'external') return;
    // A URL that does not parse at all is reported by the gateway URL check.
    const why = URL.canParse(g.upstreamUrl) ? upstreamProblem(g.upstreamUrl) : undefined;
    if (why) problems.push({ path: `/spec/gateways/${i}/url`, message: `"${g.upstreamUrl}" ${why}` });
  });
  return problems;
}

/** The workspace and the caches are apart (each toolchain's server refuses a cache that overlaps its workspace). */
function checkCacheRoot(plan: AgentPlan): SpecProblem[] {
  const normalize = (path: string) => path.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
  const mountPath = normalize(plan.workspace.mountPath);
  const overlaps = (a: string, b: string) =>
    a === '/' || b === '/' || a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
  const cache = plan.caches.find((c) => overlaps(mountPath, normalize(c.path)));
  if (!cache) return [];
  return [
    {
      path: '/spec/workspace/mountPath',
      message: `"${plan.workspace.mountPath}" overlaps ${cache.path}, where cache "${cache.name}" is mounted`,
      hint: `mount the workspace elsewhere, e.g. /workspace: a cache inside the workspace is writable by any code that can write the workspace, and ${PATHS.caches} is the caches' own`,
    },
  ];
}
