/**
 * The broker's config.json: built here from the plan, parsed by `toolyard-broker` with the contract's schema
 * (toolchain-server/broker/config.ts). Routes carry the file their credential is mounted at, callers the file
 * of their token; the broker pod mounts exactly those files (broker.ts). The text is written as Go writes
 * JSON and hashed with SHA-1, so a chart can build the same file from values with `mustToPrettyJson` and the
 * same `toolyard.dev/config-hash` with `sha1sum` (chart-generator/src/broker-config-template.ts).
 */
import { createHash } from 'node:crypto';
import type { BrokerConfigInput } from '../../toolchain-server/broker/config.ts';
import { assertBrokerContract } from './broker-contract.ts';
import { BROKER_POD_PATHS } from './defaults.ts';
import { goPrettyJson } from './go-json.ts';
import type { AgentPlan, PlannedPricing } from './plan.ts';

/** Where a route's credential is mounted in the broker: `<keysDir>/<route>/key`. */
export function routeKeyFile(route: string): string {
  return `${BROKER_POD_PATHS.keysDir}/${route}/key`;
}

/** Where a caller's token is mounted in the broker: `<callerTokensDir>/<caller>`. */
export function callerTokenFile(caller: string): string {
  return `${BROKER_POD_PATHS.callerTokensDir}/${caller}`;
}

export function brokerConfig(plan: AgentPlan): BrokerConfigInput {
  const broker = plan.broker;
  return {
    agent: plan.name,
    listen: { host: '0.0.0.0', port: broker.port, allowedHosts: [broker.host] },
    health: { host: '0.0.0.0', port: broker.healthPort },
    routes: broker.routes.map((route) => ({
      name: route.name,
      kind: route.kind,
      upstream: route.upstream,
      ...(route.credential
        ? {
            credential: {
              file: routeKeyFile(route.name),
              header: route.credential.header,
              prefix: route.credential.prefix,
            },
          }
        : {}),
      insecureHttp: route.insecureHttp,
      ...pricingOf(plan, route),
    })),
    callers: broker.callers.map((caller) => ({
      name: caller.name,
      tokenFile: callerTokenFile(caller.name),
      routes: [...caller.routes],
      egress: caller.egress.map((e) => ({ host: e.host, ports: [...e.ports] })),
      openPorts: [...caller.openPorts],
    })),
    deniedCidrs: [...broker.deniedCidrs],
    ...(plan.observability.enabled ? { metricsLabels: { agent: plan.name } } : {}),
    ...(plan.observability.route && plan.observability.signals.traces
      ? {
          telemetry: {
            route: plan.observability.route.name,
            sampleRatio: plan.observability.sampleRatio,
            resource: { ...plan.observability.resource, 'k8s.deployment.name': broker.objectName },
          },
        }
      : {}),
  };
}

/** A model route's pricing (`observability.metrics.pricing` of its backend), for the cost estimate. */
function pricingOf(
  plan: AgentPlan,
  route: AgentPlan['broker']['routes'][number],
): { pricing?: PlannedPricing } {
  if (!plan.observability.enabled || route.kind !== 'model') return {};
  const pricing = plan.observability.metrics.pricing[route.owner];
  return pricing ? { pricing: { ...pricing } } : {};
}

/**
 * The config's JSON text, as Go's `json.MarshalIndent(config, "", "  ")` (and so Helm's `mustToPrettyJson`)
 * writes it, without a trailing newline; proven parseable by the broker's schema first.
 */
export function brokerConfigText(plan: AgentPlan): string {
  const config = brokerConfig(plan);
  assertBrokerContract(config);
  return goPrettyJson(config);
}

/**
 * The broker pod's `toolyard.dev/config-hash`: the first 8 hex digits of the SHA-1 of the config text — what a
 * chart computes with `include "<chart>.brokerConfig" $ | sha1sum | trunc 8`. SHA-1, not SHA-256: the browser
 * playground renders the same bytes with its synchronous SHA-1 (site/src/playground/shims/crypto.ts).
 */
export function brokerConfigHash(configText: string): string {
  return createHash('sha1').update(configText).digest('hex').slice(0, 8);
}
