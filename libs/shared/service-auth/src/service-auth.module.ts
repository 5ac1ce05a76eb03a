import { createParamDecorator, Inject, Injectable, Module, type CanActivate, type DynamicModule, type ExecutionContext } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import type { ServiceAccessPolicy } from './access-policy';
import type { ServiceAuthConfig } from './service-auth.config';
import { isInternalRoute, ServiceAuthenticator } from './service-authenticator';
import { ServiceTokenIssuer, type ServiceActor, type ServiceName, type VerifiedCaller } from './service-token';

export const SERVICE_AUTHENTICATOR = Symbol('SERVICE_AUTHENTICATOR');
/** This service's token issuer, for its own calls to other services (optional to inject: modules used without it say so when they call). */
export const SERVICE_TOKEN_ISSUER = Symbol('SERVICE_TOKEN_ISSUER');

type CallerRequest = FastifyRequest & { serviceCaller?: VerifiedCaller };

/** Every HTTP route under /internal/ of the app: token, then allow-list. Kafka handlers and open routes pass untouched. */
@Injectable()
export class ServiceAuthGuard implements CanActivate {
  constructor(@Inject(SERVICE_AUTHENTICATOR) private readonly authenticator: ServiceAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<CallerRequest>();
    const route = request.routeOptions.url;
    if (route === undefined || !isInternalRoute(route)) return true;
    request.serviceCaller = await this.authenticator.authorize(request.method, route, request.headers.authorization);
    return true;
  }
}

/** The verified caller of this request (undefined when no ServiceAuthGuard ran: requireActor refuses then). */
export const ServiceCaller = createParamDecorator(
  (_data: unknown, context: ExecutionContext): VerifiedCaller | undefined => context.switchToHttp().getRequest<CallerRequest>().serviceCaller,
);

/**
 * Service authentication for a whole app, always on: the guard on every internal route and
 * the issuer for the app's own outgoing calls. Apps import it once, with their validated
 * config and their allow-list.
 */
@Module({})
export class ServiceAuthModule {
  static forRoot(config: ServiceAuthConfig, policy: ServiceAccessPolicy): DynamicModule {
    return {
      module: ServiceAuthModule,
      global: true,
      providers: [
        { provide: SERVICE_AUTHENTICATOR, useValue: new ServiceAuthenticator(config, policy) },
        { provide: SERVICE_TOKEN_ISSUER, useValue: new ServiceTokenIssuer(config.service, config.privateKey) },
        { provide: APP_GUARD, useClass: ServiceAuthGuard },
      ],
      exports: [SERVICE_TOKEN_ISSUER],
    };
  }
}

/** What a client needs to authenticate its calls to one service: the header, on behalf of an actor or not. */
export type ServiceAuthorization = (actor?: ServiceActor | null) => Promise<string>;

/** The issuer bound to one callee; without an issuer (a module wired without ServiceAuthModule) every call fails, naming why. */
export function authorizationFor(issuer: ServiceTokenIssuer | null | undefined, audience: ServiceName): ServiceAuthorization {
  if (!issuer) return () => Promise.reject(new Error(`no service token issuer: import ServiceAuthModule to call ${audience}`));
  return (actor) => issuer.authorization(audience, actor ?? null);
}

/** Only the issuer, for a module tested without the app around it (its own calls still carry a token). */
@Module({})
export class ServiceTokenIssuerModule {
  static forRoot(issuer: ServiceTokenIssuer): DynamicModule {
    return {
      module: ServiceTokenIssuerModule,
      global: true,
      providers: [{ provide: SERVICE_TOKEN_ISSUER, useValue: issuer }],
      exports: [SERVICE_TOKEN_ISSUER],
    };
  }
}
