export { InternalErrorFilter } from './internal-error.filter';
export { PathIdPipe, RequestPipe, type RequestPipeOptions } from './validation/request.pipe';
export { AgentIdParam, MerchantIdParam, OrderIdParam, OrderMerchantIdParam, PayerPageTokenParam, ReceiptIdParam } from './validation/path-ids';
