#!/usr/bin/env node
/**
 * `node bench/cpu-profile-summary.mjs DIR [--top 12]`: where each service's CPU went, by what
 * ran it, from the V8 profiles `npm run bench -- --quick --cpu-prof DIR` leaves (one
 * `*.cpuprofile` per service process; the summary names each process by the entry point in its
 * profile). Each sample goes to the package whose code was running (`node_modules/<package>`) or
 * to the workspace's code by library or app (`libs/<context>/<lib>`, `apps/<app>`); time in
 * Node's own code (`node:` streams, sockets, crypto) and in V8 builtins (JSON.parse, Buffer) goes
 * to the nearest caller of those, since that is who asked for it (kafkajs' socket writes count
 * as kafkajs). V8's `(garbage collector)` and `(program)` stay apart, and `(idle)` is left out,
 * so the shares are of busy time.
 *
 * Written here rather than taken from a package: the profile is plain JSON (nodes with a call
 * frame and a hit count, plus the sample times), and the grouping by this repository's layout is
 * what is wanted; speedscope or Chrome's DevTools show one profile at a time and group by function.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: options, positionals } = parseArgs({ options: { top: { type: 'string', default: '12' } }, allowPositionals: true });
const [directory] = positionals;
if (!directory) {
  console.error('usage: node bench/cpu-profile-summary.mjs DIR [--top 12]');
  process.exit(2);
}
const TOP = Number(options.top);

/** What a call frame's code belongs to, by its URL in this repository's layout. */
function ownerOf(callFrame) {
  const { url, functionName } = callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const [first, second] = url.slice(modules + '/node_modules/'.length).split('/');
    return first.startsWith('@') ? `${first}/${second}` : first;
  }
  const workspace = /\/dist\/(libs\/[^/]+\/[^/]+|apps\/[^/]+|bench)\//.exec(url) ?? /\/(libs\/[^/]+\/[^/]+|apps\/[^/]+|bench)\//.exec(url);
  return workspace ? workspace[1] : url;
}

/** The service a profile came from: the app whose main.js is in it. */
function serviceOf(profile) {
  for (const node of profile.nodes) {
    const match = /\/apps\/([^/]+)\/src\/main\.js$/.exec(node.callFrame.url);
    if (match) return match[1];
  }
  return 'unknown';
}

/** Owners that ran on behalf of a caller: their time goes to the nearest caller that is not one of them. */
const ON_BEHALF = new Set(['node', '(native)', '(root)']);

/** Each node's owner, with Node's and V8's own code given to the nearest caller outside them. */
function attributedOwners(profile) {
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const attributed = new Map();
  const resolve = (id) => {
    if (attributed.has(id)) return attributed.get(id);
    const own = ownerOf(byId.get(id).callFrame);
    const parent = parentOf.get(id);
    const owner = ON_BEHALF.has(own) ? (parent === undefined ? 'node' : resolve(parent)) : own;
    attributed.set(id, owner);
    return owner;
  };
  for (const node of profile.nodes) resolve(node.id);
  return attributed;
}

/** Busy time in ms per owner, from the sample times (each sample's delta is the time it stands for). */
function selfTimeByOwner(profile) {
  const ownerOfNode = attributedOwners(profile);
  const byOwner = new Map();
  profile.samples.forEach((nodeId, index) => {
    const owner = ownerOfNode.get(nodeId);
    if (owner === '(idle)') return;
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + ms);
  });
  return byOwner;
}

const totals = new Map();
for (const file of readdirSync(directory).filter((name) => name.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(readFileSync(join(directory, file), 'utf8'));
  const service = serviceOf(profile);
  const byOwner = totals.get(service) ?? new Map();
  for (const [owner, ms] of selfTimeByOwner(profile)) byOwner.set(owner, (byOwner.get(owner) ?? 0) + ms);
  totals.set(service, byOwner);
}
if (totals.size === 0) {
  console.error(`no .cpuprofile in ${directory}`);
  process.exit(1);
}
for (const [service, byOwner] of [...totals].sort(([a], [b]) => a.localeCompare(b))) {
  const busy = [...byOwner.values()].reduce((sum, ms) => sum + ms, 0);
  console.log(`\n## ${service}: ${(busy / 1000).toFixed(1)} s busy\n\n| code | busy share |\n|---|---:|`);
  for (const [owner, ms] of [...byOwner].sort(([, a], [, b]) => b - a).slice(0, TOP)) console.log(`| ${owner} | ${((ms / busy) * 100).toFixed(1)} % |`);
}
