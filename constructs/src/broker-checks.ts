/**
 * Semantic checks of the broker's part of a spec: egress by name (known ecosystems, host patterns that name
 * hosts), model keys where the broker needs them and nowhere else, and derived names that must fit.
 */
import { closestMatch } from '../../schema/src/suggest.ts';
import type { SpecProblem } from '../../schema/src/validator.ts';
import { splitHostPort } from './broker-plan.ts';
import { PROVIDER_KEY_ENVS } from './defaults.ts';
import { ECOSYSTEM_NAMES, isEcosystem } from './ecosystems.ts';
import type { AgentPlan, PlannedNamedEgress } from './plan.ts';

const MAX_NAME = 63;
/** A host pattern of `network.egress.hosts` without its port: a lower-case DNS name, or `*.` and one. */
export const EGRESS_HOST_NAME = /^(\*\.)?([a-z0-9]([-a-z0-9]*[a-z0-9])?\.)+[a-z]([-a-z0-9]*[a-z0-9])?$/;
const IPV4 = /^[0-9]+(\.[0-9]+){3}$/;

export function checkBroker(plan: AgentPlan): SpecProblem[] {
  return [
    ...plan.toolchains.flatMap((t, i) =>
      checkEgress(plan, t.namedEgress, `/spec/toolchains/${i}/network/egress`, t.name),
    ),
    ...plan.backends.flatMap((b, i) =>
      checkEgress(plan, b.egress, `/spec/backends/${i}/network/egress`, b.name),
    ),
    ...checkModels(plan),
    ...checkBrokerNames(plan),
  ];
}

/** Why a host pattern is refused, or undefined when it names hosts. */
export function hostPatternProblem(text: string): string | undefined {
  const { host, port } = splitHostPort(text);
  if (port !== undefined && (port < 1 || port > 65535)) return `port ${port} is out of range`;
  const bare = host.replace(/^\[|\]$/g, '');
  if (IPV4.test(bare) || bare.includes(':'))
    return 'is an IP literal: egress is by name only (the broker resolves names and refuses non-public addresses)';
  if (host === '*' || host === '*.*' || /^\*\.[a-z0-9-]+$/.test(host))
    return 'matches every host (or a whole top-level domain): list the hosts you need';
  if (host !== host.toLowerCase()) return `must be lower case: write "${text.toLowerCase()}"`;
  if (host.includes('*') && !host.startsWith('*.'))
    return 'may only start with "*." (all subdomains of one name), e.g. *.example.com';
  if (!EGRESS_HOST_NAME.test(host)) return 'is not a DNS name (lower-case labels separated by dots)';
  return undefined;
}

export function checkEgress(
  plan: AgentPlan,
  egress: PlannedNamedEgress,
  base: string,
  owner: string,
): SpecProblem[] {
  if (egress.kind !== 'named') return [];
  const problems: SpecProblem[] = [];
  if (egress.fromRegistriesAlias) {
    if (plan.broker.enabled && egress.ecosystems.length === 0)
      problems.push({
        path: base,
        message: `"${owner}": egress "registries" stands for the ecosystems of its presets, and it has none`,
        hint: `list what it needs: { hosts: [...], ecosystems: [${ECOSYSTEM_NAMES.slice(0, 4).join(', ')}, …] }, or none`,
      });
    return problems;
  }
  egress.ecosystems.forEach((name, j) => {
    if (isEcosystem(name)) return;
    const guess = closestMatch(name, ECOSYSTEM_NAMES);
    problems.push({
      path: `${base}/ecosystems/${j}`,
      message: `unknown ecosystem "${name}"${guess ? ` (did you mean "${guess}"?)` : ''}`,
      hint: `ecosystems: ${ECOSYSTEM_NAMES.join(', ')}; anything else goes in hosts`,
    });
  });
  egress.declaredHosts.forEach((text, j) => {
    const why = hostPatternProblem(text);
    if (why) {
      problems.push({ path: `${base}/hosts/${j}`, message: `host "${text}" ${why}` });
      return;
    }
    const { port } = splitHostPort(text);
    if (plan.broker.enabled && port !== undefined && !plan.broker.egressPorts.includes(port))
      problems.push({
        path: `${base}/hosts/${j}`,
        message: `host "${text}": the broker may not open port ${port} (spec.broker.egressPorts is [${plan.broker.egressPorts.join(', ')}])`,
        hint: `add ${port} to spec.broker.egressPorts`,
      });
  });
  if (egress.ecosystems.length === 0 && egress.declaredHosts.length === 0)
    problems.push({
      path: base,
      message: `"${owner}" lists no host and no ecosystem`,
      hint: 'write egress: none for no egress, or list hosts or ecosystems',
    });
  return problems;
}

function checkModels(plan: AgentPlan): SpecProblem[] {
  const problems: SpecProblem[] = [];
  plan.backends.forEach((b, i) => {
    const base = `/spec/backends/${i}`;
    if (!plan.broker.enabled) return;
    b.secretEnv.forEach((s, j) => {
      if (!(PROVIDER_KEY_ENVS as readonly string[]).includes(s.env)) return;
      problems.push({
        path: `${base}/secretEnv/${j}/name`,
        message: `backend "${b.name}": ${s.env} holds a provider key, and with the broker on only the broker holds provider keys`,
        hint: `move it to backends[${i}].model.apiKeySecret: { name: ${s.secretName}, key: ${s.key} } (the backend then gets a broker token in ${s.env}'s place)`,
      });
    });
    for (const name of Object.keys(b.env))
      if ((PROVIDER_KEY_ENVS as readonly string[]).includes(name))
        problems.push({
          path: `${base}/env/${name}`,
          message: `backend "${b.name}": ${name} is a provider credential and may not be set in env`,
          hint: `put the key in a Secret and reference it as backends[${i}].model.apiKeySecret`,
        });
    if (!b.model) {
      if (b.type !== 'custom')
        problems.push({
          path: `${base}/model`,
          message: `backend "${b.name}" has no model key: with the broker on, the broker calls the provider with the key from model.apiKeySecret`,
          hint: 'add model: { apiKeySecret: { name: <secret>, key: <key> } }, or set spec.broker.enabled: false to keep keys in backends',
        });
      return;
    }
    const route = b.model.route;
    if (b.type === 'custom' && route && !route.upstream)
      problems.push({
        path: `${base}/model/upstream`,
        message: `backend "${b.name}" is custom: its model route needs an upstream (https://…)`,
      });
    if (b.type === 'custom' && route && !route.credential?.header)
      problems.push({
        path: `${base}/model/credentialHeader`,
        message: `backend "${b.name}" is custom: say which header carries its key`,
        hint: 'e.g. credentialHeader: { name: authorization, prefix: "Bearer " }',
      });
    if (route?.upstream && URL.canParse(route.upstream)) {
      const url = new URL(route.upstream);
      const port = url.port ? Number(url.port) : 443;
      if (!plan.broker.egressPorts.includes(port))
        problems.push({
          path: `${base}/model/upstream`,
          message: `backend "${b.name}": the broker may not open port ${port} (spec.broker.egressPorts is [${plan.broker.egressPorts.join(', ')}])`,
          hint: `add ${port} to spec.broker.egressPorts`,
        });
    }
  });
  return problems;
}

function checkBrokerNames(plan: AgentPlan): SpecProblem[] {
  if (!plan.broker.enabled) return [];
  const problems: SpecProblem[] = [];
  const tooLong = (name: string, path: string, what: string) => {
    if (name.length > MAX_NAME)
      problems.push({
        path,
        message: `${what} "${name}" would be ${name.length} characters, more than Kubernetes allows (${MAX_NAME})`,
        hint: 'shorten this name or the agent name',
      });
  };
  tooLong(plan.broker.objectName, '/metadata/name', 'object name');
  plan.gateways.forEach((g, i) => {
    if (g.kind === 'deployed' && g.objectName === plan.broker.objectName)
      problems.push({
        path: `/spec/gateways/${i}/name`,
        message: `gateway "${g.name}" would be named "${g.objectName}", which is the broker's name`,
        hint: 'rename the gateway',
      });
  });
  plan.backends.forEach((b, i) => {
    if (b.model?.route) tooLong(`key-${b.model.route.name}`, `/spec/backends/${i}/name`, 'volume name');
  });
  plan.gateways.forEach((g, i) => {
    if (g.route?.credential) tooLong(`key-${g.route.name}`, `/spec/gateways/${i}/name`, 'volume name');
  });
  plan.toolchains.forEach((t, i) => {
    if (t.namedEgress.kind !== 'none')
      tooLong(`${t.containerName}-broker`, `/spec/toolchains/${i}/name`, 'volume name');
  });
  return problems;
}
