/**
 * Benchmark (prints figures, asserts nothing): what service authentication costs per internal
 * request, in CPU time on one core.
 *
 *   node tools/run-built.mjs bench/src/service-auth.bench.ts
 *
 * Four costs: signing a token (what a caller pays about once a minute per callee and actor),
 * a caller's cached header (what it pays per request), verifying a token the callee has not
 * seen (once per caller token), and a callee's check of a token it verified before plus the
 * allow-list (what it pays per request).
 */
import { performance } from 'node:perf_hooks';
import {
  parsePrivateKey,
  parsePublicKey,
  ServiceAuthenticator,
  ServiceKeyring,
  ServiceTokenIssuer,
  ServiceTokenVerifier,
  type ServiceName,
} from '@mp/shared-service-auth';

const ROUTE = '/internal/merchants/:merchantId/balances';

async function time(label: string, iterations: number, run: (index: number) => Promise<unknown>): Promise<void> {
  for (let index = 0; index < Math.min(iterations, 200); index += 1) await run(index);
  const startedCpu = process.cpuUsage();
  const started = performance.now();
  for (let index = 0; index < iterations; index += 1) await run(index);
  const wallUs = ((performance.now() - started) * 1000) / iterations;
  const cpu = process.cpuUsage(startedCpu);
  const cpuUs = (cpu.user + cpu.system) / iterations;
  console.log(`${label.padEnd(58)} ${cpuUs.toFixed(2).padStart(9)} µs CPU  ${wallUs.toFixed(2).padStart(9)} µs wall  (${iterations} runs)`);
}

async function main(): Promise<void> {
  const keyring = new ServiceKeyring();
  const privateKey = parsePrivateKey(keyring.keys.gateway.privateKey);
  const publicKeys = new Map<ServiceName, Array<ReturnType<typeof parsePublicKey>>>([['gateway', [parsePublicKey(keyring.keys.gateway.publicKey)]]]);
  const cached = new ServiceTokenIssuer('gateway', privateKey);
  const authenticator = new ServiceAuthenticator({ service: 'ledger', publicKeys }, { gateway: [`GET ${ROUTE}`] });
  const header = await cached.authorization('ledger');

  console.log(`service authentication, node ${process.version}, one process`);
  // A new actor each time defeats the cache: every call signs.
  await time('sign a token (caller, once a minute per callee and actor)', 2_000, (index) =>
    cached.authorization('ledger', { type: 'operator', id: `op_${index}` }),
  );
  await time('cached Authorization header (caller, per request)', 200_000, () => cached.authorization('ledger'));
  const fresh = await Promise.all(Array.from({ length: 2_200 }, (_, index) => cached.authorization('ledger', { type: 'agent', id: `agt_${index}` })));
  const verifier = new ServiceTokenVerifier('ledger', publicKeys);
  let next = 0;
  // Warm-up and measured runs both take the next unseen token.
  await time('verify a token not seen before (callee, once per token)', 2_000, () => verifier.verify(fresh[next++] ?? ''));
  await time('token seen before + allow-list (callee, per request)', 200_000, () => authenticator.authorize('GET', ROUTE, header));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
