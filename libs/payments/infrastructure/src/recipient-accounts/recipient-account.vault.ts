import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { lastFourOf, type RecipientAccountRef } from '@mp/payments-domain';
import { DomainError } from '@mp/shared-util-errors';
import { SecretBox } from '@mp/shared-util-secret-box';
import type { EntityManager } from 'typeorm';
import { PAYMENTS_SETTINGS, type PaymentsSettings } from '../payments-settings';

export interface AccountNumberReveal {
  reveal_id: string;
  agent_id: string;
  merchant_id: string;
  order_id: string;
  revealed_at: string;
}

export interface RevealFilter {
  merchantId?: string;
  orderId?: string;
  agentId?: string;
  limit: number;
}

/** The purpose whose key (derived from each payments master key) seals recipient accounts. */
export const RECIPIENT_ACCOUNT_KEY_PURPOSE = 'payout-recipient-account';

export const recipientAccountAssociatedData = (merchantId: string, reference: string) => `payout-recipient-account:${merchantId}:${reference}`;

/**
 * Payout recipients' full account numbers, encrypted at rest. Everything else in payments (the
 * order's events, the projection, lists, logs, external events) knows an account only by its
 * reference and last four characters. The full number comes out in one place: to the agent the
 * payout is assigned to, and every time it does, the reveal is recorded for operators.
 */
@Injectable()
export class RecipientAccountVault {
  private readonly box: SecretBox;

  constructor(@Inject(PAYMENTS_SETTINGS) settings: PaymentsSettings) {
    this.box = new SecretBox(settings.secretsKeyring.derive(RECIPIENT_ACCOUNT_KEY_PURPOSE));
  }

  /** Stores an account before its payout command is sent; retries store new copies, the order keeps the one it was created with. */
  async store(manager: EntityManager, merchantId: string, accountNumber: string): Promise<RecipientAccountRef> {
    const reference = `acct_${randomBytes(12).toString('hex')}`;
    const last4 = lastFourOf(accountNumber);
    const sealed = this.box.seal(accountNumber, recipientAccountAssociatedData(merchantId, reference));
    await manager.query(
      `INSERT INTO payout_recipient_accounts (reference, merchant_id, last4, key_version, iv, auth_tag, ciphertext) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [reference, merchantId, last4, sealed.keyVersion, sealed.iv, sealed.authTag, sealed.ciphertext],
    );
    return { reference, last4 };
  }

  /** The reference and last four characters of a merchant's stored account; null for another merchant's or an unknown one. */
  async find(manager: EntityManager, merchantId: string, reference: string): Promise<RecipientAccountRef | null> {
    const rows: Array<{ last4: string }> = await manager.query(`SELECT last4 FROM payout_recipient_accounts WHERE reference = $1 AND merchant_id = $2`, [
      reference,
      merchantId,
    ]);
    return rows[0] ? { reference, last4: rows[0].last4 } : null;
  }

  /**
   * The full number of a payout assigned to this agent, recorded as a reveal in the same
   * transaction: no reveal goes unrecorded. Any other order, including an unassigned payout or
   * another agent's, is not found, like every order outside what an agent may see.
   */
  async reveal(manager: EntityManager, agentId: string, merchantId: string, orderId: string): Promise<{ account_number: string; revealed_at: string }> {
    return manager.transaction(async (transaction) => {
      const rows: Array<{ recipient_account_ref: string; iv: Buffer; auth_tag: Buffer; ciphertext: Buffer; key_version: number }> = await transaction.query(
        `SELECT o.recipient_account_ref, a.iv, a.auth_tag, a.ciphertext, a.key_version
           FROM payment_orders o JOIN payout_recipient_accounts a ON a.reference = o.recipient_account_ref AND a.merchant_id = o.merchant_id
          WHERE o.merchant_id = $1 AND o.order_id = $2 AND o.direction = 'outgoing' AND o.agent_id = $3`,
        [merchantId, orderId, agentId],
      );
      const row = rows[0];
      if (!row) throw new DomainError('ORDER_NOT_FOUND', 'No such payout among those assigned to this agent');
      const accountNumber = this.box.open(
        { keyVersion: row.key_version, iv: row.iv, authTag: row.auth_tag, ciphertext: row.ciphertext },
        recipientAccountAssociatedData(merchantId, row.recipient_account_ref),
      );
      const [recorded]: Array<{ revealed_at: Date }> = await transaction.query(
        `INSERT INTO account_number_reveals (agent_id, merchant_id, order_id, recipient_account_ref) VALUES ($1, $2, $3, $4) RETURNING revealed_at`,
        [agentId, merchantId, orderId, row.recipient_account_ref],
      );
      return { account_number: accountNumber, revealed_at: recorded.revealed_at.toISOString() };
    });
  }

  /**
   * For a retry of a payout: whether the account stored under `reference` is the one the
   * merchant's existing payout `orderId` was created with; undefined when there is no such
   * payout. Both numbers are opened only to compare them (in constant time) and never leave here.
   */
  async sameAsPayoutAccount(manager: EntityManager, merchantId: string, orderId: string, reference: string): Promise<boolean | undefined> {
    const rows: Array<{ reference: string; iv: Buffer; auth_tag: Buffer; ciphertext: Buffer; key_version: number; is_order_account: boolean }> =
      await manager.query(
        `SELECT a.reference, a.iv, a.auth_tag, a.ciphertext, a.key_version, a.reference = o.recipient_account_ref AS is_order_account
         FROM payment_orders o JOIN payout_recipient_accounts a ON a.merchant_id = o.merchant_id AND a.reference IN (o.recipient_account_ref, $3)
        WHERE o.merchant_id = $1 AND o.order_id = $2 AND o.direction = 'outgoing'`,
        [merchantId, orderId, reference],
      );
    const orderAccount = rows.find((row) => row.is_order_account);
    const retryAccount = rows.find((row) => row.reference === reference);
    if (!orderAccount || !retryAccount) return undefined;
    if (orderAccount === retryAccount) return true;
    const open = (row: (typeof rows)[number]) =>
      Buffer.from(
        this.box.open(
          { keyVersion: row.key_version, iv: row.iv, authTag: row.auth_tag, ciphertext: row.ciphertext },
          recipientAccountAssociatedData(merchantId, row.reference),
        ),
        'utf8',
      );
    const [ordered, retried] = [open(orderAccount), open(retryAccount)];
    return ordered.length === retried.length && timingSafeEqual(ordered, retried);
  }

  /** Reveals for operators, newest first. */
  async listReveals(manager: EntityManager, filter: RevealFilter): Promise<AccountNumberReveal[]> {
    const rows: Array<Omit<AccountNumberReveal, 'revealed_at'> & { revealed_at: Date }> = await manager.query(
      `SELECT reveal_id::text, agent_id, merchant_id, order_id, revealed_at FROM account_number_reveals
        WHERE ($1::text IS NULL OR merchant_id = $1) AND ($2::text IS NULL OR order_id = $2) AND ($3::text IS NULL OR agent_id = $3)
        ORDER BY reveal_id DESC LIMIT $4`,
      [filter.merchantId ?? null, filter.orderId ?? null, filter.agentId ?? null, filter.limit],
    );
    return rows.map((row) => ({ ...row, revealed_at: row.revealed_at.toISOString() }));
  }
}
