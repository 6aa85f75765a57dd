#!/usr/bin/env node
// Runs the TypeScript sources directly (Node >= 22.18 strips types). The container image runs the bundle instead.
import { main } from '../broker/main.ts';

main(process.argv.slice(2)).catch((error) => {
  process.stderr.write(`toolyard-broker: ${error?.stack ?? error}\n`);
  process.exit(1);
});
