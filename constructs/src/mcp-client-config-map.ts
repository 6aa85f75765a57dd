import * as plus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { type McpClientConfigFile, mcpClientConfigFiles } from './mcp-client-configs.ts';
import type { AgentPlan } from './plan.ts';

export interface McpClientConfigMapProps {
  /** The agent whose backends receive the configs. */
  readonly plan: AgentPlan;
}

/** One ConfigMap holding every backend's MCP client config, keyed `<backend>.<file>`. */
export class McpClientConfigMap extends Construct {
  readonly files: readonly McpClientConfigFile[];
  readonly configMap: plus.ConfigMap;

  constructor(scope: Construct, id: string, props: McpClientConfigMapProps) {
    super(scope, id);
    const { plan } = props;
    this.files = mcpClientConfigFiles(plan);
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

  fileFor(backend: string): McpClientConfigFile {
    const file = this.files.find((f) => f.backend === backend);
    if (!file) throw new Error(`internal error: no MCP client config for backend "${backend}"`);
    return file;
  }
}
