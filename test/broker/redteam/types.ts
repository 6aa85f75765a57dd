/**
 * The shape of a red-team case: data only. Strings are templates the runner fills in (see `fill` in
 * world.ts): `{{P}}` the port every fake endpoint listens on, `{{Q}}` a second port, `{{HOST}}` the broker's
 * own `host:port`, `{{PORT:<endpoint>}}` an endpoint's port, `{{T:<caller>}}` a caller's broker token, `{{BASIC:<caller>}}` its Proxy-Authorization
 * credentials, `{{TOKENASUSER:<caller>[/<password>]}}` Basic credentials with the token as the user name,
 * `{{K:<route>}}` a route's real key, `{{A:<n>}}` n filler bytes.
 */

/** The brokers of the world, one config each (world.ts): `lab` is the one under attack. */
export type BrokerName =
  /** Denied: the defaults without 127.0.0.0/8, plus 127.0.0.64/26, which models a private range with live listeners. */
  | 'lab'
  /** Denied: the defaults (loopback included). */
  | 'strict'
  /** Denied: nothing; default limits. Only ever a control: what the payload does when the address checks are off. */
  | 'open';

export type CallerName = 'claude' | 'codex' | 'gemini' | 'rust' | 'go' | 'wide';

/** Fake destinations; each records every connection (endpoint.ts). */
export type EndpointName =
  | 'model'
  | 'gemini'
  | 'openai'
  | 'gateway'
  /** Route upstreams whose certificate must be refused: another CA's, the test CA's for another name. */
  | 'impostorCa'
  | 'impostorName'
  | 'allowed'
  | 'allowedAlt'
  | 'mirror'
  | 'evil'
  | 'private'
  | 'loop1'
  | 'loop6';

export type AttackClass =
  | 'unlisted-host'
  | 'ip-literal'
  | 'private-address'
  | 'loopback-resolution'
  | 'dns-rebinding'
  | 'host-sni-mismatch'
  | 'absolute-uri'
  | 'route-traversal'
  | 'smuggling'
  | 'credential-override'
  | 'cross-caller'
  | 'proxy-auth'
  | 'upgrade'
  | 'limits'
  | 'upstream-tls'
  /** Any RFC 9110 method opens an HTTP request in a tunnel, and gets the Host check (issue 32). */
  | 'tunnel-methods'
  /** Bytes the broker cannot read, to an HTTP port: refused, not relayed (issue 32). */
  | 'unreadable-tunnel'
  /** A credential presented wrongly is never repeated: not in a log line, an error body or a metric (issue 32). */
  | 'credential-echo';

/** Resolver answers for this step only: name → one answer per query (the last repeats). */
export type DnsOverride = Readonly<Record<string, readonly (readonly string[])[]>>;

export type Step =
  /** Raw bytes to a broker's listener (filled, then cut in `pieces` sent `gapMs` apart); reads the first response. */
  | {
      readonly kind: 'raw';
      readonly to: BrokerName;
      readonly bytes: string;
      readonly pieces?: number;
      readonly gapMs?: number;
      readonly dns?: DnsOverride;
    }
  /** Raw bytes straight to a fake endpoint (plain HTTP), as if no broker were there. */
  | { readonly kind: 'direct'; readonly to: EndpointName; readonly bytes: string }
  /**
   * `CONNECT authority` through a broker, then (when the tunnel opens) TLS with `servername` or plain bytes.
   * `auth` is the raw Proxy-Authorization value; absent means none.
   */
  | {
      readonly kind: 'connect';
      readonly via: BrokerName;
      readonly authority: string;
      readonly auth?: string;
      /** The CONNECT request's Host header; default: the authority. */
      readonly hostHeader?: string;
      readonly extraHeaders?: string;
      readonly tls?: { readonly servername: string };
      readonly send?: string;
      readonly dns?: DnsOverride;
    }
  /** A TCP connection the way any program makes one: `host` goes through the OS resolver (getaddrinfo). */
  | {
      readonly kind: 'os-connect';
      readonly host: string;
      readonly port: string;
      readonly tls?: { readonly servername: string };
      readonly send?: string;
    }
  /** What a proxy that resolves twice would do: look the name up (the check), look it up again, connect. */
  | {
      readonly kind: 'naive-resolve-twice';
      readonly name: string;
      readonly port: string;
      readonly dns: DnsOverride;
    }
  /** `count` tunnels at once by one caller, then one by `other` while they are open. */
  | {
      readonly kind: 'flood';
      readonly via: BrokerName;
      readonly caller: CallerName;
      readonly authority: string;
      readonly count: number;
      readonly other: { readonly caller: CallerName; readonly authority: string };
    }
  /** `count` route requests at once (each on its own connection), then `other` while they are open. */
  | {
      readonly kind: 'route-flood';
      readonly via: BrokerName;
      readonly bytes: string;
      readonly count: number;
      readonly other: string;
    }
  /** A request head, then `bytes` of body streamed in 64 KiB chunks (chunked). */
  | { readonly kind: 'big-body'; readonly to: BrokerName; readonly head: string; readonly bytes: number };

export interface Expect {
  /** The first response's status; 0 stands for "closed or silent without a response". */
  readonly status?: readonly number[];
  /** Endpoints that must have been reached. */
  readonly reached?: readonly EndpointName[];
  /** Endpoints that may have been reached; every endpoint in neither list must record no connection at all. */
  readonly mayReach?: readonly EndpointName[];
  /** Every value of header `name` in the requests recorded at `at`, in order, must be exactly `is`. */
  readonly header?: { readonly at: EndpointName; readonly name: string; readonly is: readonly string[] };
  /** No request recorded at `at` may carry a header of these names. */
  readonly noHeaders?: { readonly at: EndpointName; readonly names: readonly string[] };
  /** Strings no request target recorded at `at` may contain. */
  readonly urlExcludes?: { readonly at: EndpointName; readonly texts: readonly string[] };
  /** Some request target recorded at `at` contains `text`. */
  readonly urlIncludes?: { readonly at: EndpointName; readonly text: string };
  /** A request recorded at `at` routes (leniently normalised) to this path. */
  readonly normalisedPath?: { readonly at: EndpointName; readonly path: string };
  /** Whether some endpoint recorded a request whose target contains "smuggled". Attacks: false always. */
  readonly smuggled?: boolean;
  /** The TLS server names the endpoint was asked for, in order (empty: no ClientHello reached it). */
  readonly servernames?: { readonly at: EndpointName; readonly are: readonly string[] };
  /** How many requests the endpoint parsed. */
  readonly requests?: { readonly at: EndpointName; readonly count: number };
  /** Host headers of the requests the endpoint parsed, in order. */
  readonly hosts?: { readonly at: EndpointName; readonly are: readonly string[] };
  /** Body bytes of the one request recorded at `at`. */
  readonly bodyBytes?: { readonly at: EndpointName; readonly is: number };
  /** Plain (non-TLS) connections at `at` whose first bytes it recorded: how many, and a text one of them holds. */
  readonly plainBytes?: { readonly at: EndpointName; readonly count?: number; readonly includes?: string };
  /** Upgrades recorded at `at`. */
  readonly upgrades?: { readonly at: EndpointName; readonly count: number };
  /** The broker closed the connection, or answered, within this many milliseconds. */
  readonly doneWithinMs?: number;
  /** The response holds this text (a control showing a reflection bites). */
  readonly responseIncludes?: string;
  /** Flood: at most / at least this many tunnels granted, and the other caller's tunnel opened. */
  readonly flood?: {
    readonly grantedAtMost: number;
    readonly grantedAtLeast: number;
    readonly otherOk: boolean;
  };
}

export interface Check {
  readonly step: Step;
  readonly expect: Expect;
}

export interface RedteamCase {
  readonly id: string;
  readonly class: AttackClass;
  readonly description: string;
  readonly attack: Check;
  /** Proves the payload bites without the broker (or with only the refused part changed). */
  readonly control: Check | readonly Check[];
}
