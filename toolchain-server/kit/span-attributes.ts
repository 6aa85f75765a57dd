/**
 * Every attribute a toolyard span may carry, with what it means. Spans take only these keys (the type of
 * `Span.set`), so no code path can attach an argument value, an environment value, a header or a body by
 * accident: what a span says is exactly this table, which docs/observability.md lists and a test compares.
 * Names follow the OpenTelemetry semantic conventions where one exists (MCP, HTTP, process, gen_ai), and
 * `toolyard.*` otherwise.
 */

export const SPAN_CLASSES = ['local-execution', 'external-authority', 'model'] as const;
/** What a span's work is: a command in a toolchain, a call that uses authority held outside it, a model turn. */
export type SpanClass = (typeof SPAN_CLASSES)[number];

export const SPAN_ATTRIBUTES = {
  'toolyard.class':
    '`local-execution` (a toolchain runs a command on the workspace), `external-authority` (a gateway, a cloud API, a registry or host reached through the broker) or `model` (a model provider through a broker route).',
  'toolyard.agent': 'The agent (spec `metadata.name`).',
  'toolyard.component': '`toolchain-server`, `broker`, `code-mode` or `sandbox-manager`.',
  'toolyard.toolchain': 'The toolchain that handled the call.',
  'toolyard.routing.decision':
    '`matched` (a routing hint of this toolchain names the command) or `direct` (the client chose this toolchain; no hint names the command).',
  'toolyard.routing.reason':
    'Why this toolchain runs the command, in words: `command cargo matched toolchain rust handles.commands`.',
  'toolyard.decision': '`allowed`, `denied` (a policy rule refused it) or `error`.',
  'toolyard.rule': 'The policy rule that refused the call (`config-override`, `route-not-allowed`, …).',
  'toolyard.code': 'The TOOLYARD_* error code of a refusal or failure.',
  'toolyard.truncated': 'True when output went over the cap and only its tail was kept.',
  'toolyard.timed_out': 'True when the timeout killed the process group.',
  'toolyard.cancelled': 'True when the client cancelled the call.',
  'toolyard.confinement.abi': 'Landlock ABI the confinement helper applied (0: none).',
  'toolyard.egress': 'True when the call got the broker proxy.',
  'toolyard.session':
    'First 16 hex digits of the SHA-256 of the MCP session id (never the id); for the sandbox manager, the first 20 of the session key’s (its audit line’s `session`, never the key).',
  'toolyard.sandbox.name':
    'The sandbox manager: the name of the session’s object (SandboxClaim, or Pod and claim).',
  'toolyard.sandbox.template': 'The sandbox manager: the sandbox template.',
  'toolyard.sandbox.operation':
    'The sandbox manager’s Kubernetes call: `create`, `resume`, `suspend` or `destroy` (of a claim, or a pod and its claim).',
  'toolyard.sandbox.bind':
    'The sandbox manager’s bind of a new sandbox server to its session: `bound`, or `rebound` (bound before by this manager, before a restart).',
  'toolyard.code_mode.run': 'The code-mode run a call belongs to.',
  'toolyard.code_mode.server': 'The server a code-mode program called.',
  'toolyard.stdout_bytes': 'Bytes the process wrote to stdout.',
  'toolyard.stderr_bytes': 'Bytes the process wrote to stderr.',
  'toolyard.broker.caller': 'The container the broker identified by its token.',
  'toolyard.broker.kind': '`route` or `connect`.',
  'toolyard.broker.route': 'The broker route (`model-claude`, `gateway-tickets`).',
  'toolyard.broker.rule':
    'The route or egress entry that allowed it (`route:model-claude`, `*.crates.io:443`).',
  'toolyard.broker.address': 'The address the broker connected to, after its deniedCidrs check.',
  'toolyard.bytes_in': 'Bytes the caller sent (request body, or tunnel bytes towards the upstream).',
  'toolyard.bytes_out': 'Bytes the caller received.',
  'mcp.method.name': 'The MCP method (`tools/call`).',
  'gen_ai.operation.name': '`execute_tool` for tool calls, `chat` for model requests.',
  'gen_ai.tool.name': 'The MCP tool called.',
  'gen_ai.usage.input_tokens': 'Input tokens the provider reported.',
  'gen_ai.usage.output_tokens': 'Output tokens the provider reported.',
  'gen_ai.usage.cache_read_input_tokens': 'Cached input tokens read, as the provider reported.',
  'gen_ai.usage.cache_creation_input_tokens': 'Input tokens written to the cache, as the provider reported.',
  'process.executable.name': 'argv[0] of the command, as a bare name (never its arguments).',
  'process.exit.code': 'The exit code of the process.',
  'process.exit.signal': 'The signal that ended the process.',
  'http.request.method': 'The HTTP method (CONNECT for tunnels).',
  'http.response.status_code': 'The HTTP status the caller got.',
  'server.address': 'The upstream host (a route upstream or a tunnel host), never a path or query.',
  'server.port': 'The upstream port.',
  'error.type': 'The TOOLYARD_* code, or `nonzero-exit`, when the span ended in error.',
} as const;

export type SpanAttributeKey = keyof typeof SPAN_ATTRIBUTES;
export type SpanAttributeValue = string | number | boolean;
