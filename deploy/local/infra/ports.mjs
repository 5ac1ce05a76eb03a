// TCP ports: free ones for test mode, waiting for a listener, refusing a taken dev port.
// Part of deploy/local/infra.mjs, which is the entry point (API and CLI).

import net from 'node:net';
import { CLI_NAME } from './constants.mjs';
import { sleep } from './util.mjs';

////////// Ports

function listen(server, port) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host: '127.0.0.1', exclusive: true }, resolve);
  });
}

const close = (server) => new Promise((resolve) => server.close(() => resolve()));

// Ports already handed out by this process, so parallel starts never pick the same one.
const portsHandedOut = new Set();

/** Finds count free loopback ports by binding port 0 (all held open together so they differ). */
export async function freePorts(count) {
  const servers = [];
  const ports = [];
  try {
    while (ports.length < count) {
      const server = net.createServer();
      await listen(server, 0);
      servers.push(server);
      const { port } = server.address();
      if (portsHandedOut.has(port)) continue;
      portsHandedOut.add(port);
      ports.push(port);
    }
  } finally {
    await Promise.all(servers.map(close));
  }
  return ports;
}

async function isPortFree(port) {
  const server = net.createServer();
  try {
    await listen(server, port);
    return true;
  } catch (error) {
    if (error.code === 'EADDRINUSE' || error.code === 'EACCES') return false;
    throw error;
  } finally {
    if (server.listening) await close(server);
  }
}

function canConnect(port, timeoutMs = 1_000) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const finish = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

export async function waitForTcp(port, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!(await canConnect(port))) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

/**
 * Dev mode uses fixed ports. A port that is taken is reported with the likely culprit: a dev
 * process of ours (stop it with `down`), or something else.
 */
export async function assertDevPortFree(port, what, ourPid) {
  if (await isPortFree(port)) return;
  const culprit = ourPid
    ? `by ${what} from a previous dev run (pid ${ourPid}). Stop it with: ${CLI_NAME} down`
    : `by another process (find it with: ss -ltnp 'sport = :${port}'). Stop it, or run with --mode test to use free ports`;
  throw new Error(`${what} port 127.0.0.1:${port} is already in use ${culprit}`);
}
