/**
 * The sandbox manager's fixed paths and file names, zod-free so the renderer (and the browser playground) can
 * share them with the manager's config contract (config.ts).
 */

/** Paths inside the manager's container, as the renderer mounts them. */
export const SANDBOX_MANAGER_PATHS = {
  configDir: '/etc/toolyard/sandboxes/config',
  authDir: '/etc/toolyard/sandboxes/auth',
  bootstrapDir: '/etc/toolyard/sandboxes/bootstrap',
  serviceAccountDir: '/var/run/secrets/kubernetes.io/serviceaccount',
} as const;

export const SANDBOX_MANAGER_CONFIG_FILE = 'config.json';

/** The manager's bundle file under /opt/toolyard in its image (one definition, with its launch command). */
export { SANDBOX_MANAGER_BUNDLE_FILE } from '../src/launch.ts';

/** The config the manager's image reads by default: where the renderer mounts its ConfigMap. */
export const SANDBOX_MANAGER_CONFIG_PATH = '/etc/toolyard/sandboxes/config/config.json';

/** Where a sandbox pod mounts the bootstrap token (its server reads it at start; no call can). */
export const SANDBOX_BOOTSTRAP_DIR = '/etc/toolyard/sandbox/bootstrap';

/** The name of the workspace volume (and claim template) of every sandbox pod. */
export const SANDBOX_WORKSPACE_VOLUME = 'workspace';
