import * as plus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import {
  type BackendClientConfig,
  backendClientConfigs,
  type McpClientConfigFile,
} from './mcp-client-configs.ts';
import type { AgentPlan } from './plan.ts';

export interface McpClientConfigMapProps {
  /** The agent whose backends receive the configs. */
  readonly plan: AgentPlan;
}

/** One ConfigMap holding every backend's MCP client config files, keyed `<backend>.<file>`. */
export class McpClientConfigMap extends Construct {
  readonly configs: readonly BackendClientConfig[];
  readonly files: readonly McpClientConfigFile[];
  readonly configMap: plus.ConfigMap;

  constructor(scope: Construct, id: string, props: McpClientConfigMapProps) {
    super(scope, id);
    const { plan } = props;
    this.configs = backendClientConfigs(plan);
    this.files = this.configs.flatMap((config) => config.files);
    this.configMap = new plus.ConfigMap(this, 'config-map', {
      metadata: {
        name: plan.names.mcpClientConfigMap,
        namespace: plan.namespace,
        labels: plan.names.labels('agent', plan.labels),
        ...(Object.keys(plan.annotations).length > 0 ? { annotations: plan.annotations } : {}),
      },
      data: Object.fromEntries(this.files.map((file) => [file.configMapKey, file.content])),
    });
  }

  configFor(backend: string): BackendClientConfig {
    const config = this.configs.find((c) => c.backend === backend);
    if (!config) throw new Error(`internal error: no MCP client config for backend "${backend}"`);
    return config;
  }
}
