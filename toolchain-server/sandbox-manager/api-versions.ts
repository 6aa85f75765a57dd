/**
 * The agent-sandbox API the manager and the renderer speak: kubernetes-sigs/agent-sandbox `v1beta1` (its storage
 * version since v0.5; docs/sandboxes.md says which controller release serves it). Zod-free, for the renderer.
 */
export const AGENT_SANDBOX_GROUP = 'agents.x-k8s.io';
export const AGENT_SANDBOX_EXTENSIONS_GROUP = 'extensions.agents.x-k8s.io';
export const AGENT_SANDBOX_VERSION = 'v1beta1';
/** The label agent-sandbox puts on a Sandbox: `warm` (adopted from a pool) or `cold`. */
export const AGENT_SANDBOX_LAUNCH_TYPE_LABEL = 'agents.x-k8s.io/launch-type';
