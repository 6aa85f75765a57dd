/** The shapes every backend client-config format shares: the servers it lists, the files it drafts, the problems it finds. */
import type { BackendType, PlannedBackend } from './plan.ts';

/** One MCP server as every format sees it. */
export interface McpServerEntry {
  readonly name: string;
  readonly url: string;
  /** `sandboxes`: the agent's sandbox manager (`spec.sandboxes`). */
  readonly kind: 'toolchain' | 'gateway' | 'sandboxes';
  /** Environment variable holding the bearer token, if the server needs one. */
  readonly tokenEnv?: string;
  /** Calls run without an interactive approval (headless runs can call nothing else). */
  readonly preApproved: boolean;
  /** How long the client waits for one tool call. */
  readonly toolTimeoutSeconds: number;
}

/** One generated file of one backend. */
export interface McpClientConfigFile {
  readonly backend: string;
  readonly type: BackendType;
  /** File name in the backend's config mount, also the ConfigMap item path. */
  readonly fileName: string;
  /** Key in the shared ConfigMap: `<backend>.<fileName>`. */
  readonly configMapKey: string;
  /** Absolute path of the file in the backend container. */
  readonly path: string;
  readonly content: string;
}

/** How a backend's files appear in its container. */
export type ClientConfigMount =
  | { readonly kind: 'directory'; readonly path: string }
  /** A single file mounted by `subPath`: for CLIs that refuse settings in a group-writable directory. */
  | { readonly kind: 'file'; readonly path: string; readonly fileName: string };

export interface BackendClientConfig {
  readonly backend: string;
  readonly type: BackendType;
  readonly files: readonly McpClientConfigFile[];
  readonly mount: ClientConfigMount;
  /** Variables the CLI needs to find and use the config in a headless run. */
  readonly env: Readonly<Record<string, string>>;
}

/** What one format produces before it is placed: file contents by name, mount and env. */
export interface ClientConfigDraft {
  readonly files: Readonly<Record<string, string>>;
  readonly mount: ClientConfigMount;
  readonly env: Readonly<Record<string, string>>;
}

/** A spec problem found while generating, at a JSON pointer below the backend. */
export interface ClientConfigProblem {
  readonly pointer: string;
  readonly message: string;
  readonly hint?: string;
}

export type ClientConfigFormat = (
  backend: PlannedBackend,
  servers: readonly McpServerEntry[],
) => { draft: ClientConfigDraft; problems: ClientConfigProblem[] };
