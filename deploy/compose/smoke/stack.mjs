// Steps 1 and 2 of the compose smoke test: the Docker engine and base images, then the stack up and healthy.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { catalogServices } from '../../catalog/catalog.mjs';
import { composeSecrets } from '../../../tools/generate-secrets.mjs';
import { BASE_IMAGES, PROJECT, SmokeFailure, check, composeCommand, dockerWorks, imagePresent, root, run, say, sleep } from './common.mjs';

export function baseImageScript() {
  const script = resolve(process.env.OFFLINE_BASE_IMAGES_SCRIPT ?? join(root, '../shared/tools/offline-base-images.sh'));
  return existsSync(script) ? script : null;
}

/** The label the base-image script puts on the stand-ins it bakes: a real image from a registry has none. */
export const OFFLINE_STAND_IN_LABEL = 'offline-base-images.recipe';

/**
 * On a machine with no registry, the base-image script bakes stand-ins under major tags only
 * (postgres:15-bookworm, node:24-bookworm-slim), while the files pin patch releases
 * (postgres:15.20-bookworm, node:24.22.3-bookworm-slim) as a deployment should. The pinned name
 * is given to the stand-in of its major, and only to a stand-in: a real image of the major tag is
 * never passed off as the pinned release. Elsewhere compose pulls the pinned images as written.
 */
export function aliasOfflineStandIn(pinned) {
  const standIn = pinned.replace(/^([^:]+):(\d+)(?:\.\d+)+(-.+)?$/, '$1:$2$3');
  if (standIn === pinned || !imagePresent(standIn)) return;
  if (inspect(standIn, `{{index .Config.Labels "${OFFLINE_STAND_IN_LABEL}"}}`) === '') return;
  spawnSync('docker', ['tag', standIn, pinned]);
  say(`offline stand-in ${standIn} tagged as ${pinned} (no registry here)`);
}

export async function prepareDocker() {
  const engineWasRunning = dockerWorks();
  const missing = engineWasRunning ? BASE_IMAGES.filter((image) => !imagePresent(image)) : BASE_IMAGES;
  if (engineWasRunning && missing.length === 0) return { startedEngine: false, script: baseImageScript() };
  const script = baseImageScript();
  if (!script) {
    check(engineWasRunning, 'no Docker engine is running, and there is no base-image script to start one (OFFLINE_BASE_IMAGES_SCRIPT)');
    say(`base images missing (${missing.join(', ')}): compose will pull them`);
    return { startedEngine: false, script: null };
  }
  await run('bash', [script, '--for', root], { quiet: true });
  check(dockerWorks(), `the Docker engine is not running after ${script}`);
  // The script bakes major tags (postgres:15, node:24-bookworm-slim); a pinned patch tag it cannot
  // bake would make compose try a registry this machine may not reach: say so now, plainly.
  for (const image of BASE_IMAGES.filter((candidate) => !imagePresent(candidate))) aliasOfflineStandIn(image);
  const stillMissing = BASE_IMAGES.filter((image) => !imagePresent(image));
  if (stillMissing.length > 0) say(`base images still missing after ${script} (${stillMissing.join(', ')}): compose will try to pull them`);
  return { startedEngine: !engineWasRunning, script };
}

////////// Step 2: the stack

export function secretsEnvFile(directory, gatewayPort, sinkCidr) {
  const values = {
    // Fresh secrets, made as `npm run secrets:generate` makes them for a real .env.
    ...composeSecrets(),
    GATEWAY_PUBLISH_ADDRESS: '127.0.0.1',
    GATEWAY_PUBLISH_PORT: String(gatewayPort),
    PUBLIC_BASE_URL: `http://127.0.0.1:${gatewayPort}`,
    // The callback sink runs on the Docker host: http, and its private address allowed.
    ALLOW_HTTP_CALLBACK_URLS: 'true',
    CALLBACK_ALLOWED_DESTINATIONS: sinkCidr,
    // The sink listens on an ephemeral port.
    CALLBACK_ALLOWED_PORTS: '1-65535',
    // Every payer page of the load phase comes from this one host: more than one payer's share.
    GATEWAY_RATE_LIMIT_ADDRESS_PER_SECOND: '1000',
    GATEWAY_RATE_LIMIT_ADDRESS_BURST: '1000',
    KAFKA_HEAP_OPTS: '-Xms384m -Xmx384m',
    // A crashed gateway's reply topic is swept within seconds here, not the default ten minutes.
    GATEWAY_REPLY_TOPIC_GRACE_SECONDS: '5',
    GATEWAY_REPLY_TOPIC_SWEEP_SECONDS: '2',
  };
  const file = join(directory, 'smoke.env');
  writeFileSync(
    file,
    Object.entries(values)
      .map(([name, value]) => `${name}=${value}`)
      .join('\n') + '\n',
    { mode: 0o600 },
  );
  return { file, values };
}

export function compose(envFile) {
  const [command, prefix] = composeCommand();
  // No profile for `up`: the first operator must be the bootstrap command's, and the demo comes after it.
  const base = [...prefix, '-p', PROJECT, '-f', join(root, 'docker-compose.yml'), '--project-directory', root, '--env-file', envFile];
  const withProfiles = [...base, '--profile', 'demo', '--profile', 'bootstrap'];
  return {
    run: (args, options) => run(command, [...base, ...args], options),
    /** With the demo and bootstrap profiles, for commands that name their services. */
    withProfiles: (args, options) => run(command, [...withProfiles, ...args], options),
    containers: async (service) =>
      (await run(command, [...withProfiles, 'ps', '-q', service], { quiet: true })).output
        .split('\n')
        .filter((id) => /^[0-9a-f]{12,}$/.test(id.trim()))
        .map((id) => id.trim()),
  };
}

export function inspect(container, format) {
  return spawnSync('docker', ['inspect', '-f', format, container], { encoding: 'utf8' }).stdout.trim();
}

/** Waits until every container of `services` is healthy, and every one-shot of `oneShots` exited 0. */
export async function waitHealthy(stack, services, oneShots = [], timeoutMs = 300_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = [];
    for (const service of services) {
      const ids = await stack.containers(service);
      if (ids.length === 0) pending.push(`${service} (no container)`);
      for (const id of ids) {
        const health = inspect(id, '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}');
        if (health !== 'healthy') pending.push(`${service} ${id.slice(0, 12)} ${health}`);
      }
    }
    for (const service of oneShots) {
      for (const id of await stack.containers(service)) {
        const [status, exitCode] = inspect(id, '{{.State.Status}} {{.State.ExitCode}}').split(' ');
        if (status === 'exited' && exitCode !== '0') throw new SmokeFailure(`${service} exited with ${exitCode}`);
        if (status !== 'exited') pending.push(`${service} ${status}`);
      }
    }
    if (pending.length === 0) return;
    if (Date.now() > deadline) throw new SmokeFailure(`not healthy after ${timeoutMs / 1000} s: ${pending.join(', ')}`);
    await sleep(1000);
  }
}

/**
 * `service_healthy` must mean ready: every container Docker reports healthy answers
 * /health/ready (the catalog's health.ready) with 200, asked from inside the container. Also
 * that each runs read-only, without capabilities and under a memory limit.
 */
export async function healthyMeansReady(stack) {
  const answers = [];
  for (const service of catalogServices) {
    for (const id of await stack.containers(service.name)) {
      const health = inspect(id, '{{if .State.Health}}{{.State.Health.Status}}{{end}}');
      // As the image's health check dials it: every port but the gateway's public one is an internal listener, HTTPS here.
      const scheme = service.name === 'gateway' ? 'http' : 'https';
      const probe = `fetch('${scheme}://127.0.0.1:${service.devPort}${service.health.ready}', { signal: AbortSignal.timeout(5000) }).then((r) => console.log(r.status), (e) => console.log('error ' + e.message))`;
      const status = (await run('docker', ['exec', id, 'node', '-e', probe], { quiet: true, allowFailure: true })).output.trim();
      answers.push(`${service.name} ${id.slice(0, 12)} ${health}: ${status}`);
      // The compose conventions reached the engine (1.29 and v2 both): read-only root, no capabilities, a memory limit.
      const [readOnly, memory, capDrop] = inspect(id, '{{.HostConfig.ReadonlyRootfs}} {{.HostConfig.Memory}} {{json .HostConfig.CapDrop}}').split(' ');
      check(
        readOnly === 'true' && Number(memory) > 0 && capDrop === '["ALL"]',
        `${service.name} ${id.slice(0, 12)}: read-only ${readOnly}, memory limit ${memory}, cap_drop ${capDrop}`,
      );
      check(health === 'healthy' && status === '200', `${service.name} ${id.slice(0, 12)} is ${health}, and ${service.health.ready} answered ${status}`);
    }
  }
  return answers;
}
