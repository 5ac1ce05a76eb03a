import { Type } from 'class-transformer';
import { IsOptional, IsString, ValidateNested } from 'class-validator';
import {
  CreationPeriodAndCursorFilters,
  FieldRule,
  IsOneOf,
  IsMetadata,
  IsOrderId,
  IsPlainText,
  IsWholeNumberBetween,
  JsonNumberLiteral,
  MatchesPattern,
  MERCHANT_ID_PATTERN,
  RequestMessages,
  Trim,
} from '@mp/shared-util-validation';

export type DisputeStatus = 'OPEN' | 'ACCEPTED' | 'REJECTED';
export const DISPUTE_STATUSES: readonly DisputeStatus[] = ['OPEN', 'ACCEPTED', 'REJECTED'];

/** Spec 4.9: a comment is plain text up to this many characters. */
export const DISPUTE_COMMENT_MAX_LENGTH = 2000;
/** A dispute receipt is a PDF, PNG or JPEG of at most 5 MB (the payout receipt rule). */
export const DISPUTE_RECEIPT_BYTES_MAX = 5 * 1024 * 1024;

/** The dispute's state object (endpoint 16) and list item (endpoint 15): the same shape. */
export interface DisputeView {
  dispute_id: string;
  order_id: string;
  status: DisputeStatus;
  /** The disputed amount (decimal string in the order's currency), or null for the order amount. */
  amount: string | null;
  currency: string;
  comment: string | null;
  receipt: { file_name: string; content_type: string; size_bytes: number } | null;
  created_at: string;
  updated_at: string;
  /** When the agent or operator is to have reviewed it by: the service's review window after the last open or reopen; null once reviewed. */
  review_deadline: string | null;
  /** The merchant's own reference data, as sent on open (or on the reopen that last sent some); `{}` when none. */
  metadata: Record<string, string>;
  /** Null while OPEN. */
  review: { decision: 'ACCEPTED' | 'REJECTED'; reason: string | null; settled_amount: string | null; reviewed_at: string } | null;
}

/** A receipt stored by the disputes service (POST dispute-receipts), before the open command names it. */
export interface StoredDisputeReceipt {
  receiptId: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
}

export interface DisputeList {
  data: DisputeView[];
  has_more: boolean;
  next_cursor: string | null;
}

/** The operators' queue across merchants: each dispute with the merchant it belongs to. */
export interface OperatorDisputeList {
  data: Array<DisputeView & { merchant_id: string }>;
  has_more: boolean;
  next_cursor: string | null;
}

/** Internal HTTP API of the disputes service (reads, reviews, receipts; opens go through Kafka). */
export const DISPUTES_INTERNAL_PATHS = {
  list: (merchantId: string) => `/internal/merchants/${encodeURIComponent(merchantId)}/disputes`,
  /** GET, the list's filters plus `merchant_id`: every merchant's disputes, newest first (the operators' queue). */
  queue: '/internal/disputes',
  one: (merchantId: string, disputeId: string) => `/internal/merchants/${encodeURIComponent(merchantId)}/disputes/${encodeURIComponent(disputeId)}`,
  /** GET `?at=`: the dispute as it stood at an instant, from its stream. */
  asOf: (merchantId: string, disputeId: string) => `/internal/merchants/${encodeURIComponent(merchantId)}/disputes/${encodeURIComponent(disputeId)}/as-of`,
  review: (disputeId: string) => `/internal/disputes/${encodeURIComponent(disputeId)}/review`,
  receipts: (merchantId: string) => `/internal/merchants/${encodeURIComponent(merchantId)}/dispute-receipts`,
  /** GET, `?reviewer_role=&reviewer_id=`: the current receipt's bytes for a reviewer; every download is logged. */
  receiptContent: (merchantId: string, disputeId: string) =>
    `/internal/merchants/${encodeURIComponent(merchantId)}/disputes/${encodeURIComponent(disputeId)}/receipt`,
  /** GET, `?merchant_id=&dispute_id=&reviewer_id=&limit=`: the download log, newest first. */
  receiptDownloads: '/internal/dispute-receipt-downloads',
  testClock: '/internal/test/clock',
} as const;

const BASE64_PATTERN = /^[A-Za-z0-9+/]*={0,2}$/;

export class DisputeReceiptDto {
  @Trim()
  @IsPlainText(255)
  file_name!: string;

  @IsOneOf(['application/pdf', 'image/png', 'image/jpeg'], 'must be application/pdf, image/png or image/jpeg')
  content_type!: string;

  /** The size limit is checked on the decoded bytes, the type by magic bytes (the gateway's receipt check). */
  @IsString({ message: 'must be the file as base64' })
  @FieldRule('isBase64', (value) =>
    typeof value === 'string' && value.length > 0 && value.length % 4 === 0 && BASE64_PATTERN.test(value) ? null : 'must be the file as base64',
  )
  content_base64!: string;
}

/** Endpoint 14's body. Unknown fields are refused. */
@RequestMessages({ invalid: 'The dispute is not valid' })
export class OpenDisputeRequestDto {
  @IsOrderId()
  order_id!: string;

  /** Checked against the order's currency by the disputes service (only it knows the currency). */
  @IsOptional()
  @FieldRule('isPositiveDecimal', (value) =>
    value instanceof JsonNumberLiteral && /^(0|[1-9]\d{0,17})(\.\d{1,8})?$/.test(value.literal) ? null : 'must be a positive JSON number',
  )
  amount?: JsonNumberLiteral;

  @IsOptional()
  @Trim()
  @IsPlainText(DISPUTE_COMMENT_MAX_LENGTH)
  comment?: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => DisputeReceiptDto)
  receipt?: DisputeReceiptDto;

  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, string>;
}

/**
 * Endpoint 15's filters, all optional (the gateway takes `limit` as a JSON number, the service as
 * a query string). `order_id` finds the dispute of one pay-in: a pay-in has at most one.
 */
export class DisputeListFilterFieldsDto extends CreationPeriodAndCursorFilters {
  @IsOptional()
  @IsOneOf(DISPUTE_STATUSES)
  status?: DisputeStatus;

  @IsOptional()
  @IsOrderId()
  order_id?: string;
}

@RequestMessages({ invalid: 'The list filters are not valid', unknownField: 'is not a filter; use status, order_id, created_from, created_to, limit, cursor' })
export class DisputeListQueryDto extends DisputeListFilterFieldsDto {
  @IsOptional()
  @IsWholeNumberBetween(1, 100, 'query')
  limit?: string;
}

/** The operators' queue: the list's filters, and optionally one merchant. */
@RequestMessages({
  invalid: 'The list filters are not valid',
  unknownField: 'is not a filter; use merchant_id, status, order_id, created_from, created_to, limit, cursor',
})
export class OperatorDisputeQueueQueryDto extends DisputeListQueryDto {
  @IsOptional()
  @MatchesPattern(MERCHANT_ID_PATTERN, 'must be a merchant id')
  merchant_id?: string;
}

/** Who downloaded which dispute's receipt, and when (operators read this log). */
export interface DisputeReceiptDownloadView {
  download_id: string;
  merchant_id: string;
  dispute_id: string;
  order_id: string;
  receipt_id: string;
  file_name: string;
  reviewer_role: 'agent' | 'operator';
  reviewer_id: string;
  downloaded_at: string;
}

/** The reviewer a receipt download is for (the gateway has checked the role; disputes checks the agent's order). */
export class ReceiptDownloaderQueryDto {
  @IsOneOf(['agent', 'operator'], 'must be agent or operator')
  reviewer_role!: 'agent' | 'operator';

  @MatchesPattern(/^[A-Za-z0-9_.:-]{1,100}$/, 'must be an id')
  reviewer_id!: string;
}

/** Filters of the receipt download log, all optional. */
@RequestMessages({ invalid: 'The filters are not valid', unknownField: 'is not a filter; use merchant_id, dispute_id, reviewer_id, limit' })
export class ReceiptDownloadLogQueryDto {
  @IsOptional()
  @MatchesPattern(MERCHANT_ID_PATTERN, 'must be a merchant id')
  merchant_id?: string;

  @IsOptional()
  @MatchesPattern(/^dsp_[0-9a-f]{24}$/, 'must be a dispute id')
  dispute_id?: string;

  @IsOptional()
  @MatchesPattern(/^[A-Za-z0-9_.:-]{1,100}$/, 'must be an id')
  reviewer_id?: string;

  @IsOptional()
  @IsWholeNumberBetween(1, 500, 'query')
  limit?: string;
}

/** Back-office review body (agent or operator). */
@RequestMessages({ invalid: 'The review is not valid' })
export class ReviewDisputeRequestDto {
  @IsOneOf(['ACCEPTED', 'REJECTED'], 'must be ACCEPTED or REJECTED')
  decision!: 'ACCEPTED' | 'REJECTED';

  @IsOptional()
  @Trim()
  @IsPlainText(500)
  reason?: string;
}

/** The review as the gateway forwards it, with who reviews. */
export class InternalReviewDisputeDto extends ReviewDisputeRequestDto {
  @MatchesPattern(MERCHANT_ID_PATTERN, 'must be a merchant id')
  merchant_id!: string;

  @IsOneOf(['agent', 'operator'], 'must be agent or operator')
  reviewer_role!: 'agent' | 'operator';

  @MatchesPattern(/^[A-Za-z0-9_.:-]{1,100}$/, 'must be an id')
  reviewer_id!: string;
}
