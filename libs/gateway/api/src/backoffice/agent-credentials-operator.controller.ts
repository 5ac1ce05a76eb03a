import { Body, Controller, Get, Inject, Param, Post, Req, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { AGENT_LIVE_CREDENTIALS_MAX } from '@mp/access-domain';
import { BackofficeCredentialStore, type BackofficePrincipal } from '@mp/access-infrastructure';
import { AgentIdParam, RequestOptions } from '@mp/shared-nest-http';
import type { Clock } from '@mp/shared-util-clock';
import { DomainError } from '@mp/shared-util-errors';
import { IsPlainText, IsWholeNumberBetween, type JsonNumberLiteral, RequestMessages, Trim } from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import { CLOCK, GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { BackofficeApiDocs } from '../openapi/backoffice-api.decorator';
import { BackofficeApiErrorResponses } from '../openapi/error.response';
import { BackofficeGuard, CurrentPrincipal, Roles, type BackofficeRequest } from './backoffice.guard';
import { issuedOrRefused, lifetimeExpiry, REQUESTED_LIFETIME_DAYS_MAX } from './credential-issuance';

/** Both fields optional: an empty body renews with the agent's name and the full lifetime. */
@RequestOptions({ emptyBodyIsEmptyObject: true })
@RequestMessages({ invalid: 'The agent credential is not valid' })
class RenewAgentCredentialBody {
  @ApiPropertyOptional({ maxLength: 200, description: "Names the credential (default: the agent's newest credential's name)" })
  @IsOptional()
  @Trim()
  @IsPlainText(200)
  name?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: REQUESTED_LIFETIME_DAYS_MAX,
    nullable: true,
    description: 'Days until the token stops working (default, also for null, and at most: AGENT_CREDENTIAL_LIFETIME_DAYS)',
  })
  @IsOptional()
  @IsWholeNumberBetween(1, REQUESTED_LIFETIME_DAYS_MAX, 'json')
  lifetime_days?: JsonNumberLiteral | null;
}

/**
 * An agent's credentials: listed with their expiry, and renewed before they expire. A renewal
 * is a further credential; the agent's current one keeps working until it expires or an
 * operator revokes it (operator-credentials/:credentialId/revoke), so the agent switches over
 * without a gap. An agent holds at most AGENT_LIVE_CREDENTIALS_MAX live ones.
 */
@BackofficeApiDocs('Merchants')
@Controller('backoffice/v1/agents/:agentId/credentials')
@UseGuards(BackofficeGuard)
@Roles('operator')
export class AgentCredentialsOperatorController {
  constructor(
    @Inject(BackofficeCredentialStore) private readonly credentials: BackofficeCredentialStore,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'listAgentCredentials', summary: "An agent's credentials, newest first, with their expiry (never a token)" })
  @ApiResponse({ status: 200, description: '`{ data }` of credentials' })
  @BackofficeApiErrorResponses('NOT_FOUND')
  async list(@Param('agentId', AgentIdParam) agentId: string): Promise<unknown> {
    const data = await this.credentials.listForAgent(agentId, this.clock.now());
    if (data.length === 0) throw new DomainError('NOT_FOUND', `No agent ${agentId}`);
    return { data };
  }

  @Post()
  @ApiOperation({ operationId: 'renewAgentCredential', summary: 'Issue an agent a further credential (its token is in this answer only)' })
  @ApiResponse({ status: 201, description: 'The credential, its token and when it expires' })
  @BackofficeApiErrorResponses('NOT_FOUND', 'FORBIDDEN')
  async renew(
    @CurrentPrincipal() operator: BackofficePrincipal,
    @Param('agentId', AgentIdParam) agentId: string,
    @Body() body: RenewAgentCredentialBody,
    @Req() request: BackofficeRequest,
  ): Promise<unknown> {
    const now = this.clock.now();
    const lifetime = this.settings.agentCredentialLifetimeDays;
    const expiresAt = lifetimeExpiry(body.lifetime_days, { defaultDays: lifetime, maxDays: lifetime, setting: 'AGENT_CREDENTIAL_LIFETIME_DAYS' }, now);
    const name = body.name ?? (await this.credentials.listForAgent(agentId, now))[0]?.name ?? agentId;
    const result = await this.credentials.issueAgent(agentId, name, { expiresAt, issuer: operator, liveMax: AGENT_LIVE_CREDENTIALS_MAX, now });
    const created = issuedOrRefused(result, request, operator, {
      limit: AGENT_LIVE_CREDENTIALS_MAX,
      holder: `Agent ${agentId}`,
      notFound: `No agent ${agentId}`,
    });
    return {
      credential_id: created.credentialId,
      agent_id: created.agentId,
      name: created.name,
      expires_at: created.expiresAt?.toISOString() ?? null,
      token: created.token,
    };
  }
}
