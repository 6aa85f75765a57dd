/**
 * The broker contract's constants, free of zod and of Node APIs: the renderer (bundled for the browser without
 * zod) and the broker import the same values from here; `config.ts` re-exports them with the schema.
 */

/** Ranges refused after resolution, besides loopback, link-local, private, CGNAT, multicast and reserved. */
export const DEFAULT_DENIED_CIDRS = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '224.0.0.0/3',
  '::/128',
  '::1/128',
  '::ffff:0:0/96',
  '64:ff9b::/96',
  'fc00::/7',
  'fe80::/10',
  'ff00::/8',
] as const;

/** Where the broker's pod mounts its files; the renderer mounts them there, the broker reads them there. */
export const BROKER_PATHS = {
  /** The config ConfigMap's directory; the file is `config.json`. */
  configDir: '/etc/toolyard/broker/config',
  configFile: '/etc/toolyard/broker/config/config.json',
  /** The callers' token Secret, one file per caller (the key is the caller's name). */
  callerTokensDir: '/etc/toolyard/broker/callers',
  /** One directory per route holding its credential as the file `key`. */
  keysDir: '/etc/toolyard/broker/keys',
} as const;

/** Default listener ports of the broker: routes and CONNECT, and health/metrics. */
export const BROKER_PORTS = { proxy: 8480, health: 9480 } as const;

/**
 * Where a tunnel must open with a TLS ClientHello or an HTTP/1.x request (IANA http, https, http-alt,
 * https-alt): the broker's `httpPorts` default.
 */
export const DEFAULT_HTTP_PORTS = [80, 443, 8080, 8443] as const;
