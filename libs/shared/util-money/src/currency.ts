/**
 * Minor-unit scale per currency or crypto asset. The scale of an asset "cannot be easily
 * changed" once money is stored against it (TigerBeetle data modelling), so this table is
 * append-only: add assets, never edit a scale.
 */
const SCALE_BY_CURRENCY: Readonly<Record<string, number>> = {
  // ISO 4217 fiat currencies
  USD: 2,
  EUR: 2,
  GBP: 2,
  RUB: 2,
  INR: 2,
  BRL: 2,
  KZT: 2,
  UZS: 2,
  TRY: 2,
  UAH: 2,
  AZN: 2,
  MXN: 2,
  ARS: 2,
  COP: 2,
  PEN: 2,
  CLP: 0,
  JPY: 0,
  KRW: 0,
  VND: 0,
  IDR: 2,
  THB: 2,
  PHP: 2,
  NGN: 2,
  KES: 2,
  EGP: 2,
  BDT: 2,
  PKR: 2,
  AED: 2,
  KWD: 3,
  BHD: 3,
  // Crypto assets (network-specific variants share the asset's scale)
  USDT: 6,
  USDC: 6,
  BTC: 8,
  ETH: 18,
  TRX: 6,
};

export type CurrencyCode = string;

/** Every currency and asset the platform reads amounts in (the OpenAPI description lists them). */
export const KNOWN_CURRENCIES: readonly string[] = Object.keys(SCALE_BY_CURRENCY);

export function isKnownCurrency(currency: string): boolean {
  return Object.hasOwn(SCALE_BY_CURRENCY, currency);
}

/** Number of decimal places of the currency's minor unit; throws for an unknown currency. */
export function currencyScale(currency: CurrencyCode): number {
  // Own keys only: "constructor" must not find Object.prototype's.
  if (!isKnownCurrency(currency)) throw new Error(`unknown currency ${currency}`);
  return SCALE_BY_CURRENCY[currency] as number;
}
