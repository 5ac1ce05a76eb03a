#!/usr/bin/env node
// Runs a TypeScript entry point of the workspace without a build step: SWC transpiles
// (with decorator metadata, which Nest's injection needs) and tsconfig paths resolve `@mp/*`.
const path = require('node:path');
process.env.TS_NODE_PROJECT = process.env.TS_NODE_PROJECT || path.join(__dirname, '..', 'tsconfig.json');
process.env.TS_NODE_SWC = 'true';
process.env.TS_NODE_TRANSPILE_ONLY = 'true';
require('ts-node/register');
require('tsconfig-paths/register');
const entry = process.argv[2];
if (!entry) {
  console.error('usage: node tools/run-ts.js <entry.ts> [args...]');
  process.exit(2);
}
process.argv.splice(1, 1);
require(path.resolve(entry));
