/**
 * The renderer's self-check that a toolchain config parses with the toolchain server's own schema before it
 * is emitted: a renderer bug that broke the contract would fail here instead of in a running pod. The config
 * bytes do not depend on it. (The browser playground is built without it, to leave zod out of the page; the
 * CLI, `cdk8s synth`, the chart generator and every test run it.)
 */
import {
  parseToolchainServerConfig,
  type ToolchainServerConfigInput,
} from '../../toolchain-server/src/config.ts';

export function assertServerContract(toolchain: string, config: ToolchainServerConfigInput): void {
  const parsed = parseToolchainServerConfig(config);
  if (parsed.ok) return;
  const issues = parsed.issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  throw new Error(`internal error: toolchain "${toolchain}" config breaks the server contract: ${issues}`);
}
