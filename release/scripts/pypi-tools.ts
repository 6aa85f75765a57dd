/**
 * `npm run pypi-tools [--all]`: fetches the pinned uv and ruff wheels from PyPI (once, into the cache) for this
 * machine's architecture (`--all`: amd64 and arm64, as `npm run images` needs them) and prints each executable.
 * The tests that run uv and ruff take them from there; `npm test` runs this first.
 */
import { fetchPypiTools, hostPypiArchitecture, type PypiArchitecture } from '../src/pypi-tools.ts';

const architectures: PypiArchitecture[] = process.argv.includes('--all')
  ? ['amd64', 'arm64']
  : [hostPypiArchitecture()];
for (const architecture of architectures)
  for (const tool of await fetchPypiTools(architecture, (line) => process.stderr.write(`${line}\n`)))
    process.stdout.write(`${tool.executable}\n`);
