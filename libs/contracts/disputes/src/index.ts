export { DISPUTES_TOPICS, DISPUTE_COMMAND_SCHEMA_VERSION, DISPUTE_COMMAND_TYPES, type OpenDisputeCommandData, type DisputeCommandReplyData, type LegacyDisputeOutcomeAppliedData } from './commands';
export { DISPUTE_EXTERNAL_EVENT_SCHEMA_VERSION, DISPUTE_EXTERNAL_EVENT_TYPES, type DisputeExternalEvent, type DisputeExternalEventData, type DisputeExternalEventType } from './external-events';
export {
  DISPUTE_RECEIPT_BYTES_MAX,
  DISPUTE_COMMENT_MAX_LENGTH,
  DISPUTES_INTERNAL_PATHS,
  DISPUTE_STATUSES,
  DisputeListFilterFieldsDto,
  DisputeListQueryDto,
  OpenDisputeCommandDto,
  OpenDisputeRequestDto,
  DisputeReceiptDto,
  ReviewDisputeRequestDto,
  InternalReviewDisputeDto,
  ReceiptDownloaderQueryDto,
  ReceiptDownloadLogQueryDto,
  type DisputeReceiptDownloadView,
  type DisputeList,
  type DisputeStatus,
  type DisputeView,
  type StoredDisputeReceipt,
} from './api';
