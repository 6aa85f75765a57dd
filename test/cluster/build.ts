/**
 * `npm run cluster:build`: builds the test cluster's binaries, agent-sandbox's controller (with its CRDs) and
 * kubectl (once each; cached) and prints where.
 */
import { buildAgentSandbox, buildClusterBinaries } from './binaries.ts';
import { installKubectl } from './kubectl-binary.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);
process.stdout.write(
  `${buildClusterBinaries(log).dir}\n${buildAgentSandbox(log).dir}\n${installKubectl(log)}\n`,
);
