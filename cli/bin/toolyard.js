#!/usr/bin/env node
// The toolyard CLI. Runs TypeScript sources directly (Node >= 22.18 strips types); see README.
import { main } from '../src/main.ts';

process.exitCode = await main(process.argv.slice(2));
