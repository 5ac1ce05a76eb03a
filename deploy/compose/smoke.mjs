#!/usr/bin/env node
/**
 * The compose smoke test (npm run compose:smoke): the root docker-compose.yml, built and run as
 * an operator would, then proven to lose and duplicate nothing after replicas are killed.
 *
 *   1. Docker: uses the running engine. When there is none, or the public base images are missing
 *      and cannot be pulled (a machine without a registry), runs the base-image script named by
 *      OFFLINE_BASE_IMAGES_SCRIPT (default ../shared/tools/offline-base-images.sh next to the
 *      repository, when it exists), which installs and starts the engine and bakes the images.
 *   2. Builds the images, brings the stack up under its own project name with fresh random
 *      secrets, and waits for every service to be healthy and for `init` to succeed. The first
 *      operator is made with the shipped command (`run --rm bootstrap-operator`), which refuses
 *      a second run, and signs in to the console and the back office; then `demo` runs.
 *   3. Walk-through: the demo merchant, a pay-in, the agent's confirm, a callback verified with
 *      the merchant's webhook secret (Standard Webhooks), and the balance; then the console the
 *      gateway serves: its page and bundle under the console's CSP, and the demo agent signed in.
 *   4. Restarts the gateway three times (two clean stops, one SIGKILL) and counts its reply
 *      topics on the broker after each: they must not grow with the restarts.
 *   5. Scales payments and ledger to 2 replicas each, kills one replica of each with `docker
 *      kill` (SIGKILL), then sends a steady pay-in load: the survivors must take over the killed
 *      replicas' partitions across containers. (That a replica killed *under* load loses nothing
 *      is proven once per test run, by the chaos run: docs/testing.md.)
 *   6. Checks that nothing was lost or duplicated: every acknowledged pay-in is completed exactly
 *      once, the balance moved by exactly their net amounts, each has its callback, and the
 *      money audit (npm run audit, every database) passes.
 *   7. Stops the services (SIGTERM, as `docker compose stop` does) and checks that each container
 *      still running exits 0.
 *   8. Tears the stack down with its volumes (also on failure), and stops the engine if it
 *      started it. Prints the timings of each step and the takeover figures.
 *
 * Exit code 0 when every check passed. Set COMPOSE_SMOKE_KEEP=1 to leave the stack up on failure.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOAD_RATE, LOAD_SECONDS, LONG_RUNNING, SCALE, SmokeFailure, check, root, run, say, timed, timings } from './smoke/common.mjs';
import { compose, healthyMeansReady, inspect, prepareDocker, secretsEnvFile, waitHealthy } from './smoke/stack.mjs';
import { dockerHostAddress, startSink } from './smoke/merchant.mjs';
import { bootstrapFirstOperator, consoleSignIn, walkThrough } from './smoke/walk-through.mjs';
import { forgedProduces, internalTlsOnly, killThenLoad, restartGatewayCountingTopics, takeoverFigures, verifyNothingLost } from './smoke/resilience.mjs';

////////// Main

async function main() {
  const startedAt = Date.now();
  const docker = await timed('Docker engine and base images', prepareDocker);
  const workDir = mkdtempSync(join(tmpdir(), 'compose-smoke-'));
  const hostAddress = dockerHostAddress();
  let sink = null;
  let stack = null;
  let failure = null;
  try {
    const gatewayPort = await new Promise((done) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address();
        probe.close(() => done(port));
      });
    });
    const secrets = secretsEnvFile(workDir, gatewayPort, `${hostAddress}/32`);
    stack = compose(secrets.file);
    await stack.withProfiles(['down', '-v', '--remove-orphans'], { quiet: true, allowFailure: true });
    // The file as compose itself reads it (1.29 here, v2 elsewhere): with this run's secrets, and with the documented example.
    await timed("docker-compose config -q (no .env, this run's .env, and .env.example)", async () => {
      // An empty file, not the .env a developer may keep next to docker-compose.yml: the file as cloned.
      const noVariables = join(workDir, 'empty.env');
      writeFileSync(noVariables, '');
      await compose(noVariables).run(['config', '-q'], { quiet: true });
      await stack.run(['config', '-q'], { quiet: true });
      await compose(join(root, '.env.example')).run(['config', '-q'], { quiet: true });
    });
    await timed('build the images (compose build)', () => stack.run(['build'], { quiet: true }));
    await timed('compose up to healthy', async () => {
      await stack.run(['up', '-d'], { quiet: true });
      await waitHealthy(stack, LONG_RUNNING, ['init']);
    });
    const readiness = await timed('every healthy service answers /health/ready 200 (and runs read-only, no capabilities, memory-limited)', () =>
      healthyMeansReady(stack),
    );
    say(`readiness: ${readiness.join('; ')}`);
    const baseUrl = `http://127.0.0.1:${gatewayPort}`;
    await timed('the first operator: bootstrap-operator once (a second run refused), signed in to the console and the back office', () =>
      bootstrapFirstOperator({ stack, baseUrl }),
    );
    await timed('demo', async () => {
      // --no-deps: what demo waits for is up and healthy already; without it compose 1.29 reruns the one-shots (kafka-users, init).
      await stack.withProfiles(['up', '-d', '--no-deps', 'demo'], { quiet: true });
      await waitHealthy(stack, [], ['demo']);
    });
    const banner = (await stack.withProfiles(['logs', '--no-color', 'demo'], { quiet: true })).output;
    check(banner.includes('merchant x-api-key') && banner.includes('agent token'), `the demo service printed no credentials:\n${banner}`);
    const demo = JSON.parse(
      (await stack.withProfiles(['run', '--rm', '--no-deps', 'demo', 'node', 'dist/apps/ops/src/demo.js', '--json'], { quiet: true })).output
        .trim()
        .split('\n')
        .pop(),
    );
    // Bound to the Docker host's bridge address only: reachable from the containers, not beyond this machine.
    sink = await startSink(hostAddress, demo.webhook_secret);
    const sinkUrl = `http://host.docker.internal:${sink.port}/callbacks`;
    await timed('walk-through (pay-in, confirm, verified callback, balance)', () => walkThrough({ baseUrl, demo, sink, sinkUrl }));
    await timed('console: the page, its bundle, an agent signed in reading its queue', () => consoleSignIn({ baseUrl, demo }));
    await timed('internal HTTP: every internal listener answers HTTPS from the platform CA, and not clear HTTP', () => internalTlsOnly({ stack }));
    await timed('Kafka ACLs: a forged RequestWithdrawal as the payments principal is refused, a wrong password too', () =>
      forgedProduces({ stack, secrets: secrets.values }),
    );
    const replyTopicCounts = await timed('gateway restarted three times (SIGTERM, SIGTERM, SIGKILL): its reply topics do not grow', () =>
      restartGatewayCountingTopics({ stack, baseUrl, demo }),
    );
    say(`gateway reply topics (with their dead-letter topics) after each restart: ${replyTopicCounts.join(', ')}`);
    // A step of its own, after the stack is healthy: eight services starting at once on two cores
    // can take longer than the images' health start period.
    await timed('scale payments and ledger to 2 replicas', async () => {
      await stack.run(['up', '-d', '--no-recreate', ...SCALE], { quiet: true });
      await waitHealthy(stack, ['payments', 'ledger']);
      check(
        (await stack.containers('payments')).length === 2 && (await stack.containers('ledger')).length === 2,
        'payments and ledger did not scale to 2 replicas',
      );
    });
    const load = await timed(`a payments and a ledger replica killed, then ${LOAD_SECONDS} s of pay-ins at ${LOAD_RATE}/s`, () =>
      killThenLoad({ stack, baseUrl, demo, sinkUrl }),
    );
    const proof = await timed('verify nothing lost or duplicated (status reads, balance, callbacks, money audit)', () =>
      verifyNothingLost({ stack, baseUrl, demo, sink, load }),
    );
    check(sink.rejected() === 0, `${sink.rejected()} callbacks failed signature verification`);
    say(
      `${proof.confirmed} pay-ins completed, balance +${proof.expected} minor units as expected, ${sink.verified.length} callbacks verified, money audit: ${proof.audit}`,
    );
    for (const line of takeoverFigures(load)) say(`takeover: ${line}`);
    await timed('graceful stop: every service exits 0 on SIGTERM (compose stop)', async () => {
      const services = LONG_RUNNING.filter((service) => !['postgres', 'kafka'].includes(service));
      // The killed replicas stay down (`docker kill` is an operator's stop, which the restart policy respects).
      const killed = new Set(load.kills.map(({ container }) => container));
      const containers = (await Promise.all(services.map(async (service) => (await stack.containers(service)).map((id) => ({ service, id })))))
        .flat()
        .filter(({ id }) => !killed.has(id));
      await stack.run(['stop', '-t', '30', ...services], { quiet: true });
      const unclean = containers
        .map(({ service, id }) => ({ service, id, exitCode: inspect(id, '{{.State.ExitCode}}') }))
        .filter(({ exitCode }) => exitCode !== '0');
      check(
        unclean.length === 0,
        `not a clean exit on SIGTERM: ${unclean.map(({ service, id, exitCode }) => `${service} ${id.slice(0, 12)} exit ${exitCode}`).join(', ')}`,
      );
    });
  } catch (error) {
    failure = error;
    if (stack) {
      const logs = await stack.run(['logs', '--no-color', '--tail', '30'], { quiet: true, allowFailure: true });
      console.error(logs.output);
    }
  } finally {
    await sink?.stop();
    if (stack && !(failure && process.env.COMPOSE_SMOKE_KEEP === '1'))
      await timed('compose down -v', () => stack.withProfiles(['down', '-v', '--remove-orphans'], { quiet: true, allowFailure: true }));
    rmSync(workDir, { recursive: true, force: true });
    if (docker.startedEngine && docker.script) await run('bash', [docker.script, '--stop'], { quiet: true, allowFailure: true });
  }
  say('timings:');
  for (const [step, seconds] of timings) say(`  ${step.padEnd(90)} ${seconds.toFixed(1)} s`);
  say(`total ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  if (failure) {
    say(`FAILED: ${failure instanceof Error ? failure.message : failure}`);
    if (!(failure instanceof SmokeFailure)) console.error(failure);
    return 1;
  }
  say('passed');
  return 0;
}

process.exit(await main());
