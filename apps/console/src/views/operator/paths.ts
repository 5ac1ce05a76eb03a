/** The operator's pages of one merchant and of one dispute: lists and forms link to them. */
export const MERCHANT_PAGE = '/operator/merchants/:merchantId';

export const DISPUTE_PAGE = '/operator/disputes/:merchantId/:disputeId';
