import { MerchantClient } from '@mp/merchant-sdk';

/** One client for the whole application: it holds no connection state, only credentials. */
export function clientFromEnvironment(environment: NodeJS.ProcessEnv = process.env): MerchantClient {
  return new MerchantClient({
    baseUrl: environment['MERCHANT_API_URL'] ?? 'http://127.0.0.1:3000',
    merchantId: environment['MERCHANT_ID'] ?? '',
    apiSecret: environment['MERCHANT_SECRET'] ?? '',
    retry: { attempts: 4 },
  });
}
