/**
 * The renderer's self-check that the broker config parses with `toolyard-broker`'s own schema before it is
 * emitted (like server-contract.ts for the toolchain server): a renderer bug that broke the contract fails here,
 * not in a running pod. The browser playground is built without it, to leave zod out of the page.
 */
import { type BrokerConfigInput, parseBrokerConfig } from '../../toolchain-server/broker/config.ts';

export function assertBrokerContract(config: BrokerConfigInput): void {
  const parsed = parseBrokerConfig(config);
  if (parsed.ok) return;
  const issues = parsed.issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  throw new Error(
    `internal error: the broker config of agent "${config.agent}" breaks the contract: ${issues}`,
  );
}
