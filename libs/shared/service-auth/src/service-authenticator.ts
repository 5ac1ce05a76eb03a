import { Logger } from '@nestjs/common';
import { DomainError } from '@mp/shared-util-errors';
import { CompiledAccessPolicy, type ServiceAccessPolicy } from './access-policy';
import type { ServiceAuthConfig } from './service-auth.config';
import { ServiceTokenRefusal, ServiceTokenVerifier, type ServiceActor, type VerifiedCaller } from './service-token';

/** Internal routes are under /internal/; everything else a service serves (health, metrics) carries no money and stays open. */
export const isInternalRoute = (route: string): boolean => route.startsWith('/internal/');

/**
 * A callee's check of one request: the token (401 UNAUTHENTICATED when missing, forged,
 * expired or for another audience), then the allow-list (403 FORBIDDEN). Every refusal is
 * logged at warn with the caller, the route and why; never the token.
 */
export class ServiceAuthenticator {
  private readonly logger = new Logger('ServiceAuth');
  private readonly verifier: ServiceTokenVerifier;
  private readonly policy: CompiledAccessPolicy;

  constructor(config: Pick<ServiceAuthConfig, 'service' | 'publicKeys'>, policy: ServiceAccessPolicy, now?: () => number) {
    this.verifier = new ServiceTokenVerifier(config.service, config.publicKeys, now);
    this.policy = new CompiledAccessPolicy(policy);
  }

  async authorize(method: string, route: string, authorization: string | undefined): Promise<VerifiedCaller> {
    let caller: VerifiedCaller;
    try {
      caller = await this.verifier.verify(authorization);
    } catch (error) {
      const reason = error instanceof ServiceTokenRefusal ? error.reason : 'token check failed';
      this.logger.warn(`internal call refused 401: caller=unknown route="${method} ${route}" reason="${reason}"`);
      throw new DomainError('UNAUTHENTICATED', 'A valid service token is required');
    }
    const decision = this.policy.decide(caller.service, method, route);
    if (!decision.allowed) {
      this.logger.warn(`internal call refused 403: caller=${caller.service} route="${method} ${route}" reason="${decision.reason}"`);
      throw new DomainError('FORBIDDEN', `The ${caller.service} service may not call this route`);
    }
    return caller;
  }
}

const actorLogger = new Logger('ServiceAuth');

/**
 * The actor of an operator's or agent's action, from the verified token, never from the body.
 * `claimed` is what the body or query still says (older callers send it): when present it must
 * name the same actor, otherwise the call is refused rather than booked under either name.
 */
export function requireActor(
  caller: VerifiedCaller | undefined,
  types: readonly ServiceActor['type'][],
  claimed?: { id?: unknown; type?: unknown },
): ServiceActor {
  if (!caller) throw new DomainError('UNAUTHENTICATED', 'A valid service token is required');
  const actor = caller.actor;
  if (!actor || !types.includes(actor.type)) {
    actorLogger.warn(`internal call refused 403: caller=${caller.service} reason="the token names no ${types.join(' or ')}"`);
    throw new DomainError('FORBIDDEN', `This action needs the ${types.join(' or ')} the gateway authenticated`);
  }
  const idDisagrees = claimed?.id !== undefined && claimed.id !== null && claimed.id !== '' && claimed.id !== actor.id;
  const typeDisagrees = claimed?.type !== undefined && claimed.type !== null && claimed.type !== actor.type;
  if (idDisagrees || typeDisagrees) {
    actorLogger.warn(`internal call refused 403: caller=${caller.service} actor=${actor.type}:${actor.id} reason="the request names another actor"`);
    throw new DomainError('FORBIDDEN', 'The request names another actor than the one the gateway authenticated', [
      { field: 'actor', issue: 'does not match the authenticated actor' },
    ]);
  }
  return actor;
}
