import type { CallHandler, ExecutionContext } from '@nestjs/common';
import type { BackofficeAuditRecord, BackofficeAuditStore } from '@mp/access-infrastructure';
import { OffsetClock } from '@mp/shared-util-clock';
import { DomainError } from '@mp/shared-util-errors';
import { lastValueFrom, of, throwError, type Observable } from 'rxjs';
import { BackofficeAuditInterceptor } from './backoffice-audit.interceptor';

const operator = { credentialId: 'cred_0123456789abcdef01234567', role: 'operator' as const, agentId: null, name: 'Alice' };

function setup(request: Record<string, unknown>, statusCode = 200) {
  const recorded: BackofficeAuditRecord[] = [];
  const store = { record: async (entry: BackofficeAuditRecord) => void recorded.push(entry) } as unknown as BackofficeAuditStore;
  const context = { switchToHttp: () => ({ getRequest: () => request, getResponse: () => ({ statusCode }) }) } as unknown as ExecutionContext;
  return { recorded, interceptor: new BackofficeAuditInterceptor(store, new OffsetClock()), context };
}

const handler = (result: Observable<unknown>): CallHandler => ({ handle: () => result });

const suspendRequest = (body: unknown) => ({
  principal: operator,
  method: 'POST',
  url: '/backoffice/v1/merchants/mch_0123456789abcdef01234567/suspend?x=1',
  routeOptions: { url: '/backoffice/v1/merchants/:merchantId/suspend' },
  params: { merchantId: 'mch_0123456789abcdef01234567' },
  body,
});

describe('BackofficeAuditInterceptor', () => {
  it('records a done action with the actor from the credential, the route, the merchant and the reason', async () => {
    const { recorded, interceptor, context } = setup(suspendRequest(Buffer.from('{"reason":"fraud review","operator_id":"someone else"}')));
    await lastValueFrom(interceptor.intercept(context, handler(of(undefined))));
    expect(recorded).toEqual([
      expect.objectContaining({
        principal: operator,
        action: 'POST /backoffice/v1/merchants/:merchantId/suspend',
        path: '/backoffice/v1/merchants/mch_0123456789abcdef01234567/suspend',
        merchantId: 'mch_0123456789abcdef01234567',
        statusCode: 200,
        errorCode: null,
        reason: 'fraud review',
      }),
    ]);
  });

  it('records a refused action with its status and code, and still refuses it', async () => {
    const { recorded, interceptor, context } = setup(suspendRequest(Buffer.from('not json')));
    const refusal = new DomainError('MERCHANT_STATUS_CONFLICT', 'already suspended');
    await expect(lastValueFrom(interceptor.intercept(context, handler(throwError(() => refusal))))).rejects.toBe(refusal);
    expect(recorded).toEqual([expect.objectContaining({ statusCode: 409, errorCode: 'MERCHANT_STATUS_CONFLICT', reason: null })]);
  });

  it('records an unexpected failure as 500', async () => {
    const { recorded, interceptor, context } = setup(suspendRequest(undefined));
    await expect(lastValueFrom(interceptor.intercept(context, handler(throwError(() => new Error('boom')))))).rejects.toThrow('boom');
    expect(recorded).toEqual([expect.objectContaining({ statusCode: 500, errorCode: null })]);
  });

  it.each([
    ['a read', { ...suspendRequest(undefined), method: 'GET' }],
    ['a request no back-office credential authenticated', { ...suspendRequest(undefined), principal: undefined }],
  ])('records nothing for %s', async (_name, request) => {
    const { recorded, interceptor, context } = setup(request);
    await lastValueFrom(interceptor.intercept(context, handler(of(undefined))), { defaultValue: undefined });
    expect(recorded).toEqual([]);
  });
});
