/**
 * How the bundled server is started — the one definition shared by the image entrypoints (checked by a test),
 * the renderer's sidecar command, the bundle test and the benchmark. Free of Node APIs: the renderer bundles it.
 */

/** Where images and the init container put the bundle: `bin/node` and `toolchain-server.mjs`. */
export const SERVER_BUNDLE_DIR = '/opt/toolyard';

/**
 * V8 flags of the server process. The server's allocations are small and short-lived (JSON-RPC messages,
 * bounded output rings), so a 1 MiB young-generation semi-space is plenty; it keeps about 5 MB of idle RSS
 * that the default 16 MiB semi-space would touch (see docs/benchmarks.md).
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=1'] as const;

/** argv that starts the server from a bundle directory; append `--config <file>`. */
export function serverCommand(bundleDir: string = SERVER_BUNDLE_DIR): string[] {
  return [`${bundleDir}/bin/node`, ...SERVER_NODE_FLAGS, `${bundleDir}/toolchain-server.mjs`];
}

/** The broker's bundle file, beside the toolchain server's in the same directory (images put both there). */
export const BROKER_BUNDLE_FILE = 'toolyard-broker.mjs';

/** The sandbox manager's bundle file, in its own image's /opt/toolyard. */
export const SANDBOX_MANAGER_BUNDLE_FILE = 'toolyard-sandbox-manager.mjs';

/** argv that starts `toolyard-sandbox-manager` from a bundle directory; append `--config <file>`. */
export function sandboxManagerCommand(bundleDir: string = SERVER_BUNDLE_DIR): string[] {
  return [`${bundleDir}/bin/node`, ...SERVER_NODE_FLAGS, `${bundleDir}/${SANDBOX_MANAGER_BUNDLE_FILE}`];
}

/** argv that starts `toolyard-broker` from a bundle directory; append `--config <file>`. */
export function brokerCommand(bundleDir: string = SERVER_BUNDLE_DIR): string[] {
  return [`${bundleDir}/bin/node`, ...SERVER_NODE_FLAGS, `${bundleDir}/${BROKER_BUNDLE_FILE}`];
}
