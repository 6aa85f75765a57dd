/** `npm run backend-clis`: installs the pinned agent CLIs and the MCP Inspector (once) and prints where. */
import { installBackendClis } from './backend-clis.ts';

const dir = installBackendClis((line) => process.stderr.write(`${line}\n`));
process.stdout.write(`${dir}\n`);
