/**
 * The plan's types: the spec with every default applied and every derived name computed once (built by plan.ts
 * and broker-plan.ts, read by everything downstream). Types only, so the modules that build the plan can share
 * them without importing each other.
 */
import type { Backend, Resources, Sandboxes } from '../../schema/src/types.generated.ts';
import type {
  CacheAccess,
  CacheKind,
  EgressPhase,
  ToolMode,
  ToolPreset,
} from '../../toolchain-server/src/config.ts';
import type { AcknowledgeableWarning } from './acknowledgeable-warnings.ts';
import type * as D from './defaults.ts';
import type { AgentNames, Labels } from './names.ts';

export type BackendType = Backend['type'];
export type RbacPresetName = 'read-only' | 'namespace-write';
export type EgressNeed = 'none' | 'registries' | 'open';
/** `sidecar`: a container of the agent pod. `pod`: its own Deployment, Service and NetworkPolicy. */
export type ToolchainPlacement = 'sidecar' | 'pod';

/** Destinations by CIDR and TCP port. */
export interface EgressRule {
  readonly cidrs: readonly string[];
  readonly ports: readonly number[];
}

export interface PlannedImage {
  readonly reference: string;
  readonly pullPolicy: 'IfNotPresent' | 'Always' | 'Never';
}

export interface SecretRef {
  readonly env: string;
  readonly secretName: string;
  readonly key: string;
}

export interface PlannedBackend {
  readonly name: string;
  readonly type: BackendType;
  readonly image: PlannedImage;
  readonly port: number;
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly secretEnv: readonly SecretRef[];
  readonly resources: Resources;
  readonly healthPath?: string;
  /** Where a `custom` backend gets its configs; other types read fixed system locations (set only if the spec did). */
  readonly mcpConfigPath?: string;
  /** The spec's extra client settings, merged into the generated config. */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** Its model route at the broker (broker on), or its provider key as env (broker off); absent: no `model`. */
  readonly model?: PlannedModel;
  /** What it may reach by name through the broker, besides its routes. */
  readonly egress: PlannedNamedEgress;
  /** Where its CLI exports OTLP (`spec.observability`): the broker's otlp route. */
  readonly telemetry?: PlannedBackendTelemetry;
}

/** A backend CLI's own OpenTelemetry export, toward the broker's otlp route. */
export interface PlannedBackendTelemetry {
  /** OTLP/HTTP base URL (`http://<broker>:<port>/otlp`); signals go to `/v1/traces`, `/v1/metrics`, `/v1/logs`. */
  readonly endpoint: string;
  readonly protocol: 'http/protobuf' | 'http/json';
  readonly signals: { readonly traces: boolean; readonly metrics: boolean; readonly logs: boolean };
  readonly sampleRatio: number;
  /** Resource attributes, the backend's container name included. */
  readonly resource: Readonly<Record<string, string>>;
}

/** A backend's model access. */
export interface PlannedModel {
  /** The variable its CLI reads the API key from (absent for `custom`). */
  readonly keyEnv?: string;
  readonly apiKeySecret: { readonly name: string; readonly key: string };
  /** Its broker route, with the broker on. */
  readonly route?: PlannedRoute;
}

/** Egress by name of one container, resolved: hosts from `hosts` and from the ecosystems' table. */
export interface PlannedNamedEgress {
  /** `none`, `open`, or `named` (`{ hosts, ecosystems }` or the `registries` alias). */
  readonly kind: 'none' | 'open' | 'named';
  /** The spec used the deprecated `registries` alias (toolchains only). */
  readonly fromRegistriesAlias: boolean;
  /** Ecosystems as declared (or implied by the alias), in spec order. */
  readonly ecosystems: readonly string[];
  /** Host patterns as declared in `hosts` (with their optional `:port`). */
  readonly declaredHosts: readonly string[];
  /** Every host the container may reach, sorted, with its ports (unknown ecosystems contribute nothing). */
  readonly entries: readonly EgressHost[];
}

export interface EgressHost {
  readonly host: string;
  readonly ports: readonly number[];
}

/** A broker route: `http://<broker>:<port>/<name>/…` forwarded to one upstream with the route's credential. */
export interface PlannedRoute {
  readonly name: string;
  /** `telemetry`: the `otlp` route every emitter exports through (`spec.observability`). */
  readonly kind: 'model' | 'gateway' | 'telemetry';
  /** The backend or gateway it serves. */
  readonly owner: string;
  readonly upstream: string;
  /** The URL callers use: the broker Service and the route. */
  readonly url: string;
  readonly credential?: {
    readonly secret: { readonly name: string; readonly key: string };
    readonly header: string;
    readonly prefix: string;
  };
  readonly insecureHttp: boolean;
  /** A deployed gateway's pods and port (or an in-cluster collector's), which the broker's NetworkPolicy lets it reach. */
  readonly inCluster?: { readonly podLabels: Labels; readonly port: number; readonly namespace?: string };
}

/** One container that authenticates to the broker with its own token (a key of the tokens Secret). */
export interface PlannedCaller {
  readonly name: string;
  /** `sandbox-manager`: the sandbox manager, a caller of the `otlp` route alone (spec.observability). */
  readonly role: 'backend' | 'toolchain' | 'sandbox-manager';
  /** The pod it runs in. */
  readonly pod: string;
  readonly routes: readonly string[];
  readonly egress: readonly EgressHost[];
  /** `open`: any public host on these ports. */
  readonly openPorts: readonly number[];
}

export interface PlannedBroker {
  readonly enabled: boolean;
  /** Deployment, Service, ServiceAccount, ConfigMap and NetworkPolicy: `<agent>-broker`. */
  readonly objectName: string;
  readonly component: string;
  readonly selector: Labels;
  /** Cluster-DNS host of its Service. */
  readonly host: string;
  /** `http://<host>:<port>`: routes below it, and the CONNECT proxy. */
  readonly url: string;
  readonly image: PlannedImage;
  readonly port: number;
  readonly healthPort: number;
  readonly tokensSecret: string;
  readonly egressPorts: readonly number[];
  readonly deniedCidrs: readonly string[];
  readonly replicas: number;
  readonly resources: Resources;
  /** Model routes (backend order), then gateway routes (gateway order); empty with the broker off. */
  readonly routes: readonly PlannedRoute[];
  /** Backends, then toolchains with egress; empty with the broker off. */
  readonly callers: readonly PlannedCaller[];
}

export interface PlannedToolchain {
  readonly name: string;
  readonly containerName: string;
  readonly serverName: string;
  readonly placement: ToolchainPlacement;
  /** The MCP endpoint backends call: 127.0.0.1 in the agent pod, or the toolchain pod's Service. */
  readonly url: string;
  /** Its own pod's objects and selector, with `placement: pod`. */
  readonly pod?: PlannedToolchainPod;
  /** The spec waived the bearer token of a toolchain pod (`insecureAllowUnauthenticated`). */
  readonly allowUnauthenticated: boolean;
  readonly image: PlannedImage;
  readonly port: number;
  readonly healthPort: number;
  readonly injectServer: boolean;
  readonly mode: ToolMode;
  readonly presets: readonly ToolPreset[];
  readonly allowedCommands: readonly string[];
  readonly handles: { readonly commands: readonly string[]; readonly files: readonly string[] };
  readonly limits: typeof D.DEFAULT_LIMITS | Readonly<Record<keyof typeof D.DEFAULT_LIMITS, number>>;
  /** The pod-level posture (with the broker off, NetworkPolicy grants follow it); `{hosts, ecosystems}` is `registries`. */
  readonly egress: EgressNeed;
  /** What it may reach by name through the broker (with the broker on). */
  readonly namedEgress: PlannedNamedEgress;
  /** `fetch`: only its fetch tools' calls get egress and write its download caches. */
  readonly egressPhase: EgressPhase;
  /** The declared caches it uses, in its spec order. */
  readonly caches: readonly PlannedCacheUse[];
  readonly env: Readonly<Record<string, string>>;
  readonly resources: Resources;
  readonly configMapName: string;
  /** The server's bearer token: a file in the toolchain, an env var in backends. */
  readonly auth?: PlannedToolchainAuth;
  /** Code mode (`tools.codeMode`, docs/code-mode.md): `run_code` and the servers its programs may call. */
  readonly codeMode?: PlannedCodeMode;
}

/** One server a toolchain's code-mode programs may call, resolved against the spec. */
export interface PlannedCodeModeServer {
  readonly name: string;
  readonly kind: 'toolchain' | 'gateway';
  /** The toolchain itself: called in process, no URL, no token. */
  readonly self: boolean;
  /** The endpoint the toolchain server calls: a toolchain's, a gateway's broker route, or its own URL. */
  readonly url?: string;
  /**
   * What it presents: a Secret's key mounted into this toolchain alone (a toolchain's or a gateway's own token), or
   * this toolchain's broker token on a gateway route (the broker sets the gateway's credential).
   */
  readonly token?:
    | {
        readonly kind: 'secret';
        readonly secret: { readonly name: string; readonly key: string };
        readonly dir: string;
      }
    | { readonly kind: 'broker'; readonly route: string };
}

export interface PlannedCodeMode {
  readonly languages: readonly ('python' | 'node')[];
  /** The servers the spec names that resolve, in spec order (checks report the others). */
  readonly servers: readonly PlannedCodeModeServer[];
  /** The names as written. */
  readonly requested: readonly string[];
  readonly limits: {
    readonly memoryMiB?: number;
    readonly processes?: number;
    readonly fileSizeMiB?: number;
    readonly maxCallsPerRun?: number;
  };
}

export interface PlannedToolchainPod {
  /** Name of its Deployment, Service, ServiceAccount and NetworkPolicy. */
  readonly objectName: string;
  /** Cluster-DNS host of its Service. */
  readonly host: string;
  /** Component label of its objects, `toolchain-<name>`. */
  readonly component: string;
  readonly selector: Labels;
  readonly replicas: number;
}

export interface PlannedToolchainAuth {
  readonly secret: { readonly name: string; readonly key: string };
  /** Env var in backends that carries the token; client configs name it, never the value. */
  readonly backendEnv: string;
}

export interface PlannedGatewayAuth {
  readonly secret: { readonly name: string; readonly key: string };
  /** Env var in backends that carries the token; client configs name it, never the value. */
  readonly backendEnv: string;
  /** Env var in the deployed gateway that also carries the token, when the spec asks for one (`tokenEnv`). */
  readonly gatewayEnv?: string;
}

interface PlannedGatewayBase {
  readonly name: string;
  /** URL written into backends' client configs: the broker route's with the broker on, else `upstreamUrl`. */
  readonly url: string;
  /** The gateway's own URL: its Service (deployed) or the declared URL (external). */
  readonly upstreamUrl: string;
  /** The broker route backends call it through (external gateways, deployed ones with auth), broker on. */
  readonly route?: PlannedRoute;
  /** Backends may call its tools without an interactive approval. */
  readonly preApproved: boolean;
  /** Client-side timeout of one tool call. */
  readonly toolTimeoutSeconds: number;
  readonly auth?: PlannedGatewayAuth;
  readonly egress?: EgressRule;
}

export interface PlannedDeployedGateway extends PlannedGatewayBase {
  readonly kind: 'deployed';
  readonly objectName: string;
  readonly image: PlannedImage;
  readonly port: number;
  readonly path: string;
  readonly replicas: number;
  readonly kubernetes?: { readonly preset: RbacPresetName; readonly namespaces: readonly string[] };
  readonly env: Readonly<Record<string, string>>;
  readonly secretEnv: readonly SecretRef[];
  readonly healthPath?: string;
  readonly resources: Resources;
  readonly selector: Labels;
  readonly serviceAccountAnnotations: Labels;
}

export interface PlannedExternalGateway extends PlannedGatewayBase {
  readonly kind: 'external';
}

export type PlannedGateway = PlannedDeployedGateway | PlannedExternalGateway;

/** A PersistentVolumeClaim the spec refers to by name: toolyard mounts it and never creates it. */
export interface PlannedExistingClaim {
  readonly kind: 'existingClaim';
  readonly claimName: string;
  readonly readWriteMany: boolean;
}

/** What a claim toolyard creates asks for (its `ClaimTemplate`, access modes defaulted). */
export interface NewClaimSettings {
  readonly storage: string;
  readonly storageClassName?: string;
  readonly accessModes: readonly string[];
}

export type PlannedWorkspaceVolume =
  | { readonly kind: 'emptyDir'; readonly sizeLimit: string; readonly medium: string }
  | PlannedExistingClaim
  | ({ readonly kind: 'claimTemplate' } & NewClaimSettings)
  /** A new claim as one PersistentVolumeClaim object that every pod mounts (toolchains with `placement: pod`). */
  | ({ readonly kind: 'sharedClaim'; readonly claimName: string } & NewClaimSettings);

/** Where a cache lives. `newClaim`: the PersistentVolumeClaim `<agent>-cache-<name>`, rendered by toolyard. */
export type PlannedCacheVolume =
  | { readonly kind: 'emptyDir'; readonly sizeLimit: string }
  | PlannedExistingClaim
  | ({ readonly kind: 'newClaim'; readonly claimName: string } & NewClaimSettings);

/** A declared cache (`spec.workspace.caches[]`). */
export interface PlannedCache {
  readonly name: string;
  /** As declared; `kind` is absent when it is not in the cache table (a check reports it). */
  readonly ecosystem: string;
  readonly kind?: CacheKind;
  /** Its pinned mount path, `/var/cache/toolyard/<name>`. */
  readonly path: string;
  /** Its pod volume, `cache-<name>`. */
  readonly volumeName: string;
  readonly volume: PlannedCacheVolume;
  /** On an existing ReadWriteMany claim, which other agents may mount too. */
  readonly shared: boolean;
  /** Where it is in the spec, e.g. `/spec/workspace/caches/0`. */
  readonly specPath: string;
}

/** A toolchain's use of a declared cache (`toolchains[].caches[]`). */
export interface PlannedCacheUse {
  readonly name: string;
  readonly access: CacheAccess;
  /** The declared cache it names (absent when none has that name: a check reports it). */
  readonly cache?: PlannedCache;
  /** Where it is in the spec, e.g. `/spec/toolchains/0/caches/1`. */
  readonly specPath: string;
}

export interface PlannedNetwork {
  readonly enabled: boolean;
  readonly modelEgress: EgressRule;
  readonly registryEgress: EgressRule;
  /** Where the API server is, for pods with Kubernetes authority; no default (api-server-egress.ts). */
  readonly apiServerEgress: EgressRule | undefined;
  readonly dns: { readonly namespace: string; readonly podLabels: Labels };
  readonly agentIngressFrom: readonly { readonly namespace?: string; readonly podLabels: Labels }[];
}

/** A render warning the spec accepts on purpose (`spec.acknowledgedWarnings[]`). */
export interface PlannedAcknowledgement {
  readonly warning: AcknowledgeableWarning;
  /** The toolchain or gateway it names, if its warning is about one. */
  readonly subject?: string;
  readonly reason: string;
  /** Where it is in the spec, e.g. `/spec/acknowledgedWarnings/0`. */
  readonly path: string;
}

export interface AgentPlan {
  readonly names: AgentNames;
  readonly name: string;
  readonly namespace: string;
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly workspace: { readonly mountPath: string; readonly volume: PlannedWorkspaceVolume };
  /** Declared package caches, in spec order (`spec.workspace.caches`). */
  readonly caches: readonly PlannedCache[];
  readonly backends: readonly PlannedBackend[];
  readonly toolchains: readonly PlannedToolchain[];
  readonly gateways: readonly PlannedGateway[];
  readonly rbacPreset: RbacPresetName | 'none';
  readonly network: PlannedNetwork;
  readonly toolchainServerImage: PlannedImage;
  readonly serviceAccountAnnotations: Labels;
  readonly imagePullSecrets: readonly string[];
  readonly acknowledgements: readonly PlannedAcknowledgement[];
  readonly broker: PlannedBroker;
  /** `spec.sandboxes`: the sandbox manager and its templates (docs/sandboxes.md). */
  readonly sandboxes?: PlannedSandboxes;
  /** `spec.observability` (docs/observability.md); `enabled` only with an endpoint and the broker. */
  readonly observability: PlannedObservability;
}

/** USD per million tokens of one backend's model (`observability.metrics.pricing`). */
export interface PlannedPricing {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

export interface PlannedObservability {
  /** The spec asked for it (`observability.enabled`). */
  readonly requested: boolean;
  /** Rendered: requested, with an endpoint and the broker on (the checks report the rest). */
  readonly enabled: boolean;
  /** The collector's OTLP/HTTP base URL as the spec gives it. */
  readonly endpointUrl: string | undefined;
  /** The spec gave `endpoint.collectorPodLabels` (the checks refuse them for an external endpoint). */
  readonly collectorPodLabelsGiven: boolean;
  /** `teamLabels` as written (the checks report keys missing from `metadata.labels`). */
  readonly teamLabels: readonly string[];
  /** An in-cluster collector: its namespace, pods and port (the broker's NetworkPolicy reaches them). */
  readonly collector?: { readonly namespace: string; readonly podLabels: Labels; readonly port: number };
  /** The broker's `otlp` route (enabled only). */
  readonly route?: PlannedRoute;
  /** What emitters export to: `http://<broker>:<port>/otlp` (enabled only). */
  readonly emitterUrl: string;
  readonly protocol: 'http/protobuf' | 'http/json';
  readonly sampleRatio: number;
  /** Resource attributes of every signal: `toolyard.agent`, `k8s.namespace.name`, team labels, extras. */
  readonly resource: Labels;
  readonly signals: { readonly traces: boolean; readonly metrics: boolean; readonly logs: boolean };
  readonly metrics: {
    readonly scrape: 'annotations' | 'serviceMonitor' | 'none';
    readonly scrapeFrom: readonly { readonly namespace?: string; readonly podLabels: Labels }[];
    /** Backend name → pricing. */
    readonly pricing: Readonly<Record<string, PlannedPricing>>;
  };
}

export type PodToolchain = PlannedToolchain & { readonly pod: PlannedToolchainPod };

/** `spec.sandboxes` as planned (constructs/src/sandbox-plan.ts plans it; docs/sandboxes.md). */
export type SandboxProviderName = NonNullable<Sandboxes['provider']>;

export interface PlannedSandboxTemplate {
  readonly name: string;
  /** SandboxTemplate, SandboxWarmPool, server ConfigMap and NetworkPolicy: `<agent>-sandbox-<name>`. */
  readonly objectName: string;
  readonly component: string;
  /** Labels of its pods, which its NetworkPolicy selects. */
  readonly selector: Labels;
  /** The Host the manager sends to its server. */
  readonly serverHost: string;
  /** The template as a toolchain in its own pod: its server config, container and egress. */
  readonly toolchain: PlannedToolchain;
  readonly mountPath: string;
  readonly storage: string;
  readonly storageClassName?: string;
  readonly warmPoolReplicas: number;
  /** The spec set `warmPool` itself (the default applies to agent-sandbox only). */
  readonly warmPoolDeclared: boolean;
  readonly idleTimeoutSeconds: number;
  readonly retentionSeconds: number;
  readonly maxUploadBytes: number;
  readonly maxDownloadBytes: number;
  /** What one running sandbox counts against the quota: limits, else requests. */
  readonly cpuMillis: number;
  readonly memoryBytes: number;
}

export interface PlannedSandboxes {
  readonly provider: SandboxProviderName;
  /** The manager's Deployment, Service, ServiceAccount, Role, RoleBinding, ConfigMap, NetworkPolicy. */
  readonly objectName: string;
  readonly component: string;
  readonly selector: Labels;
  readonly host: string;
  /** The MCP endpoint backends call. */
  readonly url: string;
  /** The MCP server name in client configs. */
  readonly serverName: string;
  readonly image: PlannedImage;
  readonly port: number;
  readonly healthPort: number;
  readonly auth: {
    readonly secret: { readonly name: string; readonly key: string };
    readonly backendEnv: string;
  };
  readonly bootstrapSecret: { readonly name: string; readonly key: string };
  /** The ServiceAccount of every sandbox pod: no token, no Role. */
  readonly podServiceAccount: string;
  /** Labels of every object the manager creates (claims, pods, workspace claims), and its list selector. */
  readonly managedLabels: Labels;
  readonly quota: {
    readonly maxSandboxes: number;
    readonly maxSessions: number;
    readonly cpuMillis: number;
    readonly memoryBytes: number;
  };
  /** The quota's cpu and memory as the spec writes them (a chart's default values); "" when unset. */
  readonly quotaQuantities: { readonly cpu: string; readonly memory: string };
  readonly templates: readonly PlannedSandboxTemplate[];
  /** Largest `limits.maxTimeoutSeconds` of the templates: backends' tool timeout for the manager. */
  readonly maxTimeoutSeconds: number;
}
