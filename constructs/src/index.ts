/** toolyard's public construct library: use `Agent` inside any cdk8s chart, or `renderAgent` on its own. */
export { Agent, type AgentProps } from './agent.ts';
export { AgentSpecError } from './agent-spec-error.ts';
export { AgentWorkload, type AgentWorkloadProps, CONFIG_HASH_ANNOTATION } from './agent-workload.ts';
export { type AgentCheck, checkAgentDocument } from './check-agent.ts';
export { type CheckResult, checkSpecText } from './check-spec-text.ts';
export {
  type AcknowledgeableWarning,
  agentPodEgress,
  allPodEgress,
  describeDestination,
  describePorts,
  type EgressDestination,
  type EgressGrant,
  type EgressPort,
  egressWarnings,
  gatewayPodEgress,
  type PodEgress,
  type RenderWarning,
} from './effective-egress.ts';
export {
  type ContainerReport,
  type ExplainReport,
  explainAgent,
  formatExplainReport,
  type PodReport,
  type ServiceAccountReport,
} from './explain.ts';
export { KubernetesAccess, type KubernetesAccessProps } from './kubernetes-access.ts';
export { McpClientConfigMap, type McpClientConfigMapProps } from './mcp-client-config-map.ts';
export {
  type BackendClientConfig,
  backendClientConfigs,
  type ClientConfigMount,
  type McpClientConfigFile,
  type McpServerEntry,
  mcpClientConfigFiles,
  mcpServerEntries,
} from './mcp-client-configs.ts';
export { McpGateway, type McpGatewayProps } from './mcp-gateway.ts';
export { AgentNames, LABEL } from './names.ts';
export { AgentNetworkPolicies, type AgentNetworkPoliciesProps } from './network-policies.ts';
export { type AgentPlan, planAgent } from './plan.ts';
export {
  FORBIDDEN_RESOURCES,
  FORBIDDEN_VERBS,
  type PolicyRule,
  RBAC_PRESETS,
  rulesFor,
} from './rbac-presets.ts';
export {
  type KubeObject,
  type RenderResult,
  renderAgent,
  renderAgentYaml,
  toYamlDocuments,
} from './render.ts';
export { PRESET_COMMANDS, type Route, type RouteCandidate, routeCommand } from './routing.ts';
export { checkAgentPlan } from './semantic-checks.ts';
export { toolchainServerConfig, toolchainServerConfigJson } from './toolchain-config.ts';
export { ToolchainSidecar, type ToolchainSidecarProps } from './toolchain-sidecar.ts';
export { type AcknowledgedWarning, type AgentWarnings, agentWarnings } from './warnings.ts';
