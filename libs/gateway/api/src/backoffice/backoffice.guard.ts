import { createParamDecorator, Inject, Injectable, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { BackofficeCredentialStore, type BackofficePrincipal, type BackofficeRole } from '@mp/access-infrastructure';
import { DomainError } from '@mp/shared-util-errors';
import type { Clock } from '@mp/shared-util-clock';
import type { FastifyReply } from 'fastify';
import type { GatewayRequest } from '../auth/merchant-signature.guard';
import { CLOCK } from '../gateway-settings';

const ROLES_KEY = 'backoffice-roles';

/** The roles allowed on a back-office route. */
export const Roles = (...roles: BackofficeRole[]) => SetMetadata(ROLES_KEY, roles);

/** `auditDetails`: what a route made (an issued credential, its holder, its expiry), for the audit trail. */
export type BackofficeRequest = GatewayRequest & { principal?: BackofficePrincipal; auditDetails?: Record<string, unknown> };

/**
 * On every authenticated back-office answer: when the caller's credential stops working, so a
 * client can warn (or ask for a renewal) before it does rather than find out from a 401.
 */
export const CREDENTIAL_EXPIRES_HEADER = 'credential-expires-at';

const REFUSAL_MESSAGES = {
  INVALID_API_KEY: 'The bearer token is not an active operator or agent credential',
  CREDENTIAL_EXPIRED: 'The bearer token has expired: ask an operator for a new credential',
  CREDENTIAL_REVOKED: 'The bearer token was revoked: ask an operator for a new credential',
} as const;
const REFUSAL_ISSUES = { INVALID_API_KEY: 'unknown or inactive', CREDENTIAL_EXPIRED: 'expired', CREDENTIAL_REVOKED: 'revoked' } as const;

/**
 * Authenticates operators and agents by bearer token and checks the route's roles. Merchant
 * credentials carry no bearer token, so they never work here; bearer tokens are not HMAC
 * signatures, so they never work on /v2.
 */
@Injectable()
export class BackofficeGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(BackofficeCredentialStore) private readonly credentials: BackofficeCredentialStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<BackofficeRequest>();
    const header = request.headers['authorization'];
    const token = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : '';
    if (!token)
      throw new DomainError('MISSING_AUTH_HEADER', 'The back-office API needs Authorization: Bearer <token>', [
        { field: 'authorization', issue: 'is required' },
      ]);
    const authentication = await this.credentials.authenticate(token, this.clock.now());
    if (!authentication.ok)
      throw new DomainError(authentication.code, REFUSAL_MESSAGES[authentication.code], [
        { field: 'authorization', issue: REFUSAL_ISSUES[authentication.code] },
      ]);
    const principal = authentication.principal;
    const roles = this.reflector.getAllAndOverride<BackofficeRole[] | undefined>(ROLES_KEY, [context.getHandler(), context.getClass()]) ?? [];
    if (!roles.includes(principal.role)) throw new DomainError('FORBIDDEN', `This action needs the ${roles.join(' or ')} role`);
    request.principal = principal;
    if (principal.expiresAt) context.switchToHttp().getResponse<FastifyReply>().header(CREDENTIAL_EXPIRES_HEADER, principal.expiresAt.toISOString());
    return true;
  }
}

export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): BackofficePrincipal => {
  const principal = context.switchToHttp().getRequest<BackofficeRequest>().principal;
  if (!principal) throw new Error('invariant: CurrentPrincipal used on a route without BackofficeGuard');
  return principal;
});
