export { CompiledAccessPolicy, type AccessDecision, type ServiceAccessPolicy } from './access-policy';
export { readServiceAuthConfig, type ServiceAuthConfig } from './service-auth.config';
export { isInternalRoute, requireActor, ServiceAuthenticator } from './service-authenticator';
export {
  authorizationFor,
  SERVICE_AUTHENTICATOR,
  SERVICE_TOKEN_ISSUER,
  ServiceAuthGuard,
  ServiceAuthModule,
  ServiceCaller,
  ServiceTokenIssuerModule,
  type ServiceAuthorization,
} from './service-auth.module';
export {
  formatPublicKeys,
  generateServiceKeyPair,
  isServiceName,
  parsePrivateKey,
  parsePublicKey,
  SERVICE_NAMES,
  SERVICE_TOKEN_LIFETIME_SECONDS,
  ServiceTokenIssuer,
  ServiceTokenRefusal,
  ServiceTokenVerifier,
  type ServiceActor,
  type ServiceName,
  type VerifiedCaller,
} from './service-token';
export { ServiceKeyring } from './service-keyring';
export { accessPolicyGaps, declaredRoutes } from './declared-routes';
export {
  InternalCallFailed,
  InternalHttpClient,
  TtlCache,
  type CallOptions,
  type InternalAnswer,
  type InternalHttpClientOptions,
} from './internal-http-client';
