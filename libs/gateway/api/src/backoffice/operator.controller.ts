import { randomUUID } from 'node:crypto';
import { Body, Controller, Get, Inject, Param, Post, Put, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { credentialExpiry } from '@mp/access-domain';
import { BackofficeCredentialStore, issuanceAuditDetails, MerchantCredentialStore, type BackofficePrincipal } from '@mp/access-infrastructure';
import type { Clock } from '@mp/shared-util-clock';
import {
  AgentServiceAreaDto,
  PutAgentRequestDto,
  PutMethodsRequestDto,
  StoredMethodEntryDto,
  type PutAgentRequest,
  type StoredMethodEntry,
} from '@mp/contracts-payments';
import { AgentIdParam, MerchantIdParam, OrderIdParam, OrderMerchantIdParam, RequestOptions } from '@mp/shared-nest-http';
import {
  AGENT_ID_PATTERN,
  COUNTRY_PATTERN,
  CURSOR_PATTERN,
  IsOneOf,
  CURRENCY_CODE_PATTERN,
  decimalAmountToMinor,
  IsDecimalAmount,
  IsKnownCurrency,
  IsOrderId,
  IsPlainText,
  IsWholeNumberBetween,
  JsonNumberLiteral,
  MatchesPattern,
  MERCHANT_ID_PATTERN,
  METHOD_PATTERN,
  PLAIN_TEXT_PATTERN,
  RequestMessages,
  Trim,
} from '@mp/shared-util-validation';
import { IsOptional, IsString } from 'class-validator';
import type { FastifyReply } from 'fastify';
import { DEFAULT_PAGE_LIMIT } from '@mp/shared-data-access-postgres';
import { LedgerReadClient } from '../merchant/ledger-read.client';
import { PaymentsClient } from '../payments/payments.client';
import { actingOperatorId } from './acting-operator';
import { AsOfQuery, EndOfDayQuery } from './as-of.query';
import { CLOCK, GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { BackofficeGuard, CurrentPrincipal, Roles, type BackofficeRequest } from './backoffice.guard';
import { CallbackDestinationPolicy } from '../callback-destinations/callback-destination.policy';
import { requireMerchant } from '../merchant/require-merchant';
import { BackofficeApiDocs } from '../openapi/backoffice-api.decorator';
import { BackofficeApiErrorResponses } from '../openapi/error.response';

@RequestMessages({ invalid: 'The merchant is not valid' })
class CreateMerchantBody {
  @ApiProperty({ maxLength: 200, example: 'Shop' })
  @Trim()
  @IsPlainText(200)
  name!: string;

  @ApiPropertyOptional({ description: 'Where callbacks go unless an order names its own', example: 'https://shop.example/callbacks' })
  @IsOptional()
  @MatchesPattern(/^https?:\/\/\S{1,2040}$/, 'must be an absolute http(s) URL')
  default_callback_url?: string;
}

/**
 * PUT merchants/:merchantId/methods: checked here with the payments service's own rules, then
 * sent on. Its entries carry small integers (basis points, minutes) that go on to payments as
 * JSON numbers, so they are read as plain numbers.
 */
@RequestOptions({ numbers: 'plain' })
class PutMethodsBody extends PutMethodsRequestDto {
  @ApiProperty({ type: () => [MethodEntryBody], minItems: 1, description: 'The whole catalog' })
  override entries!: StoredMethodEntryDto[];
}

/** The OpenAPI description of one catalog entry; the rules are the contract's (StoredMethodEntryDto), which carries no OpenAPI decorators. */
class MethodEntryBody extends StoredMethodEntryDto {
  @ApiProperty({ pattern: METHOD_PATTERN.source, example: 'bank_card' }) override method!: string;
  @ApiProperty({ enum: ['incoming', 'outgoing'] }) override direction!: 'incoming' | 'outgoing';
  @ApiProperty({ pattern: COUNTRY_PATTERN.source, example: 'RU' }) override country!: string;
  @ApiProperty({ pattern: CURRENCY_CODE_PATTERN.source, example: 'RUB' }) override currency!: string;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 10_000, example: 150 }) override fee_rate_basis_points!: number;
  @ApiProperty({ pattern: '^\\d{1,30}$', description: 'Minor units', example: '0' }) override fee_fixed_minor!: string;
  @ApiProperty({ pattern: '^\\d{1,30}$', description: 'Minor units, at most max_amount_minor', example: '10000' }) override min_amount_minor!: string;
  @ApiProperty({ pattern: '^\\d{1,30}$', description: 'Minor units', example: '50000000' }) override max_amount_minor!: string;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 1_000_000, example: 30 }) override expiry_minutes!: number;
}

/** The OpenAPI description of one area an agent serves (the contract's AgentServiceAreaDto carries no OpenAPI decorators). */
class AgentServiceAreaBody extends AgentServiceAreaDto {
  @ApiProperty({ pattern: METHOD_PATTERN.source, example: 'sbp' }) override method!: string;
  @ApiProperty({ pattern: COUNTRY_PATTERN.source, example: 'RU' }) override country!: string;
  @ApiProperty({ pattern: CURRENCY_CODE_PATTERN.source, example: 'RUB' }) override currency!: string;
}

/** An agent's profile; `name` names its credential (the display name when absent). */
class AgentProfileBody extends PutAgentRequestDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 100,
    pattern: PLAIN_TEXT_PATTERN.source,
    description: 'What the payer page shows as the recipient: plain text, not blank',
    example: 'Ivan P.',
  })
  override display_name!: string;

  @ApiProperty({
    minLength: 1,
    maxLength: 500,
    pattern: PLAIN_TEXT_PATTERN.source,
    description: 'Where payers send the money: plain text, not blank',
    example: 'Card 2200 1234 5678 9012, Ivan P.',
  })
  override payment_details!: string;

  @ApiProperty({ type: () => [AgentServiceAreaBody], minItems: 1, description: 'The methods, countries and currencies the agent serves' })
  override serves!: AgentServiceAreaDto[];

  @ApiPropertyOptional({ default: true, description: 'false deactivates the agent and its token' })
  override active?: boolean;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200, pattern: PLAIN_TEXT_PATTERN.source, description: 'Plain text, not blank', example: 'Ivan Petrov' })
  @IsOptional()
  @Trim()
  @IsPlainText(200)
  name?: string;
}

@RequestMessages({ invalid: 'The adjustment is not valid' })
class DepositAdjustmentBody {
  @ApiProperty({ example: 'USDT' })
  @IsKnownCurrency('must be a supported currency')
  currency!: string;

  @ApiProperty({ type: 'number', description: 'A JSON number in the currency; positive tops up, negative takes away', example: 100 })
  @IsDecimalAmount('currency', { signed: true })
  amount!: JsonNumberLiteral;

  @ApiProperty({ description: 'Why, for the audit trail', minLength: 3, maxLength: 1000 })
  @Trim()
  @IsPlainText(1000)
  @MatchesPattern(/^[^]{3,}$/, 'must explain the adjustment')
  reason!: string;

  @ApiPropertyOptional({ description: 'Makes a retry safe: the same id books once', pattern: '^[A-Za-z0-9._:-]{1,64}$' })
  @IsOptional()
  @MatchesPattern(/^[A-Za-z0-9._:-]{1,64}$/, 'must be 1 to 64 characters from A-Z a-z 0-9 . _ - :')
  adjustment_id?: string;
}

/** The ledger validates the values of its queries; here only which parameters go through, each once. */
@RequestMessages({ invalid: 'The query is not valid', unknownField: 'is not a filter here; use currency, from, to' })
class ReconciliationQuery {
  @ApiPropertyOptional() @IsOptional() @IsString({ message: 'must be given once' }) currency?: string;
  @ApiPropertyOptional() @IsOptional() @IsString({ message: 'must be given once' }) from?: string;
  @ApiPropertyOptional() @IsOptional() @IsString({ message: 'must be given once' }) to?: string;
}

@RequestMessages({ invalid: 'The query is not valid', unknownField: 'is not a filter here; use currency, from, to, limit, cursor' })
class LedgerEntriesQuery extends ReconciliationQuery {
  @ApiPropertyOptional() @IsOptional() @IsString({ message: 'must be given once' }) limit?: string;
  @ApiPropertyOptional() @IsOptional() @IsString({ message: 'must be given once' }) cursor?: string;
}

/** A page of a back-office list: newest first, with the API's cursors. */
class CursorPageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: DEFAULT_PAGE_LIMIT })
  @IsOptional()
  @IsWholeNumberBetween(1, 100, 'query')
  limit?: string;

  @ApiPropertyOptional({ description: 'The next_cursor of the previous page' })
  @IsOptional()
  @MatchesPattern(CURSOR_PATTERN, 'is not a cursor this API returned')
  cursor?: string;
}

@RequestMessages({ invalid: 'The query is not valid', unknownField: 'is not a filter here; use status, limit, cursor' })
class MerchantListQuery extends CursorPageQuery {
  @ApiPropertyOptional({ enum: ['active', 'suspended'] })
  @IsOptional()
  @IsOneOf(['active', 'suspended'], 'must be active or suspended')
  status?: 'active' | 'suspended';
}

@RequestMessages({ invalid: 'The query is not valid', unknownField: 'is not a filter here; use active, limit, cursor' })
class AgentListQuery extends CursorPageQuery {
  @ApiPropertyOptional({ enum: ['true', 'false'] })
  @IsOptional()
  @IsOneOf(['true', 'false'], 'must be true or false')
  active?: 'true' | 'false';
}

/** The filters of the account-number reveal log; ids are checked like every id, so a made-up one never reaches a query. */
@RequestMessages({ invalid: 'The filters are not valid', unknownField: 'is not a filter; use merchant_id, order_id, agent_id, limit' })
class AccountNumberRevealsQuery {
  @ApiPropertyOptional({ pattern: MERCHANT_ID_PATTERN.source })
  @IsOptional()
  @MatchesPattern(MERCHANT_ID_PATTERN, 'must be a merchant id (mch_ and 24 hex digits)')
  merchant_id?: string;

  @ApiPropertyOptional({ description: 'An order_id (1 to 64 characters from A-Z a-z 0-9 . _ - : /)' })
  @IsOptional()
  @IsOrderId()
  order_id?: string;

  @ApiPropertyOptional({ pattern: AGENT_ID_PATTERN.source })
  @IsOptional()
  @MatchesPattern(AGENT_ID_PATTERN, 'must be an agent id (agt_ and 24 hex digits)')
  agent_id?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 500, default: 100 })
  @IsOptional()
  @IsWholeNumberBetween(1, 500, 'query')
  limit?: string;
}

/** What operators do: merchants, methods and fees, agents, any order, deposit. */
@BackofficeApiDocs('Merchants')
@Controller('backoffice/v1')
@UseGuards(BackofficeGuard)
@Roles('operator')
export class OperatorController {
  constructor(
    private readonly merchants: MerchantCredentialStore,
    @Inject(BackofficeCredentialStore) private readonly credentials: BackofficeCredentialStore,
    private readonly payments: PaymentsClient,
    private readonly ledger: LedgerReadClient,
    private readonly destinations: CallbackDestinationPolicy,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Every merchant, live and sandbox, newest first. */
  @Get('merchants')
  @ApiOperation({ operationId: 'listMerchants', summary: 'Merchants, newest first' })
  @ApiResponse({ status: 200, description: '`{ data, has_more, next_cursor }`, each merchant with its `mode` (live or test)' })
  @BackofficeApiErrorResponses()
  async listMerchants(@Query() query: MerchantListQuery): Promise<unknown> {
    return await this.merchants.listMerchants({
      status: query.status,
      limit: query.limit === undefined ? DEFAULT_PAGE_LIMIT : Number(query.limit),
      cursor: query.cursor,
    });
  }

  /** Secrets are in this answer only; they are stored encrypted and never shown again. */
  @Post('merchants')
  @ApiOperation({ operationId: 'createMerchant', summary: 'Create a merchant (its secrets are in this answer only)' })
  @ApiResponse({ status: 201, description: 'The merchant and its secrets' })
  async createMerchant(@Body() body: CreateMerchantBody): Promise<unknown> {
    await this.destinations.assertAcceptable(null, body.default_callback_url, 'default_callback_url');
    const merchant = await this.merchants.createMerchant(body.name, body.default_callback_url ?? null);
    return { merchant_id: merchant.merchantId, name: merchant.name, api_secret: merchant.apiSecret, webhook_secret: merchant.webhookSecret };
  }

  @Get('merchants/:merchantId/methods')
  @ApiOperation({ operationId: 'getMerchantMethods', summary: "Get a merchant's method catalog" })
  @ApiResponse({ status: 200, description: 'The catalog' })
  @BackofficeApiErrorResponses('NOT_FOUND')
  async getMethods(@Param('merchantId', MerchantIdParam) merchantId: string): Promise<unknown> {
    await requireMerchant(this.merchants, merchantId);
    return await this.payments.getMethods(merchantId);
  }

  @Put('merchants/:merchantId/methods')
  @ApiOperation({ operationId: 'putMerchantMethods', summary: "Replace a merchant's method catalog" })
  @ApiResponse({ status: 200, description: 'The stored catalog' })
  @BackofficeApiErrorResponses('NOT_FOUND')
  async putMethods(@Param('merchantId', MerchantIdParam) merchantId: string, @Body() body: PutMethodsBody): Promise<unknown> {
    await requireMerchant(this.merchants, merchantId);
    return await this.payments.putMethods(
      merchantId,
      body.entries.map((entry): StoredMethodEntry => ({ ...entry })),
    );
  }

  /**
   * Registers an agent for methods, countries and currencies; its token is in this answer only
   * and works AGENT_CREDENTIAL_LIFETIME_DAYS (renewed through agents/:agentId/credentials).
   */
  @Post('agents')
  @ApiOperation({ operationId: 'createAgent', summary: 'Register an agent (its token is in this answer only)' })
  @ApiResponse({ status: 201, description: 'The agent, its token and when the token expires' })
  async createAgent(@CurrentPrincipal() operator: BackofficePrincipal, @Body() body: AgentProfileBody, @Req() request: BackofficeRequest): Promise<unknown> {
    const profile = toAgentProfile(body);
    const name = body.name ?? profile.display_name;
    const credential = await this.credentials.create('agent', name, {
      expiresAt: credentialExpiry(this.clock.now(), this.settings.agentCredentialLifetimeDays),
      issuer: operator,
    });
    const agentId = credential.agentId as string;
    try {
      await this.payments.putAgent(agentId, profile);
    } catch (error) {
      // No half-made agent: a credential without a profile in payments could log in but never be assigned.
      await this.credentials.deactivateAgent(agentId);
      throw error;
    }
    request.auditDetails = issuanceAuditDetails(credential, operator);
    return {
      agent_id: agentId,
      name,
      token: credential.token,
      credential_id: credential.credentialId,
      expires_at: credential.expiresAt?.toISOString() ?? null,
      ...profile,
    };
  }

  /** Every registered agent's profile (what payers see, what it serves, whether it is active), newest first. */
  @Get('agents')
  @ApiOperation({ operationId: 'listAgents', summary: 'Agents, newest first' })
  @ApiResponse({ status: 200, description: '`{ data, has_more, next_cursor }` of agent profiles' })
  @BackofficeApiErrorResponses()
  async listAgents(@Query() query: AgentListQuery): Promise<unknown> {
    return await this.payments.listAgents({ active: query.active, limit: query.limit, cursor: query.cursor });
  }

  @Put('agents/:agentId')
  @ApiOperation({ operationId: 'updateAgent', summary: "Replace an agent's profile, or deactivate it" })
  @ApiResponse({ status: 200, description: 'The stored profile' })
  @BackofficeApiErrorResponses('NOT_FOUND')
  async updateAgent(@Param('agentId', AgentIdParam) agentId: string, @Body() body: AgentProfileBody): Promise<unknown> {
    const profile = toAgentProfile(body);
    await this.payments.putAgent(agentId, profile);
    if (!profile.active) await this.credentials.deactivateAgent(agentId);
    return { agent_id: agentId, ...profile };
  }

  @Get('orders/:merchantId/:orderId')
  @ApiOperation({ operationId: 'getOrder', summary: 'Get any order' })
  @ApiResponse({ status: 200, description: 'The order' })
  @BackofficeApiErrorResponses('ORDER_NOT_FOUND')
  async getOrder(@Param('merchantId', OrderMerchantIdParam) merchantId: string, @Param('orderId', OrderIdParam) orderId: string): Promise<unknown> {
    return await this.payments.getOrderForBackoffice(merchantId, orderId);
  }

  /**
   * The order as it stood at `at`, folded from its event stream, with every event's version,
   * type and time (docs/operations/as-of-reads.md). The dispute overlay and receipts are not
   * events of the order, so the state shows the order's own status.
   */
  @Get('orders/:merchantId/:orderId/as-of')
  @ApiOperation({ operationId: 'getOrderAsOf', summary: 'Get any order as it stood at an instant' })
  @ApiResponse({ status: 200, description: '`{ as_of, version, recorded_at, state, events }`: `state` is null before the order existed' })
  @BackofficeApiErrorResponses('ORDER_NOT_FOUND')
  async getOrderAsOf(
    @Param('merchantId', OrderMerchantIdParam) merchantId: string,
    @Param('orderId', OrderIdParam) orderId: string,
    @Query() query: AsOfQuery,
  ): Promise<unknown> {
    return await this.payments.getOrderAsOf(merchantId, orderId, query.at);
  }

  /**
   * Who saw which payout's full recipient account number, and when, newest first. Filters:
   * `merchant_id`, `order_id`, `agent_id`, `limit` (1 to 500, default 100).
   */
  @Get('account-number-reveals')
  @ApiOperation({ operationId: 'listAccountNumberReveals', summary: "Who saw which payout's full account number, newest first" })
  @ApiResponse({ status: 200, description: 'The reveal log' })
  async listAccountNumberReveals(@Query() query: AccountNumberRevealsQuery): Promise<unknown> {
    const filters = Object.fromEntries(Object.entries(query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
    return await this.payments.listAccountNumberReveals(filters);
  }

  @Get('merchants/:merchantId/balances')
  @ApiOperation({ operationId: 'getMerchantBalances', summary: "A merchant's balances" })
  @ApiResponse({ status: 200, description: 'The balances' })
  @BackofficeApiErrorResponses('NOT_FOUND')
  async balances(@Param('merchantId', MerchantIdParam) merchantId: string): Promise<unknown> {
    return await this.ledger.getBalances(merchantId);
  }

  /** Each currency's balances at the start and the end of a UTC day, summed from the ledger's postings (docs/operations/as-of-reads.md). */
  @Get('merchants/:merchantId/balances/end-of-day')
  @ApiOperation({ operationId: 'getMerchantBalancesAtEndOfDay', summary: "A merchant's balances at the start and end of a UTC day" })
  @ApiResponse({ status: 200, description: '`{ merchant_id, date, currencies: [{ currency, opening, closing }] }`, each balance per account in minor units' })
  @BackofficeApiErrorResponses('NOT_FOUND')
  async balancesAtEndOfDay(@Param('merchantId', MerchantIdParam) merchantId: string, @Query() query: EndOfDayQuery): Promise<unknown> {
    await requireMerchant(this.merchants, merchantId);
    return await this.ledger.getEndOfDayBalances(merchantId, query.date);
  }

  /**
   * Deposit moves only here: a top-up (positive) or an adjustment (negative), with a reason,
   * audited; above the currency's approval threshold 202 with a request a second operator approves.
   */
  @Post('merchants/:merchantId/deposit-adjustments')
  @ApiOperation({ operationId: 'adjustDeposit', summary: "Top up or adjust a merchant's deposit" })
  @ApiResponse({ status: 201, description: 'Booked' })
  @ApiResponse({ status: 202, description: 'Above the approval threshold: an approval request a second operator decides' })
  @BackofficeApiErrorResponses('NOT_FOUND', 'INSUFFICIENT_FUNDS')
  async adjustDeposit(
    @CurrentPrincipal() operator: BackofficePrincipal,
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Body() body: DepositAdjustmentBody,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    await requireMerchant(this.merchants, merchantId);
    const amount = decimalAmountToMinor(body.amount, body.currency, true);
    if (!amount.ok) throw new Error(`invariant: a validated amount converts (${amount.reason})`);
    const adjustment = {
      adjustment_id: body.adjustment_id ?? randomUUID(),
      currency: body.currency,
      amount_minor: amount.amountMinor.toString(),
      reason: body.reason,
      operator_id: actingOperatorId(operator),
    };
    const result = await this.ledger.adjustDeposit(merchantId, adjustment);
    // 201 booked, or 202 when a second operator must approve it: the status is the ledger's.
    void reply.status(result.status);
    return result.body;
  }

  /** The merchant's ledger entries, newest first: `?currency=&from=&to=&limit=&cursor=` (ISO 8601 times, `to` exclusive). */
  @Get('merchants/:merchantId/ledger/entries')
  @ApiOperation({ operationId: 'listLedgerEntries', summary: "A merchant's ledger entries, newest first" })
  @ApiResponse({ status: 200, description: 'A page of entries' })
  @BackofficeApiErrorResponses('NOT_FOUND')
  async ledgerEntries(@Param('merchantId', MerchantIdParam) merchantId: string, @Query() query: LedgerEntriesQuery): Promise<unknown> {
    await requireMerchant(this.merchants, merchantId);
    return await this.ledger.listEntries(merchantId, ledgerQuery(query));
  }

  /** Reconciliation export: every entry of the period `?from=&to=` (required) with its order or withdrawal, as CSV. */
  @Get('merchants/:merchantId/ledger/reconciliation.csv')
  @ApiOperation({ operationId: 'exportReconciliationCsv', summary: 'Every ledger entry of a period with its order or withdrawal, as CSV' })
  @ApiResponse({ status: 200, description: 'The CSV file' })
  @BackofficeApiErrorResponses('NOT_FOUND')
  // @Res(): the answer is a file with the ledger's content type and disposition, not JSON.
  async reconciliationCsv(
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Query() query: ReconciliationQuery,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await requireMerchant(this.merchants, merchantId);
    const file = await this.ledger.reconciliationCsv(merchantId, ledgerQuery(query));
    await reply
      .status(200)
      .header('content-type', file.contentType)
      .header('content-disposition', file.disposition ?? 'attachment')
      .send(file.content);
  }
}

function toAgentProfile(body: AgentProfileBody): Required<PutAgentRequest> {
  return {
    display_name: body.display_name,
    payment_details: body.payment_details,
    serves: body.serves.map(({ method, country, currency }) => ({ method, country, currency })),
    active: body.active !== false,
  };
}

/** The validated query, each parameter once, for the ledger. */
function ledgerQuery(query: object): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (typeof value === 'string') params.set(name, value);
  return params;
}
