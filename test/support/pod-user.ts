/**
 * The uid and gid every rendered pod runs as (Pod Security "restricted", toolyard's images). Tests of what a call
 * can do to processes of its own uid run the server and the calls as this uid when the test runs as root: as root
 * the kernel's capability checks would hold what only the uid's own rules should (issue 32: running as root hid
 * same-uid findings). Off root (a developer's machine), everything runs as the current user, which is the same
 * situation: one unprivileged uid.
 */
import { lchownSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const POD_UID = 65532;

/** Whether this test process is root, so its subjects must switch to the pod's uid. */
export const SWITCHES_UID = process.getuid?.() === 0;

/**
 * spawn/spawnSync options that run a child as the pod's uid and gid (no supplementary groups: libuv drops them).
 * A test whose subjects act on every process of their uid passes a uid of its own (no other test's processes).
 */
export function asPodUser(uid = POD_UID): { uid?: number; gid?: number } {
  return SWITCHES_UID ? { uid, gid: uid } : {};
}

/** The uid subjects run as. */
export function subjectUid(uid = POD_UID): number {
  return SWITCHES_UID ? uid : (process.getuid?.() ?? uid);
}

/** Gives `path` and everything below it to the pod's uid (a no-op off root); symlinks themselves, not targets. */
export function chownForPod(path: string, uid = POD_UID): void {
  if (!SWITCHES_UID) return;
  const walk = (p: string) => {
    if (lstatSync(p).isDirectory()) for (const entry of readdirSync(p)) walk(join(p, entry));
    lchownSync(p, uid, uid);
  };
  walk(path);
}
