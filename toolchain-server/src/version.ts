/** The server version reported in `initialize` and describe_toolchain. */
export const SERVER_VERSION = '0.1.0';
