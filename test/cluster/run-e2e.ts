/**
 * `npm run test:cluster`: builds the cluster's binaries (once; cached), starts one test cluster with kwok nodes,
 * runs every test/cluster/e2e/*.e2e.ts file against it (TOOLYARD_TEST_CLUSTER names its handle), then stops it —
 * every process it started, every file it wrote — whatever the tests did. Exits with the tests' status.
 * Arguments, if any, are test files to run instead of all of them. With the real node (node/node.ts) unless
 * TOOLYARD_TEST_NODE=skip.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { admissionSummary } from './admission-summary.ts';
import { buildAgentSandbox, buildClusterBinaries } from './binaries.ts';
import { startCluster } from './cluster.ts';
import { builtImages, PUBLIC_NAMES } from './node/toolyard-images.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const E2E_DIR = join(HERE, 'e2e');
/** kwok nodes of the shared cluster: enough for spreading and node-selector scenarios, cheap to run. */
const KWOK_NODES = 3;

const log = (line: string) => process.stderr.write(`[cluster] ${line}\n`);
const files =
  process.argv.slice(2).length > 0
    ? process.argv.slice(2)
    : readdirSync(E2E_DIR)
        .filter((f) => f.endsWith('.e2e.ts'))
        .sort()
        .map((f) => relative(process.cwd(), join(E2E_DIR, f)));

const built = Date.now();
buildClusterBinaries(log);
buildAgentSandbox(log);
log(`binaries ready in ${((Date.now() - built) / 1000).toFixed(1)} s`);
// The real node runs unless TOOLYARD_TEST_NODE=skip (a machine without root, containerd or netfilter); its tests
// then skip and say so. It imports toolyard's images that `npm run images` built (npm test builds them first).
const withNode = process.env.TOOLYARD_TEST_NODE !== 'skip';
// Only what the node tests run (each import unpacks a few hundred MB): the broker, a toolchain image, and the
// server image whose init container installs the server into every toolchain pod (injectServer defaults to on).
const NODE_IMAGES = ['toolyard-broker', 'toolchain-node', 'toolchain-server'];
const images = builtImages().filter((image) =>
  NODE_IMAGES.some((name) => image.repository.endsWith(`/${name}`)),
);
if (withNode && images.length === 0)
  log('no toolyard images in dist/images (npm run images): the node tests will fail');
const cluster = await startCluster({
  kwokNodes: KWOK_NODES,
  log,
  ...(withNode ? { node: { images, publicNames: [...PUBLIC_NAMES] } } : {}),
});
let status = 1;
try {
  status = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ['--test', '--test-concurrency=1', ...files], {
      stdio: 'inherit',
      env: { ...process.env, TOOLYARD_TEST_CLUSTER: cluster.handleFile },
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
  log(`API server resident memory at the end: ${(cluster.apiserverRss() / 2 ** 20).toFixed(0)} MiB`);
  const admission = admissionSummary(join(cluster.dir, 'audit.log'));
  log(
    `admission: ${admission.writes} writes, ${admission.refused} refused; Pod Security restricted evaluated ${admission.restrictedEvaluations} pod admissions, ${admission.violations} with violations (the controls)`,
  );
} finally {
  await cluster.stop();
  log('stopped: every process ended, its directory removed');
}
process.exit(status);
