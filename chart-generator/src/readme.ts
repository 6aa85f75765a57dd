/** The chart's README.md, with a values table generated from the values tree (= the schema). Pure. */
import type { AgentPlan } from '../../constructs/src/plan.ts';
import { egressCallers } from './broker-config-template.ts';
import { createSecretArgs, describeUse, generatedTokenKeys, type SecretSummary } from './secret-refs.ts';
import { markdownValuesTable, type ValueNode } from './values-model.ts';

export interface ReadmeInput {
  readonly name: string;
  readonly version: string;
  readonly appVersion: string;
  readonly description: string;
  readonly namespace: string;
  readonly nodes: readonly ValueNode[];
  readonly plan: AgentPlan;
  readonly secrets: readonly SecretSummary[];
}

function secretsSection(r: ReadmeInput): string {
  if (r.secrets.length === 0) return 'The pods read no Secrets.\n';
  const cell = (text: string): string => text.replaceAll('|', '\\|');
  const rows = r.secrets.map(
    (s) =>
      `| \`${s.name}\` | ${s.keys.length > 0 ? s.keys.map((k) => `\`${k}\``).join(', ') : '(every key, envFrom)'} | ${s.uses.map((u) => cell(describeUse(u))).join('<br>')} | \`secretNames.${s.name}\` |`,
  );
  const generated = generatedTokenKeys(r.plan);
  const commands = r.secrets.map(
    (s) =>
      `kubectl --namespace ${r.namespace} create secret generic ${s.name} ${createSecretArgs(s, generated)}`,
  );
  return `Secrets are referenced, never created. Create these before installing (pods wait until they exist), or
point \`secretNames\` at Secrets of other names — e.g. ones External Secrets or a Vault operator creates:

| Secret | Keys | Read as | Value |
| --- | --- | --- | --- |
${rows.join('\n')}

\`\`\`console
${commands.join('\n')}
\`\`\`

Tokens toolyard's own components share are made there, one random value each (\`openssl rand -hex 32\`):
every broker caller gets a token of its own — the broker tells callers apart by it, so a container's egress
and routes are its own only while no other container holds its token — and a toolchain's bearer token is
one value its backends and its server both read. Any other key comes from the environment variable the
container sees it as, or from a file, so no secret lands in your shell history.
`;
}

function storageLine(plan: AgentPlan): string {
  const volume = plan.workspace.volume;
  if (volume.kind === 'claimTemplate') {
    return '- **Storage**: `agent.persistence.storageClass` and `size` set the workspace claim (`"-"`: no dynamic provisioning); `existingClaim` mounts an existing claim instead (set it at install).';
  }
  if (volume.kind === 'sharedClaim') {
    return '- **Storage**: the agent pod and the toolchain pods share one ReadWriteMany claim; `agent.persistence.storageClass` (a class that provides ReadWriteMany) and `size` set it, `existingClaim` mounts an existing ReadWriteMany claim in every pod instead.';
  }
  if (volume.kind === 'existingClaim')
    return `- **Storage**: \`agent.persistence.existingClaim\` names the workspace claim${
      plan.toolchains.some((t) => t.pod)
        ? ', which the agent pod and the toolchain pods share (it must be ReadWriteMany)'
        : ''
    }.`;
  return '- **Storage**: the workspace is an emptyDir; `agent.persistence.existingClaim` mounts an existing claim instead.';
}

function egressLine(plan: AgentPlan): string {
  const callers = egressCallers(plan);
  if (callers.length === 0) return '';
  return `- **Egress allowlists**: ${callers.map((c) => `\`broker.egress.${c.key}\``).join(', ')} hold the hosts and ecosystems each container may reach through the broker (lists replace the defaults: give every host). The broker's config.json follows, and its pod rolls.
`;
}

function sandboxesLine(plan: AgentPlan): string {
  const sandboxes = plan.sandboxes;
  if (!sandboxes) return '';
  const pool = sandboxes.provider === 'agent-sandbox' ? 'warm pool size (`warmPool.replicas`), ' : '';
  return `- **Sandboxes**: \`sandboxes.templates.<name>\` hold each template's ${pool}idle timeout (\`idleTimeoutMinutes\`) and retention (\`retentionHours\`), \`sandboxes.quota\` the agent's quota (sandboxes running and kept, total CPU and memory as quantities). The sandbox manager's config.json is built from them with the release's names, and its pod rolls; the chart refuses a quota the spec would refuse. The SandboxTemplates${sandboxes.provider === 'agent-sandbox' ? " and SandboxWarmPools need agent-sandbox's CRDs (`v1beta1`) and controller in the cluster" : ' are not used: the manager creates pods and claims itself (provider `kubernetes`)'}.
`;
}

export function chartReadme(r: ReadmeInput): string {
  return `# ${r.name}

![Version: ${r.version}](https://img.shields.io/badge/Version-${r.version.replaceAll('-', '--')}-informational?style=flat-square)
![Type: application](https://img.shields.io/badge/Type-application-informational?style=flat-square)
![AppVersion: ${r.appVersion}](https://img.shields.io/badge/AppVersion-${r.appVersion.replaceAll('-', '--')}-informational?style=flat-square)

${r.description}

Generated by \`toolyard chart\` from the Agent spec \`${r.name}\`; regenerate it rather than editing it. With the
default values, release name \`${r.name}\` and namespace \`${r.namespace}\`, it renders exactly the objects of
\`toolyard synth\` (apart from Helm's own labels: \`helm.sh/chart\`, \`app.kubernetes.io/version\`,
\`app.kubernetes.io/managed-by: Helm\`; and the test hooks).

## Install

\`\`\`console
helm install ${r.name} ./${r.name} --namespace ${r.namespace} --create-namespace
helm test ${r.name} --namespace ${r.namespace}
\`\`\`

Every object name starts with the release's full name (\`<release>-${r.name}\`, or just the release name when it
contains \`${r.name}\`), shortened with a hash where Kubernetes' length limits require it; references between
objects (Service selectors, RoleBindings, ConfigMap mounts, gateway URLs inside the MCP client configs) follow
it. Objects are created in the release namespace; gateway Roles for other namespaces named in the spec stay in
those namespaces (and are left out when the release namespace is one of them).

## Secrets

${secretsSection(r)}
## Installing elsewhere

${storageLine(r.plan)}
${egressLine(r.plan)}${sandboxesLine(r.plan)}- **OpenShift**: \`global.compatibility.openshift.adaptSecurityContext\` (\`auto\` by default) leaves
  \`runAsUser\`, \`runAsGroup\` and \`fsGroup\` out of every security context on clusters serving
  \`security.openshift.io/v1\`, so the restricted SCC assigns them.
- **Security contexts**: \`*.podSecurityContext\` and \`*.securityContext\` are merged over the restricted
  defaults; \`null\` removes a field. The schema refuses \`privileged: true\`, \`allowPrivilegeEscalation: true\`
  and anything else Pod Security "restricted" forbids.
- **Existing ServiceAccounts** (IRSA, Workload Identity): \`serviceAccount.create: false\` and
  \`serviceAccount.name\`, per component.
- **Extension points**: \`extraVolumes\`, \`extraVolumeMounts\`, \`extraEnvFrom\`, \`extraEnv\` (a variable named
  like a generated one replaces it) and \`extraObjects\` (rendered through \`tpl\`).
- **Subchart use**: \`global\` accepts any key; \`global.imageRegistry\` and \`global.imagePullSecrets\` apply to
  every pod.

## Values

${markdownValuesTable(r.nodes)}
`;
}
