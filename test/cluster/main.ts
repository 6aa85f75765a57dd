/**
 * `npm run cluster`: builds (once) and starts the test cluster for a developer, prints how to reach it, and
 * stops it — every process, every file — on Ctrl-C. `-- --kwok-nodes N` adds N fake nodes (default 3); `-- --node`
 * adds the real node (node/node.ts), with toolyard's images from dist/images (`npm run images`) imported.
 */
import { buildClusterBinaries } from './binaries.ts';
import { startCluster } from './cluster.ts';
import { builtImages, PUBLIC_NAMES } from './node/toolyard-images.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);
const at = process.argv.indexOf('--kwok-nodes');
const kwokNodes = at >= 0 ? Number(process.argv[at + 1]) : 3;
if (!Number.isInteger(kwokNodes) || kwokNodes < 0) {
  log('npm run cluster: --kwok-nodes takes a whole number (0 for none)');
  process.exit(2);
}
buildClusterBinaries(log);
const cluster = await startCluster({
  kwokNodes,
  log,
  ...(process.argv.includes('--node') ? { node: { images: builtImages(), publicNames: PUBLIC_NAMES } } : {}),
});
process.stdout.write(
  `export KUBECONFIG=${cluster.kubeconfig}\n# kubectl: ${cluster.kubectlPath}\n# logs: ${cluster.dir}/*.log\n# Ctrl-C stops the cluster and removes ${cluster.dir}\n`,
);
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log('stopping the cluster');
    void cluster.stop().then(() => process.exit(0));
  });
setInterval(() => {}, 1 << 30);
