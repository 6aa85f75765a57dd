/** Object names and labels: stable, readable, `<agent>-<component>`, never hashed. */
export const PART_OF = 'toolyard';
export const MANAGED_BY = 'toolyard';

export const LABEL = {
  name: 'app.kubernetes.io/name',
  instance: 'app.kubernetes.io/instance',
  component: 'app.kubernetes.io/component',
  partOf: 'app.kubernetes.io/part-of',
  managedBy: 'app.kubernetes.io/managed-by',
  agent: 'toolyard.dev/agent',
} as const;

export type Labels = Readonly<Record<string, string>>;

/** Naming of everything generated for one agent. */
export class AgentNames {
  readonly agent: string;
  readonly namespace: string;

  constructor(agent: string, namespace: string) {
    this.agent = agent;
    this.namespace = namespace;
  }

  get workload(): string {
    return this.agent;
  }
  get serviceAccount(): string {
    return this.agent;
  }
  get service(): string {
    return this.agent;
  }
  get mcpClientConfigMap(): string {
    return `${this.agent}-mcp-clients`;
  }
  toolchainConfigMap(toolchain: string): string {
    return `${this.agent}-toolchain-${toolchain}`;
  }
  gateway(gateway: string): string {
    return `${this.agent}-${gateway}`;
  }
  /** Cluster-DNS host of a deployed gateway's Service; `svc` resolves through the pod's search path. */
  gatewayHost(gateway: string): string {
    return `${this.gateway(gateway)}.${this.namespace}.svc`;
  }
  /** Deployment, Service, ServiceAccount and NetworkPolicy of a toolchain with `placement: pod`. */
  toolchainPod(toolchain: string): string {
    return `${this.agent}-toolchain-${toolchain}`;
  }
  toolchainHost(toolchain: string): string {
    return `${this.toolchainPod(toolchain)}.${this.namespace}.svc`;
  }
  /** The PersistentVolumeClaim of a cache declared with a new claim (`storage`). */
  cacheClaim(cache: string): string {
    return `${this.agent}-cache-${cache}`;
  }
  /** The PersistentVolumeClaim that the agent and its toolchain pods share (a new claim with `placement: pod`). */
  get workspaceClaim(): string {
    return `${this.agent}-workspace`;
  }

  /** Deployment, Service, ServiceAccount, ConfigMap and NetworkPolicy of the broker. */
  get broker(): string {
    return `${this.agent}-broker`;
  }
  /** Cluster-DNS host of the broker's Service. */
  get brokerHost(): string {
    return `${this.broker}.${this.namespace}.svc`;
  }
  brokerSelector(): Labels {
    return this.selector(BROKER_COMPONENT);
  }

  /** Deployment, Service, ServiceAccount, Role, ConfigMap and NetworkPolicy of the sandbox manager. */
  get sandboxManager(): string {
    return `${this.agent}-sandboxes`;
  }
  /** The ServiceAccount of every sandbox pod (no token, no Role). */
  get sandboxPods(): string {
    return `${this.agent}-sandbox`;
  }
  /** SandboxTemplate, SandboxWarmPool, server ConfigMap and NetworkPolicy of a sandbox template. */
  sandboxTemplate(template: string): string {
    return `${this.agent}-sandbox-${template}`;
  }

  /** Labels that select the agent pod. */
  agentSelector(): Labels {
    return this.selector('agent');
  }
  gatewaySelector(gateway: string): Labels {
    return this.selector(`gateway-${gateway}`);
  }
  toolchainSelector(toolchain: string): Labels {
    return this.selector(toolchainComponent(toolchain));
  }

  selector(component: string): Labels {
    return { [LABEL.name]: this.agent, [LABEL.instance]: this.agent, [LABEL.component]: component };
  }

  /** Recommended labels of every object of a component, user labels first so toolyard's win. */
  labels(component: string, extra: Labels = {}): Labels {
    return {
      ...extra,
      ...this.selector(component),
      [LABEL.partOf]: PART_OF,
      [LABEL.managedBy]: MANAGED_BY,
      [LABEL.agent]: this.agent,
    };
  }
}

/** The component label of the broker's objects. */
export const BROKER_COMPONENT = 'broker';

/** The broker route of a backend's model: `model-<backend>`. */
export function brokerRouteForModel(backend: string): string {
  return `model-${backend}`;
}

/** The broker route of a gateway: `gateway-<gateway>`. */
export function brokerRouteForGateway(gateway: string): string {
  return `gateway-${gateway}`;
}

/** The component label of a toolchain's own pod and objects (`placement: pod`). */
export function toolchainComponent(toolchain: string): string {
  return `toolchain-${toolchain}`;
}

export function toolchainContainerName(toolchain: string): string {
  return `toolchain-${toolchain}`;
}

/** The MCP server name of a toolchain in backends' client configs. */
export function toolchainServerName(toolchain: string): string {
  return `toolchain-${toolchain}`;
}

/** `TOOLYARD_TOOLCHAIN_<NAME>_TOKEN`: how backends receive a toolchain server's bearer token. */
export function toolchainTokenEnv(toolchain: string): string {
  return `TOOLYARD_TOOLCHAIN_${toolchain.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_TOKEN`;
}

/** `TOOLYARD_GATEWAY_<NAME>_TOKEN`: how backends receive a gateway's bearer token. */
export function gatewayTokenEnv(gateway: string): string {
  return `TOOLYARD_GATEWAY_${gateway.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_TOKEN`;
}
