import { applyDecorators, UseGuards, UseInterceptors } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { MerchantSignatureGuard } from '../auth/merchant-signature.guard';
import { JsonAnswerInterceptor } from '../http/json-answer.interceptor';

/** The security requirement of every signed /v2 operation: all three headers together (spec 5). */
export const MERCHANT_SIGNATURE_SECURITY: Record<string, string[]> = { 'x-api-key': [], 'x-timestamp': [], 'x-signature': [] };

/**
 * A merchant /v2 controller: every request signed (spec 5), every answer written by the one
 * merchant JSON serializer, and the OpenAPI description's tag and security requirement.
 */
export function MerchantApi(tag: string): ClassDecorator {
  return applyDecorators(UseGuards(MerchantSignatureGuard), UseInterceptors(JsonAnswerInterceptor), ApiTags(tag), ApiSecurity(MERCHANT_SIGNATURE_SECURITY));
}
