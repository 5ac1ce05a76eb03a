import { Inject, Injectable } from '@nestjs/common';
import { callbackDestinationIssue, type CallbackDestinationRules } from '@mp/contracts-callbacks';
import { DomainError } from '@mp/shared-util-errors';
import { DataSource } from 'typeorm';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';

export interface CallbackAllowList {
  merchant_id: string;
  entries: string[];
  updated_at: string | null;
  updated_by: string | null;
}

/** How many merchants' allow-lists one gateway replica keeps; past it the cache starts over. */
const ALLOW_LIST_CACHE_ENTRIES_MAX = 10_000;

/**
 * Where a merchant's callbacks may go, checked when the gateway accepts a callback URL (an
 * order's `callback_url`, the merchant's `default_callback_url`): https only unless
 * ALLOW_HTTP_CALLBACK_URLS, a port of CALLBACK_ALLOWED_PORTS, and a host on the merchant's
 * allow-list when the operator set one. The dispatcher applies the same rule before each attempt.
 *
 * The check on a create reads the allow-list from a cache kept as long as the merchant's
 * credentials (CREDENTIAL_CACHE_TTL_MS), so a pay-in costs no database round trip for it
 * (issue 21). A list an operator narrows holds at once on the replica that stored it and within
 * the TTL on the others. A destination accepted meanwhile is checked again by the dispatcher
 * before every attempt, against the list it reads with the merchant's webhook profile
 * (CALLBACK_PROFILE_CACHE_TTL_MS): the gateway's cache adds no delay to a removal there.
 */
@Injectable()
export class CallbackDestinationPolicy {
  private readonly rules: CallbackDestinationRules;
  private readonly cacheTtlMs: number;
  private readonly cachedEntries = new Map<string, { entries: string[]; expiresAtMs: number }>();

  constructor(
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
    @Inject(DataSource) private readonly dataSource: DataSource,
  ) {
    this.rules = { allowHttp: settings.allowHttpCallbackUrls, allowedPorts: settings.callbackAllowedPorts };
    this.cacheTtlMs = settings.credentialCacheTtlMs;
  }

  /** 400 VALIDATION_ERROR on `field` when `url` may not receive this merchant's callbacks. */
  async assertAcceptable(merchantId: string | null, url: string | null | undefined, field: string): Promise<void> {
    if (url === null || url === undefined) return;
    const allowList = merchantId === null ? [] : await this.cachedAllowListOf(merchantId);
    const issue = callbackDestinationIssue(url, this.rules, allowList);
    if (issue) throw new DomainError('VALIDATION_ERROR', `The ${field} is not an allowed callback destination: ${issue}`, [{ field, issue }]);
  }

  private async cachedAllowListOf(merchantId: string, nowMs = Date.now()): Promise<string[]> {
    const cached = this.cachedEntries.get(merchantId);
    if (cached && cached.expiresAtMs > nowMs) return cached.entries;
    const { entries } = await this.allowListOf(merchantId);
    if (this.cacheTtlMs > 0) {
      if (this.cachedEntries.size >= ALLOW_LIST_CACHE_ENTRIES_MAX) this.cachedEntries.clear();
      this.cachedEntries.set(merchantId, { entries, expiresAtMs: nowMs + this.cacheTtlMs });
    }
    return entries;
  }

  /** The stored list, read fresh: what operators see and what the dispatcher checks against. */
  async allowListOf(merchantId: string): Promise<CallbackAllowList> {
    const rows = (await this.dataSource.query(`SELECT entries, updated_at, updated_by FROM merchant_callback_allow_lists WHERE merchant_id = $1`, [
      merchantId,
    ])) as Array<{ entries: string[]; updated_at: Date; updated_by: string }>;
    const row = rows[0];
    return { merchant_id: merchantId, entries: row?.entries ?? [], updated_at: row ? row.updated_at.toISOString() : null, updated_by: row?.updated_by ?? null };
  }

  /** 404 NOT_FOUND for an id that names no merchant (operators' routes). */
  async requireMerchant(merchantId: string): Promise<void> {
    const exists = (await this.dataSource.query('SELECT 1 FROM merchants WHERE merchant_id = $1', [merchantId])) as unknown[];
    if (exists.length === 0) throw new DomainError('NOT_FOUND', 'No such merchant');
  }

  /** Replaces the list; an empty one lifts the restriction; 404 for an unknown merchant. */
  async setAllowList(merchantId: string, entries: string[], actor: string): Promise<CallbackAllowList> {
    await this.requireMerchant(merchantId);
    await this.dataSource.query(
      `INSERT INTO merchant_callback_allow_lists (merchant_id, entries, updated_at, updated_by) VALUES ($1, $2, now(), $3)
       ON CONFLICT (merchant_id) DO UPDATE SET entries = EXCLUDED.entries, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by`,
      [merchantId, entries, actor],
    );
    this.cachedEntries.delete(merchantId);
    return this.allowListOf(merchantId);
  }
}
