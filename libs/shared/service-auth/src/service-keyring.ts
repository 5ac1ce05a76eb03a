import {
  formatPublicKeys,
  generateServiceKeyPair,
  parsePrivateKey,
  SERVICE_NAMES,
  ServiceTokenIssuer,
  type ServiceActor,
  type ServiceName,
} from './service-token';

/**
 * A key pair for every service (and the test harness), as a test system or a local run hands
 * them out: each service gets its own private key and everyone's public keys. Never used by a
 * service itself: services read their keys from configuration.
 */
export class ServiceKeyring {
  private readonly issuers = new Map<ServiceName, ServiceTokenIssuer>();

  constructor(readonly keys: Readonly<Record<ServiceName, { privateKey: string; publicKey: string }>> = ServiceKeyring.generateKeys()) {}

  static generateKeys(): Record<ServiceName, { privateKey: string; publicKey: string }> {
    return Object.fromEntries(SERVICE_NAMES.map((service) => [service, generateServiceKeyPair()])) as Record<
      ServiceName,
      { privateKey: string; publicKey: string }
    >;
  }

  /** SERVICE_TOKEN_PRIVATE_KEY and SERVICE_TOKEN_PUBLIC_KEYS for one service. */
  environmentOf(service: ServiceName): { SERVICE_TOKEN_PRIVATE_KEY: string; SERVICE_TOKEN_PUBLIC_KEYS: string } {
    const publicKeys = Object.fromEntries(Object.entries(this.keys).map(([name, pair]) => [name, pair.publicKey]));
    return { SERVICE_TOKEN_PRIVATE_KEY: this.keys[service].privateKey, SERVICE_TOKEN_PUBLIC_KEYS: formatPublicKeys(publicKeys) };
  }

  issuer(service: ServiceName): ServiceTokenIssuer {
    let issuer = this.issuers.get(service);
    if (!issuer) {
      issuer = new ServiceTokenIssuer(service, parsePrivateKey(this.keys[service].privateKey));
      this.issuers.set(service, issuer);
    }
    return issuer;
  }

  /** Headers of a call from `caller` to `callee`, e.g. a test reading a service's internal API as the gateway would. */
  async headers(callee: ServiceName, caller: ServiceName = 'gateway', actor: ServiceActor | null = null): Promise<{ authorization: string }> {
    return { authorization: await this.issuer(caller).authorization(callee, actor) };
  }
}
