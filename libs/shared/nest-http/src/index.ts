export { InternalErrorFilter } from './internal-error.filter';
export { PathIdPipe, RequestOptions, RequestPipe, type RequestPipeOptions, type RequestShapeOptions } from './validation/request.pipe';
export { AgentIdParam, MerchantIdParam, OrderIdParam, OrderMerchantIdParam, PayerPageTokenParam, ReceiptIdParam } from './validation/path-ids';
export { csvField, csvRecord } from './csv';
export { AsOfQueryDto } from './validation/as-of.query';
