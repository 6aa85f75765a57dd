/**
 * A scratch directory a rendered spec can name as its workspace `mountPath`, for tests that run the real
 * toolchain server on the host with the spec's paths. The spec check refuses a workspace that overlaps a path
 * toolyard mounts itself (`/tmp`, `/home/toolyard`, …), so the directory is under the repository's `.tmp/`
 * unless the checkout itself lies under such a path (CI may clone into /tmp), and under `/var/tmp` then.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { PATHS } from '../../constructs/src/defaults.ts';
import { REPO_ROOT } from './golden.ts';

const RESERVED: readonly string[] = Object.values(PATHS);

function underReserved(path: string): boolean {
  return RESERVED.some((reserved) => path === reserved || path.startsWith(`${reserved}/`));
}

export function makeWorkspaceDir(prefix: string): string {
  const base = underReserved(REPO_ROOT) ? join('/var/tmp', 'toolyard-tests') : join(REPO_ROOT, '.tmp');
  mkdirSync(base, { recursive: true });
  return mkdtempSync(join(base, prefix));
}
