import { AGENT_ID_PATTERN, MERCHANT_ID_PATTERN, ORDER_ID_PATTERN, PAYER_PAGE_TOKEN_PATTERN, RECEIPT_ID_PATTERN } from '@mp/shared-util-validation';
import { PathIdPipe } from './request.pipe';

/**
 * The ids of request paths, each answered like an unknown one when malformed. Every `@Param`
 * of every controller goes through one of these (path-ids.spec.ts checks it), so no id a client
 * made up (a NUL byte, 10 KB) reaches a query or another service.
 */
export const OrderIdParam = new PathIdPipe(ORDER_ID_PATTERN, 'ORDER_NOT_FOUND', (id) => `No order ${id}`);
/** The merchant part of an order's path: an order can only belong to a well-formed merchant id. */
export const OrderMerchantIdParam = new PathIdPipe(MERCHANT_ID_PATTERN, 'ORDER_NOT_FOUND', (id) => `No order of merchant ${id}`);
export const MerchantIdParam = new PathIdPipe(MERCHANT_ID_PATTERN, 'NOT_FOUND', (id) => `No merchant ${id}`);
export const AgentIdParam = new PathIdPipe(AGENT_ID_PATTERN, 'NOT_FOUND', (id) => `No agent ${id}`);
export const ReceiptIdParam = new PathIdPipe(RECEIPT_ID_PATTERN, 'NOT_FOUND', () => 'No such receipt');
export const PayerPageTokenParam = new PathIdPipe(PAYER_PAGE_TOKEN_PATTERN, 'NOT_FOUND', () => 'No such payment page');
