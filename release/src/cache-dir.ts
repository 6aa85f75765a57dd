/**
 * Where build steps keep what they fetched or built once and reuse across checkouts and CI runs (Node runtimes
 * from the npm registry, Debian root filesystems, the Helm binaries of the tests): `$TOOLYARD_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/toolyard` or `~/.cache/toolyard`, never inside the repository. Entries are keyed by their
 * inputs, so a stale entry is never reused.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export function cacheDir(...parts: string[]): string {
  const own = process.env['TOOLYARD_CACHE_DIR'];
  if (own) return join(own, ...parts);
  const base = process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
  return join(base, 'toolyard', ...parts);
}
