/**
 * How the bundled broker is started — shared by the image entrypoint, the renderer's broker Deployment and
 * the bundle test. Free of Node APIs: the renderer bundles it.
 */
import { BROKER_PATHS } from './config.ts';

/**
 * One definition for the image entrypoint and the rendered Deployment (the renderer imports it from
 * src/launch.ts): the broker runs with the server's V8 flags. A 1 MiB young-generation semi-space keeps about
 * 25 MB of RSS off at 1,000 open streams (the default lets it grow to 64 MB while the streams open); their
 * long-lived objects are promoted once, which is where they belong (docs/benchmarks.md, broker).
 */
export { BROKER_BUNDLE_FILE, brokerCommand } from '../src/launch.ts';

/** The broker image's default arguments: the config the renderer mounts. */
export const BROKER_CMD = ['--config', BROKER_PATHS.configFile] as const;
