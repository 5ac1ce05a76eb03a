/** The operator's pages of one merchant and of one dispute: lists and forms link to them. */
export const MERCHANT_PAGE = '/operator/merchants/:merchantId';

export const DISPUTE_PAGE = '/operator/disputes/:merchantId/:disputeId';

/** Any order as it stood at any instant, with its timeline (order.tsx). */
export const ORDER_PAGE = '/operator/orders/:merchantId/:orderId';
