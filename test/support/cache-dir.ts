/** Where tests keep what they install once (agent CLIs, Helm): outside the repository, reused across runs. */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$TOOLYARD_CACHE_DIR`, `$XDG_CACHE_HOME/toolyard` or `~/.cache/toolyard`. */
export function toolyardCacheDir(): string {
  return (
    process.env.TOOLYARD_CACHE_DIR ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'toolyard')
  );
}
