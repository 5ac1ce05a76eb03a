import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOG_SERVICE_NAMES, workspaceRoot, type ServiceName } from '@mp/shared-testing';
import { parse } from 'yaml';

/**
 * The environment the benchmark and the soak run the services with:
 * - each service's NODE_OPTIONS as docker-compose.yml sets them (its heap limits: old space and
 *   semi-space, docs/decisions/service-heap-limits.md), so memory and CPU are measured with the
 *   limits the services are deployed with, not V8's defaults for a 24 GiB machine. Read from the
 *   compose file itself (its `<<:` merges resolved), so the two cannot drift apart;
 * - the gateway's merchant rate limit lifted (capacity is what is measured; its cost, one
 *   statement per request, stays) and http callback URLs allowed (the callbacks go to the
 *   generator's sink on 127.0.0.1).
 */
export function benchedSystemEnvironment(): Partial<Record<ServiceName, Record<string, string>>> {
  const compose = parse(readFileSync(join(workspaceRoot, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, unknown> } | undefined>;
  };
  const environment: Partial<Record<ServiceName, Record<string, string>>> = {};
  for (const service of CATALOG_SERVICE_NAMES) {
    const nodeOptions = compose.services[service]?.environment?.['NODE_OPTIONS'];
    if (typeof nodeOptions !== 'string' || nodeOptions.trim() === '') throw new Error(`docker-compose.yml sets no NODE_OPTIONS for ${service}`);
    environment[service] = { NODE_OPTIONS: nodeOptions };
  }
  environment.gateway = {
    ...environment.gateway,
    GATEWAY_COMMAND_TIMEOUT_MS: '30000',
    GATEWAY_RATE_LIMIT_MERCHANT_PER_SECOND: '1000000',
    GATEWAY_RATE_LIMIT_MERCHANT_BURST: '1000000',
    ALLOW_HTTP_CALLBACK_URLS: 'true',
  };
  return environment;
}
