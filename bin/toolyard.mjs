#!/usr/bin/env node
// The `toolyard` bin. The published package runs the compiled build in lib/ (Node >= 20.19); a checkout, which
// has the TypeScript sources and runs them on Node >= 22.18, runs cli/bin/toolyard.js instead, so `npx toolyard`
// there always runs the code as it is, without a build step.
import { existsSync } from 'node:fs';
import { requireTypeScriptNode } from './checkout-node.mjs';

const checkout = new URL('../cli/bin/toolyard.js', import.meta.url);
if (existsSync(checkout)) {
  requireTypeScriptNode('toolyard');
  await import(checkout.href);
} else {
  const { main } = await import('../lib/cli/src/main.js');
  process.exitCode = await main(process.argv.slice(2));
}
