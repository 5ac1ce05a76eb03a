import { InternalHttpClient, type ServiceAuthorization } from '@mp/shared-service-auth';

/**
 * The shared internal client (libs/shared/service-auth, InternalHttpClient) as the gateway's
 * clients construct it: the callee's name, its URL, the timeout and the gateway's token for it.
 */
export class InternalClient extends InternalHttpClient {
  constructor(service: string, baseUrl: string, timeoutMs: number, authorization: ServiceAuthorization, loggablePath?: (path: string) => string) {
    super({ service, baseUrl, timeoutMs, authorization, loggablePath });
  }
}
