import { randomUUID } from 'node:crypto';
import { Controller, Get, Inject, Param, Post, Put, Query, Req, Res, UseGuards } from '@nestjs/common';
import { BackofficeCredentialStore, MerchantCredentialStore } from '@mp/access-infrastructure';
import { DomainError, type ErrorDetail } from '@mp/shared-util-errors';
import { isKnownCurrency, parseAmountLiteral } from '@mp/shared-util-money';
import type { FastifyReply } from 'fastify';
import type { GatewayRequest } from '../auth/merchant-signature.guard';
import { JsonNumberLiteral, parseJsonObjectBody, stringifyResponse } from '../http/json-body';
import { LedgerReadClient } from '../merchant/ledger-read.client';
import { PaymentsReadClient, type StoredMethodEntry } from '../payments/payments-read.client';
import { BackofficeGuard, CurrentPrincipal, Roles } from './backoffice.guard';
import type { BackofficePrincipal } from '@mp/access-infrastructure';

interface AgentProfileBody {
  display_name: string;
  payment_details: string;
  serves: Array<{ method: string; country: string; currency: string }>;
  active: boolean;
}

/** What operators do: merchants, methods and fees, agents, any order, deposit. */
@Controller('backoffice/v1')
@UseGuards(BackofficeGuard)
@Roles('operator')
export class OperatorController {
  constructor(
    private readonly merchants: MerchantCredentialStore,
    @Inject(BackofficeCredentialStore) private readonly credentials: BackofficeCredentialStore,
    private readonly payments: PaymentsReadClient,
    private readonly ledger: LedgerReadClient,
  ) {}

  /** Secrets are in this answer only; they are stored encrypted and never shown again. */
  @Post('merchants')
  async createMerchant(@Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    const body = parseJsonObjectBody(request.body as Buffer | undefined);
    const name = typeof body['name'] === 'string' ? body['name'].trim() : '';
    const callbackUrl = body['default_callback_url'];
    const details: ErrorDetail[] = [];
    if (name.length < 1 || name.length > 200) details.push({ field: 'name', issue: 'must be 1 to 200 characters' });
    if (callbackUrl !== undefined && (typeof callbackUrl !== 'string' || !/^https?:\/\/\S{1,2040}$/.test(callbackUrl))) details.push({ field: 'default_callback_url', issue: 'must be an absolute http(s) URL' });
    if (details.length > 0) throw new DomainError('VALIDATION_ERROR', 'The merchant is not valid', details);
    const merchant = await this.merchants.createMerchant(name, (callbackUrl as string | undefined) ?? null);
    await json(reply, 201, { merchant_id: merchant.merchantId, name: merchant.name, api_secret: merchant.apiSecret, webhook_secret: merchant.webhookSecret });
  }

  @Get('merchants/:merchantId/methods')
  async getMethods(@Param('merchantId') merchantId: string, @Res() reply: FastifyReply): Promise<void> {
    await this.requireMerchant(merchantId);
    await json(reply, 200, await this.payments.getMethods(merchantId));
  }

  @Put('merchants/:merchantId/methods')
  async putMethods(@Param('merchantId') merchantId: string, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.requireMerchant(merchantId);
    const body = parseJsonObjectBody(request.body as Buffer | undefined);
    const entries = toPlain(body['entries']) as StoredMethodEntry[];
    await json(reply, 200, await this.payments.putMethods(merchantId, entries));
  }

  /** Registers an agent for methods, countries and currencies; its token is in this answer only. */
  @Post('agents')
  async createAgent(@Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    const body = parseJsonObjectBody(request.body as Buffer | undefined);
    const profile = toAgentProfile(body);
    const name = typeof body['name'] === 'string' && body['name'].trim() ? body['name'].trim() : profile.display_name;
    const credential = await this.credentials.create('agent', name);
    const agentId = credential.agentId as string;
    try {
      await this.payments.putAgent(agentId, profile);
    } catch (error) {
      // No half-made agent: a credential without a profile in payments could log in but never be assigned.
      await this.credentials.deactivateAgent(agentId);
      throw error;
    }
    await json(reply, 201, { agent_id: agentId, name, token: credential.token, ...profile });
  }

  @Put('agents/:agentId')
  async updateAgent(@Param('agentId') agentId: string, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    const profile = toAgentProfile(parseJsonObjectBody(request.body as Buffer | undefined));
    await this.payments.putAgent(agentId, profile);
    if (!profile.active) await this.credentials.deactivateAgent(agentId);
    await json(reply, 200, { agent_id: agentId, ...profile });
  }

  @Get('orders/:merchantId/:orderId')
  async getOrder(@Param('merchantId') merchantId: string, @Param('orderId') orderId: string, @Res() reply: FastifyReply): Promise<void> {
    await json(reply, 200, await this.payments.getOrderForBackoffice(merchantId, orderId));
  }

  /**
   * Who saw which payout's full recipient account number, and when, newest first. Filters:
   * `merchant_id`, `order_id`, `agent_id`, `limit` (1 to 500, default 100).
   */
  @Get('account-number-reveals')
  async listAccountNumberReveals(@Query() query: Record<string, string>, @Res() reply: FastifyReply): Promise<void> {
    const known = ['merchant_id', 'order_id', 'agent_id', 'limit'];
    const unknown = Object.keys(query).filter((name) => !known.includes(name));
    if (unknown.length > 0) throw new DomainError('VALIDATION_ERROR', 'Unknown filters', unknown.map((field) => ({ field, issue: 'is not a known filter' })));
    await json(reply, 200, await this.payments.listAccountNumberReveals(query));
  }

  @Get('merchants/:merchantId/balances')
  async balances(@Param('merchantId') merchantId: string, @Res() reply: FastifyReply): Promise<void> {
    await json(reply, 200, await this.ledger.getBalances(merchantId));
  }

  /** Deposit moves only here: a top-up (positive) or an adjustment (negative), with a reason, audited. */
  @Post('merchants/:merchantId/deposit-adjustments')
  async adjustDeposit(@CurrentPrincipal() operator: BackofficePrincipal, @Param('merchantId') merchantId: string, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.requireMerchant(merchantId);
    const body = parseJsonObjectBody(request.body as Buffer | undefined);
    const currency = typeof body['currency'] === 'string' ? body['currency'] : '';
    const reason = typeof body['reason'] === 'string' ? body['reason'].trim() : '';
    const amount = body['amount'];
    const details: ErrorDetail[] = [];
    if (!isKnownCurrency(currency)) details.push({ field: 'currency', issue: 'must be a supported currency' });
    if (reason.length < 3) details.push({ field: 'reason', issue: 'must explain the adjustment' });
    let amountMinor: bigint | null = null;
    if (!(amount instanceof JsonNumberLiteral)) details.push({ field: 'amount', issue: 'must be a JSON number; negative takes away' });
    else if (isKnownCurrency(currency)) {
      const negative = amount.literal.startsWith('-');
      const parsed = parseAmountLiteral(negative ? amount.literal.slice(1) : amount.literal, currency);
      if (parsed.ok) amountMinor = negative ? -parsed.amountMinor : parsed.amountMinor;
      else details.push({ field: 'amount', issue: parsed.reason.replace(/_/g, ' ') });
    }
    if (details.length > 0 || amountMinor === null) throw new DomainError('VALIDATION_ERROR', 'The adjustment is not valid', details);
    const adjustmentId = typeof body['adjustment_id'] === 'string' && /^[A-Za-z0-9._:-]{1,64}$/.test(body['adjustment_id']) ? body['adjustment_id'] : randomUUID();
    const result = await this.ledger.adjustDeposit(merchantId, { adjustment_id: adjustmentId, currency, amount_minor: amountMinor.toString(), reason, operator_id: operator.credentialId });
    await json(reply, result.status, result.body);
  }

  /** The merchant's ledger entries, newest first: `?currency=&from=&to=&limit=&cursor=` (ISO 8601 times, `to` exclusive). */
  @Get('merchants/:merchantId/ledger/entries')
  async ledgerEntries(@Param('merchantId') merchantId: string, @Query() query: Record<string, unknown>, @Res() reply: FastifyReply): Promise<void> {
    await this.requireMerchant(merchantId);
    await json(reply, 200, await this.ledger.listEntries(merchantId, ledgerQuery(query, ['currency', 'from', 'to', 'limit', 'cursor'])));
  }

  /** Reconciliation export: every entry of the period `?from=&to=` (required) with its order or withdrawal, as CSV. */
  @Get('merchants/:merchantId/ledger/reconciliation.csv')
  async reconciliationCsv(@Param('merchantId') merchantId: string, @Query() query: Record<string, unknown>, @Res() reply: FastifyReply): Promise<void> {
    await this.requireMerchant(merchantId);
    const file = await this.ledger.reconciliationCsv(merchantId, ledgerQuery(query, ['currency', 'from', 'to']));
    await reply.status(200).header('content-type', file.contentType).header('content-disposition', file.disposition ?? 'attachment').send(file.content);
  }

  private async requireMerchant(merchantId: string): Promise<void> {
    if (!(await this.merchants.findProfile(merchantId))) throw new DomainError('NOT_FOUND', `No merchant ${merchantId}`);
  }
}

function toAgentProfile(body: Record<string, unknown>): AgentProfileBody {
  const details: ErrorDetail[] = [];
  const text = (field: string, max: number) => {
    const value = typeof body[field] === 'string' ? (body[field] as string).trim() : '';
    if (value.length < 1 || value.length > max) details.push({ field, issue: `must be 1 to ${max} characters` });
    return value;
  };
  const profile: AgentProfileBody = {
    display_name: text('display_name', 100),
    payment_details: text('payment_details', 500),
    serves: (Array.isArray(body['serves']) ? body['serves'] : []) as AgentProfileBody['serves'],
    active: body['active'] !== false,
  };
  if (profile.serves.length === 0) details.push({ field: 'serves', issue: 'must list {method, country, currency} entries' });
  if (details.length > 0) throw new DomainError('VALIDATION_ERROR', 'The agent is not valid', details);
  return profile;
}

/** Back to plain JSON values (numbers as numbers) for bodies passed on to internal services. */
function toPlain(value: unknown): unknown {
  if (value instanceof JsonNumberLiteral) return Number(value.literal);
  if (Array.isArray(value)) return value.map(toPlain);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toPlain(item)]));
  return value;
}

export async function json(reply: FastifyReply, status: number, body: unknown): Promise<void> {
  await reply.status(status).type('application/json').send(stringifyResponse(body));
}

/**
 * Only the parameters the ledger knows go through, each once: a repeated parameter is a
 * client mistake, answered here rather than letting the ledger see an array.
 */
function ledgerQuery(query: Record<string, unknown>, allowed: string[]): URLSearchParams {
  const details: ErrorDetail[] = [];
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (!allowed.includes(name)) details.push({ field: name, issue: `is not a filter here; use ${allowed.join(', ')}` });
    else if (typeof value !== 'string') details.push({ field: name, issue: 'must be given once' });
    else params.set(name, value);
  }
  if (details.length > 0) throw new DomainError('VALIDATION_ERROR', 'The query is not valid', details);
  return params;
}
