import { PACKAGE_VERSION } from './package-version.generated.ts';

/** The server version reported in `initialize` and describe_toolchain: the package's. */
export const SERVER_VERSION = PACKAGE_VERSION;
