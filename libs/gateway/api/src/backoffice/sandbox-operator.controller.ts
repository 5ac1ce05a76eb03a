import { Controller, Param, Post, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import { isTestMerchantId, testMerchantIdFor } from '@mp/access-domain';
import { MerchantCredentialStore } from '@mp/access-infrastructure';
import { MerchantIdParam } from '@mp/shared-nest-http';
import { DomainError } from '@mp/shared-util-errors';
import { PaymentsClient } from '../payments/payments.client';
import { BackofficeGuard, Roles } from './backoffice.guard';
import { TestCredentialsResponse } from './test-credentials.response';
import { BackofficeApiDocs } from '../openapi/backoffice-api.decorator';

/** Operators issue a merchant's sandbox (test-mode) credentials: docs/api/sandbox.md, docs/operations/sandbox.md. */
@BackofficeApiDocs('Sandbox')
@Controller('backoffice/v1')
@UseGuards(BackofficeGuard)
@Roles('operator')
export class SandboxOperatorController {
  constructor(
    private readonly merchants: MerchantCredentialStore,
    private readonly payments: PaymentsClient,
  ) {}

  /**
   * The live merchant's sandbox merchant, `test_<merchant id>`, with its own secrets shown once
   * and a copy of the live merchant's method catalog (methods, fees, limits). One per merchant:
   * a second call is 409 TEST_CREDENTIALS_EXIST, and its secrets rotate with the usual
   * endpoints under its own id. Audited like every operator action.
   */
  @Post('merchants/:merchantId/test-credentials')
  @ApiOperation({ operationId: 'issueTestCredentials', summary: "Issue a merchant's sandbox credentials" })
  @ApiResponse({ status: 201, type: TestCredentialsResponse })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR: the merchant is itself a test merchant' })
  @ApiResponse({ status: 404, description: 'NOT_FOUND: no such merchant' })
  @ApiResponse({ status: 409, description: 'TEST_CREDENTIALS_EXIST: issued before; rotate its secrets instead' })
  async issueTestCredentials(@Param('merchantId', MerchantIdParam) merchantId: string): Promise<unknown> {
    if (isTestMerchantId(merchantId)) throw notLive(merchantId);
    if (!(await this.merchants.findProfile(merchantId))) throw new DomainError('NOT_FOUND', `No merchant ${merchantId}`);
    const testMerchantId = testMerchantIdFor(merchantId);
    if (await this.merchants.findProfile(testMerchantId)) throw alreadyIssued(testMerchantId);
    // The catalog first: a sandbox merchant must never exist with other methods than its live
    // one's. A failure after this leaves only a catalog nobody can use; the retry overwrites it.
    const catalog = await this.payments.getMethods(merchantId);
    await this.payments.putMethods(testMerchantId, catalog.data);
    const result = await this.merchants.createTestMerchant(merchantId);
    if (result.kind === 'not_found') throw new DomainError('NOT_FOUND', `No merchant ${merchantId}`);
    if (result.kind === 'not_live') throw notLive(merchantId);
    if (result.kind === 'exists') throw alreadyIssued(result.merchantId);
    const { merchant } = result;
    const body: TestCredentialsResponse = {
      merchant_id: merchant.merchantId,
      live_merchant_id: merchantId,
      mode: 'test',
      name: merchant.name,
      api_secret: merchant.apiSecret,
      webhook_secret: merchant.webhookSecret,
      methods_copied: catalog.data.length,
    };
    return body;
  }
}

function notLive(merchantId: string): DomainError {
  return new DomainError('VALIDATION_ERROR', 'Sandbox credentials are issued for a live merchant', [
    { field: 'merchantId', issue: `${merchantId} is a test merchant` },
  ]);
}

function alreadyIssued(testMerchantId: string): DomainError {
  return new DomainError(
    'TEST_CREDENTIALS_EXIST',
    `The sandbox merchant ${testMerchantId} exists; rotate its secrets with POST /backoffice/v1/merchants/${testMerchantId}/api-secret/rotate and /webhook-secret/rotate`,
    [{ field: 'merchantId', issue: 'already has sandbox credentials' }],
  );
}
