#!/usr/bin/env node
// Runs the TypeScript sources directly (Node >= 22.18 strips types). The container image runs the bundle instead.
import { main } from '../sandbox-manager/main.ts';

main(process.argv.slice(2)).catch((error) => {
  process.stderr.write(`toolyard-sandbox-manager: ${error?.stack ?? error}\n`);
  process.exit(1);
});
