/**
 * How the bundled broker is started — shared by the image entrypoint, the renderer's broker Deployment and
 * the bundle test. Free of Node APIs: the renderer bundles it.
 */
import { SERVER_BUNDLE_DIR } from '../src/launch.ts';
import { BROKER_PATHS } from './config.ts';

/** The broker bundle's file name in the bundle directory (next to `bin/node`). */
export const BROKER_BUNDLE_FILE = 'toolyard-broker.mjs';

/**
 * argv that starts the broker from a bundle directory; append `--config <file>`. No small-heap flags: the
 * broker holds up to limits.maxConnections streams, whose buffers a 1 MiB semi-space would keep promoting.
 */
export function brokerCommand(bundleDir: string = SERVER_BUNDLE_DIR): string[] {
  return [`${bundleDir}/bin/node`, `${bundleDir}/${BROKER_BUNDLE_FILE}`];
}

/** The broker image's default arguments: the config the renderer mounts. */
export const BROKER_CMD = ['--config', BROKER_PATHS.configFile] as const;
