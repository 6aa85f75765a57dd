#!/usr/bin/env node
// The `toolyard-sandbox-manager` bin. The published package runs the self-contained manager bundle (the file that
// the image puts at /opt/toolyard/toolyard-sandbox-manager.mjs); a checkout runs the TypeScript sources instead.
import { existsSync } from 'node:fs';

const checkout = new URL('../toolchain-server/bin/toolyard-sandbox-manager.js', import.meta.url);
await import(existsSync(checkout) ? checkout.href : '../toolchain-server/dist/toolyard-sandbox-manager.mjs');
