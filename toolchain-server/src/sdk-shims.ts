/**
 * What the bundle puts in place of the MCP SDK's Node shims (`@modelcontextprotocol/server/_shims`, see
 * scripts/bundle.ts). The SDK's default JSON Schema validator is built on ajv, which costs megabytes of idle
 * memory to load; this server hands every SDK `Server` its own validator (mcp.ts), so the default is never
 * constructed, and the bundle ships none. Constructing it anyway is a bug, and says so.
 */
import process from 'node:process';

export class DefaultJsonSchemaValidator {
  constructor() {
    throw new Error(
      'toolchain server bundle: the SDK default JSON Schema validator is not bundled; pass jsonSchemaValidator',
    );
  }
}

export { process };
