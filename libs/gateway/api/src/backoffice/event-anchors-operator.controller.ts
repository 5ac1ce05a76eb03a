import { Controller, Get, Inject, Injectable, Optional, Param, Query, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import type { EventAnchorsPage } from '@mp/shared-command-handling';
import { authorizationFor, SERVICE_TOKEN_ISSUER, type ServiceTokenIssuer } from '@mp/shared-service-auth';
import { PathIdPipe } from '@mp/shared-nest-http';
import { IsCalendarDay, IsWholeNumberBetween, RequestMessages } from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { InternalClient } from '../http/internal-client';
import { BackofficeApiDocs } from '../openapi/backoffice-api.decorator';
import { BackofficeApiErrorResponses } from '../openapi/error.response';
import { BackofficeGuard, Roles } from './backoffice.guard';

/** The services that keep an event store, each with its own daily anchors. */
const STORES = ['ledger', 'payments', 'withdrawals', 'disputes', 'callbacks'] as const;
type Store = (typeof STORES)[number];
/** A store name, answered like an unknown one when it is not one of STORES (path-ids.spec.ts: every route parameter goes through a pipe). */
const StoreParam = new PathIdPipe(new RegExp(`^(?:${STORES.join('|')})$`), 'NOT_FOUND', (store) => `No event store ${store}; one of ${STORES.join(', ')}`);

@RequestMessages({ invalid: 'The anchors query is not valid', unknownField: 'is not a filter here; use limit, before' })
class EventAnchorsQuery {
  @ApiPropertyOptional({ default: 30, minimum: 1, maximum: 366 })
  @IsOptional()
  @IsWholeNumberBetween(1, 366, 'query')
  limit?: string;

  @ApiPropertyOptional({ description: 'Only anchors of days before this one (YYYY-MM-DD): the next page', example: '2026-11-01' })
  @IsOptional()
  @IsCalendarDay()
  before?: string;
}

/** Each store's internal anchors endpoint (InternalEventAnchorsController in every service with an event store). */
@Injectable()
export class EventAnchorsClient {
  private readonly clients: Record<Store, InternalClient>;

  constructor(@Inject(GATEWAY_SETTINGS) settings: GatewaySettings, @Optional() @Inject(SERVICE_TOKEN_ISSUER) issuer?: ServiceTokenIssuer) {
    const client = (service: Store, url: string) => new InternalClient(service, url, settings.paymentsReadTimeoutMs, authorizationFor(issuer, service));
    this.clients = {
      ledger: client('ledger', settings.ledgerInternalUrl),
      payments: client('payments', settings.paymentsInternalUrl),
      withdrawals: client('withdrawals', settings.withdrawalsInternalUrl),
      disputes: client('disputes', settings.disputesInternalUrl),
      callbacks: client('callbacks', settings.callbacksInternalUrl),
    };
  }

  list(store: Store, query: EventAnchorsQuery): Promise<EventAnchorsPage> {
    const params = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const text = params.toString();
    return this.clients[store].request('GET', `/internal/event-store/anchors${text ? `?${text}` : ''}`);
  }
}

/**
 * The daily anchors of each service's event store (docs/operations/audit.md, "Event hash
 * chain"): one per closed UTC day, newest first, each the hash over the heads of every stream
 * the day changed, chained to the day before. What an auditor keeps to check the events later.
 */
@BackofficeApiDocs('Event anchors')
@Controller('backoffice/v1/event-anchors')
@UseGuards(BackofficeGuard)
@Roles('operator')
export class EventAnchorsOperatorController {
  constructor(private readonly anchors: EventAnchorsClient) {}

  @Get(':store')
  @ApiOperation({ operationId: 'listEventAnchors', summary: 'List the daily anchors of one service’s event store, newest first' })
  @ApiParam({ name: 'store', enum: STORES })
  @ApiResponse({ status: 200, description: '`data`: one anchor per closed UTC day (`day`, `hash`, `previous_hash`, `streams`, `made_at`), hashes in hex' })
  @BackofficeApiErrorResponses('NOT_FOUND')
  async list(@Param('store', StoreParam) store: string, @Query() query: EventAnchorsQuery): Promise<EventAnchorsPage> {
    return await this.anchors.list(store as Store, query);
  }
}
