/** The merchant's order page: the orders list, callbacks and disputes link to it. */
export const ORDER_PAGE = '/merchant/orders/:orderId';
