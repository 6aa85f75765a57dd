/**
 * The renderer's self-check that the sandbox manager's config parses with `toolyard-sandbox-manager`'s own schema
 * before it is emitted (like broker-contract.ts): a renderer bug that broke the contract fails here, not in a
 * running pod. The browser playground is built without it, to leave zod out of the page.
 */
import {
  parseSandboxManagerConfig,
  type SandboxManagerConfigInput,
} from '../../toolchain-server/sandbox-manager/config.ts';

export function assertSandboxManagerContract(config: SandboxManagerConfigInput): void {
  const parsed = parseSandboxManagerConfig(config);
  if (parsed.ok) return;
  const issues = parsed.issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  throw new Error(
    `internal error: the sandbox manager config of agent "${config.agent}" breaks the contract: ${issues}`,
  );
}
