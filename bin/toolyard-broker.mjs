#!/usr/bin/env node
// The `toolyard-broker` bin. The published package runs the self-contained broker bundle (the file that the
// image puts at /opt/toolyard/toolyard-broker.mjs); a checkout runs the TypeScript sources instead.
import { existsSync } from 'node:fs';
import { requireTypeScriptNode } from './checkout-node.mjs';

const checkout = new URL('../toolchain-server/bin/toolyard-broker.js', import.meta.url);
if (existsSync(checkout)) requireTypeScriptNode('toolyard-broker');
await import(existsSync(checkout) ? checkout.href : '../toolchain-server/dist/toolyard-broker.mjs');
