import { DomainError } from '@mp/shared-util-errors';
import type { DataSource } from 'typeorm';
import type { GatewaySettings } from '../gateway-settings';
import { CallbackDestinationPolicy } from './callback-destination.policy';

/**
 * The allow-list cache: what a create reads, when it asks the database again, and that the
 * replica that stores a list uses it at once. The table is a map here; its SQL is exercised by
 * the callback allow-list end-to-end tests against PostgreSQL.
 */
function policyWith(credentialCacheTtlMs: number) {
  const lists = new Map<string, string[]>();
  const statements: string[] = [];
  const dataSource = {
    query: async (sql: string, parameters: unknown[]) => {
      statements.push(sql.trim().split(/\s+/)[0]);
      const merchantId = parameters[0] as string;
      if (sql.startsWith('SELECT entries')) return lists.has(merchantId) ? [{ entries: lists.get(merchantId), updated_at: new Date(0), updated_by: 'op' }] : [];
      if (sql.startsWith('SELECT 1 FROM merchants')) return [{}];
      if (sql.startsWith('INSERT')) lists.set(merchantId, parameters[1] as string[]);
      return [];
    },
  } as unknown as DataSource;
  const settings = { allowHttpCallbackUrls: false, callbackAllowedPorts: [[443, 443]], credentialCacheTtlMs } as unknown as GatewaySettings;
  return { policy: new CallbackDestinationPolicy(settings, dataSource), lists, reads: () => statements.filter((statement) => statement === 'SELECT').length };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => (error instanceof DomainError ? error.code : String(error)),
  );

describe('CallbackDestinationPolicy allow-list cache', () => {
  it('reads a merchant allow-list once per TTL for the checks on creates', async () => {
    const { policy, reads } = policyWith(30_000);
    for (let index = 0; index < 5; index += 1) await policy.assertAcceptable('mer_1', 'https://shop.example/cb', 'callback_url');
    expect(reads()).toBe(1);
  });

  it('applies a list stored on this replica at once, and refuses a host it leaves out', async () => {
    const { policy } = policyWith(30_000);
    await policy.assertAcceptable('mer_1', 'https://shop.example/cb', 'callback_url');
    await policy.setAllowList('mer_1', ['hooks.example'], 'op_1');
    expect(await refusal(policy.assertAcceptable('mer_1', 'https://shop.example/cb', 'callback_url'))).toBe('VALIDATION_ERROR');
    expect(await refusal(policy.assertAcceptable('mer_1', 'https://hooks.example/cb', 'callback_url'))).toBeNull();
  });

  it('keeps what another replica stored until the TTL runs out, then reads it', async () => {
    const { policy, lists } = policyWith(50);
    await policy.assertAcceptable('mer_1', 'https://shop.example/cb', 'callback_url');
    lists.set('mer_1', ['hooks.example']);
    expect(await refusal(policy.assertAcceptable('mer_1', 'https://shop.example/cb', 'callback_url'))).toBeNull();
    // A fixed window, not a condition: the 50 ms TTL runs out.
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await refusal(policy.assertAcceptable('mer_1', 'https://shop.example/cb', 'callback_url'))).toBe('VALIDATION_ERROR');
  });

  it('reads every time with CREDENTIAL_CACHE_TTL_MS=0, and operators always see the stored list', async () => {
    const { policy, reads } = policyWith(0);
    await policy.assertAcceptable('mer_1', 'https://shop.example/cb', 'callback_url');
    await policy.assertAcceptable('mer_1', 'https://shop.example/cb', 'callback_url');
    expect(reads()).toBe(2);
    const cached = policyWith(30_000);
    await cached.policy.assertAcceptable('mer_1', 'https://shop.example/cb', 'callback_url');
    cached.lists.set('mer_1', ['hooks.example']);
    expect((await cached.policy.allowListOf('mer_1')).entries).toEqual(['hooks.example']);
  });
});
