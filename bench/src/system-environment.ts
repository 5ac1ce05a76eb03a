import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOG_SERVICE_NAMES, workspaceRoot, type ServiceName } from '@mp/shared-testing';
import { parse } from 'yaml';

/**
 * The environment the benchmark and the soak run the services with:
 * - each service's NODE_OPTIONS, MALLOC_ARENA_MAX and LOG_FORMAT as docker-compose.yml sets them, read from the
 *   file itself (its `<<:` merges resolved), so the two cannot drift apart: memory and CPU are
 *   measured with the heap limits the services are deployed with (docs/decisions/service-heap-limits.md),
 *   not V8's defaults for a 24 GiB machine, and with JSON log lines, not the readable lines a
 *   developer's terminal gets (formatting those parses every line again: about 6 % of a
 *   consumer's busy time, which no deployment spends);
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
    const deployed = compose.services[service]?.environment ?? {};
    environment[service] = Object.fromEntries(
      ['NODE_OPTIONS', 'MALLOC_ARENA_MAX', 'LOG_FORMAT'].map((name) => {
        const value = deployed[name];
        if (typeof value !== 'string' || value.trim() === '') throw new Error(`docker-compose.yml sets no ${name} for ${service}`);
        return [name, value];
      }),
    );
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
