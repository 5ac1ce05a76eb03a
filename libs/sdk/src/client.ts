import { MerchantApiError } from './errors';
import type { paths } from './generated/openapi';
import { asNetworkError, retryAfterMs, withRetries, type RetryOptions, type RetrySafety } from './retry';
import { pathSegment, signatureHeaders } from './signing';

type JsonOf<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
/** The JSON answer of one operation, looked up by path, so it fits whatever the description names its schemas. */
type Answer<Path extends keyof paths, Method extends keyof paths[Path], Status extends number> = paths[Path][Method] extends { responses: infer R }
  ? Status extends keyof R
    ? JsonOf<R[Status]>
    : never
  : never;
type RequestBody<Path extends keyof paths, Method extends keyof paths[Path]> = paths[Path][Method] extends { requestBody?: infer B }
  ? JsonOf<NonNullable<B>>
  : never;

export type PaymentOrder = Answer<'/v2/payments/status/{orderId}', 'get', 200>;
export type CreateIncomingPayment = RequestBody<'/v2/payments/incoming', 'post'>;
export type CreateOutgoingPayment = RequestBody<'/v2/payments/outgoing', 'post'>;
export type OrderListFilters = Omit<RequestBody<'/v2/payments/incoming/list', 'post'>, 'cursor'>;
export type OrderPage = Answer<'/v2/payments/incoming/list', 'post', 200>;
export type CancelPayment = RequestBody<'/v2/payments/{orderId}/cancel', 'post'>;
export type PayoutReceipts = Answer<'/v2/payments/{orderId}/receipts', 'get', 200>;
export type Merchant = Answer<'/v2/merchant', 'get', 200>;
export type MerchantSettings = RequestBody<'/v2/merchant', 'patch'>;
export type Balances = Answer<'/v2/merchant/balances', 'get', 200>;
export type Methods = Answer<'/v2/merchant/methods', 'get', 200>;
export type SecretRotation = RequestBody<'/v2/merchant/api-secret/rotate', 'post'>;
export type ApiSecretRotated = Answer<'/v2/merchant/api-secret/rotate', 'post', 201>;
export type WebhookSecretRotated = Answer<'/v2/merchant/webhook-secret/rotate', 'post', 201>;
export type Withdrawal = Answer<'/v2/merchant/withdrawals/{orderId}', 'get', 200>;
export type CreateWithdrawal = RequestBody<'/v2/merchant/withdrawals', 'post'>;
export type WithdrawalListFilters = Omit<RequestBody<'/v2/merchant/withdrawals/list', 'post'>, 'cursor'>;
export type WithdrawalPage = Answer<'/v2/merchant/withdrawals/list', 'post', 200>;
export type Dispute = Answer<'/v2/disputes/{disputeId}', 'get', 200>;
export type OpenDispute = RequestBody<'/v2/disputes', 'post'>;
export type DisputeListFilters = Omit<RequestBody<'/v2/disputes/list', 'post'>, 'cursor'>;
export type DisputePage = Answer<'/v2/disputes/list', 'post', 200>;
/** The delivery log's filters travel in the query string (docs/api/callbacks.md#webhook-tools). */
export type WebhookDeliveryFilters = Omit<NonNullable<paths['/v2/webhooks/deliveries']['get']['parameters']['query']>, 'cursor'>;
export type WebhookDeliveryPage = Answer<'/v2/webhooks/deliveries', 'get', 200>;
/** One callback in your delivery log: no body, secret or signature. */
export type WebhookDelivery = WebhookDeliveryPage['data'][number];
export type WebhookDeliveryStatus = WebhookDelivery['status'];
export type WebhookEventType = WebhookDelivery['event_type'];
export type WebhookDeliveryDetail = Answer<'/v2/webhooks/deliveries/{deliveryId}', 'get', 200>;
export type WebhookAttempt = WebhookDeliveryDetail['attempts'][number];
export type DisabledWebhookEndpoint = Answer<'/v2/webhooks/endpoints', 'get', 200>['data'][number];
export type SendTestWebhook = RequestBody<'/v2/webhooks/test', 'post'>;
type EnabledWebhookEndpoint = Answer<'/v2/webhooks/endpoints/enable', 'post', 200>;

export interface MerchantClientOptions {
  /** e.g. `https://api.example.com` or `http://127.0.0.1:3000`; no trailing `/v2`. */
  baseUrl: string;
  merchantId: string;
  /** The API secret, `sk_...`. */
  apiSecret: string;
  /** Automatic retries of 429, 503 and network failures; `false` sends each request once. */
  retry?: RetryOptions | false;
  /** How long one attempt may take before it counts as a network failure. Default 30 s. */
  timeoutMs?: number;
}

type ListPage = { data: unknown[]; has_more: boolean; next_cursor?: string | null };

/** One signed request, as it goes on the wire. */
export interface PreparedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The exact bytes that were signed; null for a request without a body. */
  body: Buffer | null;
}

/** A downloaded file (a payout receipt). */
export interface DownloadedFile {
  contentType: string;
  content: Buffer;
}

/**
 * The merchant API (/v2), signed and retried. One method per endpoint, grouped like the
 * docs: `payments`, `merchant`, `withdrawals`, `disputes`. Every list is also an async
 * iterator over all its pages.
 */
export class MerchantClient {
  readonly payments = {
    createIncoming: (body: CreateIncomingPayment) => this.json<PaymentOrder>('POST', '/v2/payments/incoming', body),
    createOutgoing: (body: CreateOutgoingPayment) => this.json<PaymentOrder>('POST', '/v2/payments/outgoing', body),
    status: (orderId: string) => this.json<PaymentOrder>('GET', `/v2/payments/status/${pathSegment(orderId)}`),
    listIncomingPage: (filters: OrderListFilters & { cursor?: string } = {}) => this.json<OrderPage>('POST', '/v2/payments/incoming/list', filters),
    listOutgoingPage: (filters: OrderListFilters & { cursor?: string } = {}) => this.json<OrderPage>('POST', '/v2/payments/outgoing/list', filters),
    /** Every pay-in matching the filters, newest first, page after page. */
    listIncoming: (filters: OrderListFilters = {}) => this.everyItem<OrderPage>('/v2/payments/incoming/list', filters),
    /** Every payout matching the filters, newest first, page after page. */
    listOutgoing: (filters: OrderListFilters = {}) => this.everyItem<OrderPage>('/v2/payments/outgoing/list', filters),
    cancel: (orderId: string, body: CancelPayment = {}) => this.json<PaymentOrder>('POST', `/v2/payments/${pathSegment(orderId)}/cancel`, body),
    receipts: (orderId: string) => this.json<PayoutReceipts>('GET', `/v2/payments/${pathSegment(orderId)}/receipts`),
    /** A receipt's file; `downloadPath` is the receipt's `download_path`, sent as the server wrote it. */
    downloadReceipt: (downloadPath: string) => this.download(downloadPath),
  };

  readonly merchant = {
    get: () => this.json<Merchant>('GET', '/v2/merchant'),
    update: (body: MerchantSettings) => this.json<Merchant>('PATCH', '/v2/merchant', body),
    balances: () => this.json<Balances>('GET', '/v2/merchant/balances'),
    methods: () => this.json<Methods>('GET', '/v2/merchant/methods'),
    /** One UTC day's ledger entries in one currency, each with its order and fee, as CSV text (docs/api/endpoints.md, reconciliation report). */
    reconciliation: (query: { date: string; currency: string }) =>
      this.request<string>('GET', `/v2/merchant/reconciliation?${new URLSearchParams({ date: query.date, currency: query.currency }).toString()}`),
    // A rotation sent twice would replace the secret the first one returned: never retried blindly.
    rotateApiSecret: (body: SecretRotation = {}) => this.json<ApiSecretRotated>('POST', '/v2/merchant/api-secret/rotate', body, 'not-idempotent'),
    rotateWebhookSecret: (body: SecretRotation = {}) => this.json<WebhookSecretRotated>('POST', '/v2/merchant/webhook-secret/rotate', body, 'not-idempotent'),
  };

  readonly withdrawals = {
    create: (body: CreateWithdrawal) => this.json<Withdrawal>('POST', '/v2/merchant/withdrawals', body),
    get: (orderId: string) => this.json<Withdrawal>('GET', `/v2/merchant/withdrawals/${pathSegment(orderId)}`),
    listPage: (filters: WithdrawalListFilters & { cursor?: string } = {}) => this.json<WithdrawalPage>('POST', '/v2/merchant/withdrawals/list', filters),
    list: (filters: WithdrawalListFilters = {}) => this.everyItem<WithdrawalPage>('/v2/merchant/withdrawals/list', filters),
  };

  readonly disputes = {
    // After a 503 the dispute may be open already, and a retry would be refused as dispute_already_open: the caller decides.
    open: (body: OpenDispute) => this.json<Dispute>('POST', '/v2/disputes', body, 'not-idempotent'),
    get: (disputeId: string) => this.json<Dispute>('GET', `/v2/disputes/${pathSegment(disputeId)}`),
    listPage: (filters: DisputeListFilters & { cursor?: string } = {}) => this.json<DisputePage>('POST', '/v2/disputes/list', filters),
    list: (filters: DisputeListFilters = {}) => this.everyItem<DisputePage>('/v2/disputes/list', filters),
  };

  /** Your callbacks' delivery log, redelivery, test callbacks and disabled endpoints (docs/api/callbacks.md#webhook-tools). */
  readonly webhooks = {
    deliveriesPage: (filters: WebhookDeliveryFilters & { cursor?: string } = {}) =>
      this.json<WebhookDeliveryPage>('GET', `/v2/webhooks/deliveries${deliveriesQuery(filters)}`),
    /** Every callback matching the filters, newest first, page after page. */
    deliveries: (filters: WebhookDeliveryFilters = {}) =>
      this.everyPage<WebhookDeliveryPage>((cursor) => this.webhooks.deliveriesPage(cursor === undefined ? filters : { ...filters, cursor })),
    delivery: (deliveryId: string) => this.json<WebhookDeliveryDetail>('GET', `/v2/webhooks/deliveries/${pathSegment(deliveryId)}`),
    // Each of these sends a callback or changes state: sent again only when the server certainly did nothing.
    redeliver: (deliveryId: string) =>
      this.json<WebhookDeliveryDetail>('POST', `/v2/webhooks/deliveries/${pathSegment(deliveryId)}/redeliver`, undefined, 'not-idempotent'),
    sendTest: (body: SendTestWebhook = {}) => this.json<WebhookDeliveryDetail>('POST', '/v2/webhooks/test', body, 'not-idempotent'),
    disabledEndpoints: () => this.json<Answer<'/v2/webhooks/endpoints', 'get', 200>>('GET', '/v2/webhooks/endpoints'),
    enableEndpoint: (url: string) => this.json<EnabledWebhookEndpoint>('POST', '/v2/webhooks/endpoints/enable', { url }, 'not-idempotent'),
  };

  private readonly baseUrl: string;

  constructor(private readonly options: MerchantClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  /**
   * Signs a request without sending it. `body` is sent as given when it is a string or a
   * Buffer (the bytes are signed as they are), otherwise serialized once, here.
   */
  prepare(method: string, wirePath: string, body?: unknown, nowMs = Date.now()): PreparedRequest {
    const bytes = body === undefined ? null : Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...signatureHeaders(this.options.merchantId, this.options.apiSecret, wirePath, bytes ?? '', nowMs),
      ...(bytes ? { 'content-type': 'application/json' } : {}),
    };
    return { method, url: `${this.baseUrl}${wirePath}`, headers, body: bytes };
  }

  /**
   * Sends any request, signed, with the retries its safety allows, and returns the answer's
   * JSON (or its text when it is not JSON, such as a CSV report); a non-2xx answer throws
   * MerchantApiError. The body is serialized once: every attempt sends the same bytes (only
   * the timestamp and signature are new). A query string is sent but, as the API defines, not signed.
   */
  async request<T>(method: string, wirePath: string, body?: unknown, safety: RetrySafety = 'idempotent'): Promise<T> {
    const bytes = body === undefined || Buffer.isBuffer(body) || typeof body === 'string' ? body : Buffer.from(JSON.stringify(body), 'utf8');
    const response = await this.send(method, wirePath, bytes, safety);
    const text = await response.text();
    if (text === '') return undefined as T;
    return (/\bjson\b/i.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : text) as T;
  }

  private json<T>(method: string, wirePath: string, body?: unknown, safety: RetrySafety = 'idempotent'): Promise<T> {
    return this.request<T>(method, wirePath, body, safety);
  }

  private async download(wirePath: string): Promise<DownloadedFile> {
    const response = await this.send('GET', wirePath, undefined, 'idempotent');
    return { contentType: response.headers.get('content-type') ?? 'application/octet-stream', content: Buffer.from(await response.arrayBuffer()) };
  }

  private send(method: string, wirePath: string, body: unknown, safety: RetrySafety): Promise<Response> {
    const attempt = async (): Promise<Response> => {
      // Signed again for every attempt (a fresh timestamp), over the same bytes.
      const prepared = this.prepare(method, wirePath, body);
      let response: Response;
      try {
        response = await fetch(prepared.url, {
          method,
          headers: prepared.headers,
          body: prepared.body ?? undefined,
          redirect: 'manual',
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
        });
      } catch (error) {
        throw asNetworkError(error) ?? error;
      }
      if (response.status >= 200 && response.status < 300) return response;
      const failure = MerchantApiError.fromResponse(response.status, await response.text(), response.headers.get('x-request-id'));
      failure.retryAfterMs = retryAfterMs(response.headers.get('retry-after'));
      throw failure;
    };
    return this.options.retry === false ? attempt() : withRetries(attempt, safety, this.options.retry);
  }

  /** A list endpoint's items: the filters as the POST body, with `cursor` added for each next page. */
  private everyItem<Page extends ListPage>(wirePath: string, filters: object): AsyncGenerator<Page['data'][number], void, undefined> {
    return this.everyPage<Page>((cursor) => this.json<Page>('POST', wirePath, cursor === undefined ? filters : { ...filters, cursor }));
  }

  /** Follows `next_cursor` (with the same filters, which `readPage` keeps) until `has_more` is false. */
  private async *everyPage<Page extends ListPage>(
    readPage: (cursor: string | undefined) => Promise<Page>,
  ): AsyncGenerator<Page['data'][number], void, undefined> {
    let cursor: string | undefined;
    do {
      const page: { data: Array<Page['data'][number]>; has_more: boolean; next_cursor?: string | null } = await readPage(cursor);
      yield* page.data;
      cursor = page.has_more && page.next_cursor ? page.next_cursor : undefined;
    } while (cursor !== undefined);
  }
}

/** The query string of a delivery-log page: the only endpoint whose filters travel in the URL (unsigned, as the API defines). */
function deliveriesQuery(filters: WebhookDeliveryFilters & { cursor?: string }): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value !== undefined && value !== null) query.set(name, String(value));
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}
