#!/usr/bin/env node
// The `toolyard-toolchain-server` bin. The published package runs the self-contained server bundle (the file
// that images put at /opt/toolyard/toolchain-server.mjs); a checkout runs the TypeScript sources instead.
import { existsSync } from 'node:fs';
import { requireTypeScriptNode } from './checkout-node.mjs';

const checkout = new URL('../toolchain-server/bin/toolyard-toolchain-server.js', import.meta.url);
if (existsSync(checkout)) requireTypeScriptNode('toolyard-toolchain-server');
await import(existsSync(checkout) ? checkout.href : '../toolchain-server/dist/toolchain-server.mjs');
