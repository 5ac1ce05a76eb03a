// The compose smoke test's merchant view: signed requests, the back office, and a callback sink that verifies signatures.
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { signatureHeaders } from './common.mjs';

export function merchantClient(baseUrl, merchant) {
  return async (method, path, body) => {
    const raw = body === undefined ? '' : JSON.stringify(body);
    const startedAt = Date.now();
    try {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { ...signatureHeaders(merchant.merchant_id, merchant.api_secret, path, raw), ...(raw ? { 'content-type': 'application/json' } : {}) },
        body: raw || undefined,
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null, ms: Date.now() - startedAt };
    } catch (error) {
      return { status: 0, body: { error: String(error) }, ms: Date.now() - startedAt };
    }
  };
}

export async function backofficeCall(baseUrl, token, method, path, body) {
  const response = await fetch(`${baseUrl}/backoffice/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, body: await response.json().catch(() => null) };
}

/**
 * The merchant's callback endpoint on the Docker host: keeps each callback that verifies. Not the
 * tests' CallbackReceiver (libs/shared/testing): this script runs on plain Node, without the
 * TypeScript loader and the @mp/* aliases that library needs (docs/decisions/one-callback-receiver.md).
 */
export async function startSink(host, webhookSecret) {
  const verified = [];
  let rejected = 0;
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        new Webhook(webhookSecret).verify(body, request.headers);
        verified.push({ id: request.headers['webhook-id'], body: JSON.parse(body) });
        response.writeHead(200).end();
      } catch {
        rejected += 1;
        response.writeHead(400).end();
      }
    });
  });
  await new Promise((done) => server.listen(0, host, done));
  return { verified, rejected: () => rejected, port: server.address().port, stop: () => new Promise((done) => server.close(done)) };
}

/** The Docker host's address on the default bridge: what host.docker.internal (host-gateway) resolves to. */
export function dockerHostAddress() {
  const gateway = spawnSync('docker', ['network', 'inspect', 'bridge', '-f', '{{range .IPAM.Config}}{{.Gateway}}{{end}}'], { encoding: 'utf8' }).stdout.trim();
  return gateway || '172.17.0.1';
}

export const toMinor = (decimal) => {
  const [whole, fraction = ''] = String(decimal).split('.');
  return BigInt(whole) * 100n + BigInt((fraction + '00').slice(0, 2)) * (String(decimal).startsWith('-') ? -1n : 1n);
};

/** The settlement balance's available amount of `currency`, in minor units (GET /v2/merchant/balances). */
export function availableMinor(balances, currency) {
  const entry = balances?.settlement?.find((candidate) => candidate.currency === currency);
  return entry ? toMinor(entry.available) : 0n;
}
