/** `npm run cluster:build`: builds the test cluster's binaries and kubectl (once; cached) and prints where. */
import { buildClusterBinaries } from './binaries.ts';
import { installKubectl } from './kubectl-binary.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);
process.stdout.write(`${buildClusterBinaries(log).dir}\n${installKubectl(log)}\n`);
