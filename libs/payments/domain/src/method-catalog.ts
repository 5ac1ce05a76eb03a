import type { PaymentDirection } from '@mp/contracts-payments';

/**
 * One method a merchant may use (docs/api/money-and-fees.md). Amounts are minor
 * units; the fee rate is in basis points (1 bp = 0.01 %) so no fraction is ever a float.
 */
export interface MethodEntry {
  method: string;
  direction: PaymentDirection;
  country: string;
  currency: string;
  feeRateBasisPoints: number;
  feeFixedMinor: bigint;
  minAmountMinor: bigint;
  maxAmountMinor: bigint;
  /** How long an order may stay unfinished before it expires. */
  expiryMinutes: number;
}

export const INCOMING_EXPIRY_MINUTES_DEFAULT = 30;
export const OUTGOING_EXPIRY_MINUTES_DEFAULT = 24 * 60;

/**
 * The catalog every merchant starts with until operators configure methods per merchant.
 * Values are what merchants place verbatim into create requests.
 */
export const DEFAULT_METHOD_CATALOG: readonly MethodEntry[] = [
  {
    method: 'bank_card',
    direction: 'incoming',
    country: 'RU',
    currency: 'RUB',
    feeRateBasisPoints: 250,
    feeFixedMinor: 0n,
    minAmountMinor: 10_000n,
    maxAmountMinor: 50_000_000n,
    expiryMinutes: INCOMING_EXPIRY_MINUTES_DEFAULT,
  },
  {
    method: 'sbp',
    direction: 'incoming',
    country: 'RU',
    currency: 'RUB',
    feeRateBasisPoints: 200,
    feeFixedMinor: 0n,
    minAmountMinor: 10_000n,
    maxAmountMinor: 50_000_000n,
    expiryMinutes: INCOMING_EXPIRY_MINUTES_DEFAULT,
  },
  {
    method: 'upi',
    direction: 'incoming',
    country: 'IN',
    currency: 'INR',
    feeRateBasisPoints: 300,
    feeFixedMinor: 0n,
    minAmountMinor: 10_000n,
    maxAmountMinor: 20_000_000n,
    expiryMinutes: INCOMING_EXPIRY_MINUTES_DEFAULT,
  },
  {
    method: 'pix',
    direction: 'incoming',
    country: 'BR',
    currency: 'BRL',
    feeRateBasisPoints: 250,
    feeFixedMinor: 50n,
    minAmountMinor: 500n,
    maxAmountMinor: 10_000_000n,
    expiryMinutes: INCOMING_EXPIRY_MINUTES_DEFAULT,
  },
  {
    method: 'bank_card',
    direction: 'incoming',
    country: 'US',
    currency: 'USD',
    feeRateBasisPoints: 290,
    feeFixedMinor: 30n,
    minAmountMinor: 100n,
    maxAmountMinor: 1_000_000n,
    expiryMinutes: INCOMING_EXPIRY_MINUTES_DEFAULT,
  },
  {
    method: 'bank_card',
    direction: 'outgoing',
    country: 'RU',
    currency: 'RUB',
    feeRateBasisPoints: 150,
    feeFixedMinor: 5_000n,
    minAmountMinor: 100_000n,
    maxAmountMinor: 50_000_000n,
    expiryMinutes: OUTGOING_EXPIRY_MINUTES_DEFAULT,
  },
  {
    method: 'upi',
    direction: 'outgoing',
    country: 'IN',
    currency: 'INR',
    feeRateBasisPoints: 150,
    feeFixedMinor: 0n,
    minAmountMinor: 10_000n,
    maxAmountMinor: 20_000_000n,
    expiryMinutes: OUTGOING_EXPIRY_MINUTES_DEFAULT,
  },
  {
    method: 'bank_transfer',
    direction: 'outgoing',
    country: 'US',
    currency: 'USD',
    feeRateBasisPoints: 100,
    feeFixedMinor: 25n,
    minAmountMinor: 100n,
    maxAmountMinor: 1_000_000n,
    expiryMinutes: OUTGOING_EXPIRY_MINUTES_DEFAULT,
  },
];

/** The incoming entries for a country and currency, in catalog order (a pay-in may name one of them). */
export function incomingMethodsFor(catalog: readonly MethodEntry[], country: string, currency: string): MethodEntry[] {
  return catalog.filter((entry) => entry.direction === 'incoming' && entry.country === country && entry.currency === currency);
}

/** The entry an outgoing order names: method, country and currency must all match. */
export function outgoingMethodFor(catalog: readonly MethodEntry[], method: string, country: string, currency: string): MethodEntry | undefined {
  return catalog.find((entry) => entry.direction === 'outgoing' && entry.method === method && entry.country === country && entry.currency === currency);
}
