import { createParamDecorator, Inject, Injectable, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { BackofficeCredentialStore, type BackofficePrincipal, type BackofficeRole } from '@mp/access-infrastructure';
import { DomainError } from '@mp/shared-util-errors';
import type { GatewayRequest } from '../auth/merchant-signature.guard';

const ROLES_KEY = 'backoffice-roles';

/** The roles allowed on a back-office route. */
export const Roles = (...roles: BackofficeRole[]) => SetMetadata(ROLES_KEY, roles);

type BackofficeRequest = GatewayRequest & { principal?: BackofficePrincipal };

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
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<BackofficeRequest>();
    const header = request.headers['authorization'];
    const token = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : '';
    if (!token) throw new DomainError('MISSING_AUTH_HEADER', 'The back-office API needs Authorization: Bearer <token>', [{ field: 'authorization', issue: 'is required' }]);
    const principal = await this.credentials.authenticate(token);
    if (!principal) throw new DomainError('INVALID_API_KEY', 'The bearer token is not an active operator or agent credential', [{ field: 'authorization', issue: 'unknown or inactive' }]);
    const roles = this.reflector.getAllAndOverride<BackofficeRole[] | undefined>(ROLES_KEY, [context.getHandler(), context.getClass()]) ?? [];
    if (!roles.includes(principal.role)) throw new DomainError('FORBIDDEN', `This action needs the ${roles.join(' or ')} role`);
    request.principal = principal;
    return true;
  }
}

export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): BackofficePrincipal => {
  const principal = context.switchToHttp().getRequest<BackofficeRequest>().principal;
  if (!principal) throw new Error('invariant: CurrentPrincipal used on a route without BackofficeGuard');
  return principal;
});
