import type { PaymentOrderView } from '@mp/contracts-payments';

/** The agent the payer sends money to, as far as the payer may see it. */
export interface PayerPageAgentView {
  display_name: string;
  /** Where to send the money, in the agent's words, e.g. "Card 2200 1234 5678 9012, Ivan P.". */
  payment_details: string;
}

/**
 * What the payments service returns for a payer page token (`GET /internal/payer-pages/:token`).
 * `agent` is null until an agent is assigned to the order.
 */
export interface PayerPageView {
  order: PaymentOrderView;
  /**
   * Final orders only: where "Return to the shop" goes (the order's return_url, else the
   * merchant's default_return_url), before the order id and outcome are appended; absent: no link.
   */
  returnUrl?: string | null;
  agent: PayerPageAgentView | null;
}
