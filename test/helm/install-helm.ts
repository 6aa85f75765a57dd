/** `npm run helm`: installs the pinned Helm 3 and Helm 4 binaries (once) and prints where. */
import { HELM_RELEASES, installHelm } from './helm-binaries.ts';

for (const release of HELM_RELEASES) {
  const path = installHelm(release, (line) => process.stderr.write(`${line}\n`));
  process.stdout.write(`${path}\n`);
}
