import { WALLET_ADDRESS_MAX_LENGTH } from '@mp/contracts-withdrawals';
import { sha256 } from '@noble/hashes/sha256';
import { keccak_256 } from '@noble/hashes/sha3';
import { base58, bech32, bech32m, createBase58check } from '@scure/base';
import type { WalletNetwork } from './assets';

/**
 * Wallet address validation per network. A transfer to a mistyped or wrong-network address is
 * irreversible, so the service checks what the spec leaves to the merchant: every checksum,
 * prefix and length, before any money moves.
 *
 * The encodings come from audited libraries (@scure/base for base58check and bech32/bech32m,
 * @noble/hashes for SHA-256 and Keccak-256); only the per-network rules (which version byte,
 * which human-readable part, which lengths) are written here, because they are the product's
 * policy: mainnet only, and Bitcoin witness versions 0 and 1 only.
 */
export type DetectedNetwork = WalletNetwork | 'BITCOIN_TESTNET';

export type AddressCheck = { valid: true; network: WalletNetwork; address: string } | { valid: false; issue: string; detectedNetwork: DetectedNetwork | null };

const base58check = createBase58check(sha256);

const TRON_VERSION_BYTE = 0x41;
const BITCOIN_P2PKH_VERSION = 0x00;
const BITCOIN_P2SH_VERSION = 0x05;
const BITCOIN_TESTNET_VERSIONS = [0x6f, 0xc4];
const BITCOIN_MAINNET_HRP = 'bc';
const BITCOIN_TESTNET_HRPS = ['tb', 'bcrt'];
// Base58check payloads here are a version byte + a 20-byte hash; the checksum adds 4 bytes.
const BASE58_PAYLOAD_BYTES = 21;

const NETWORK_NAMES: Record<DetectedNetwork, string> = {
  TRON: 'a TRON',
  ETHEREUM: 'an Ethereum (EVM)',
  BITCOIN: 'a Bitcoin',
  BITCOIN_TESTNET: 'a Bitcoin testnet',
};

/** Checks `address` for `network`; on failure says why, and which network it belongs to when that can be told. */
export function checkWalletAddress(network: WalletNetwork, address: string): AddressCheck {
  const characterIssue = checkCharacters(address);
  if (characterIssue) return { valid: false, issue: characterIssue, detectedNetwork: null };
  const own = CHECKERS[network](address);
  if (own.kind === 'valid') return { valid: true, network, address };
  const detected = detectNetwork(address);
  if (detected && detected !== network) {
    return { valid: false, issue: `is ${NETWORK_NAMES[detected]} address, not a ${network} one`, detectedNetwork: detected };
  }
  return { valid: false, issue: own.kind === 'invalid' ? own.issue : `is not a ${network} address`, detectedNetwork: detected };
}

/** The network an address is valid on, if any (used to name the mistake in a wrong-network error). */
export function detectNetwork(address: string): DetectedNetwork | null {
  if (checkCharacters(address)) return null;
  for (const network of ['TRON', 'ETHEREUM', 'BITCOIN'] as const) {
    if (CHECKERS[network](address).kind === 'valid') return network;
  }
  return isBitcoinTestnet(address) ? 'BITCOIN_TESTNET' : null;
}

type RuleResult = { kind: 'valid' } | { kind: 'invalid'; issue: string } | { kind: 'not_this_format' };

const CHECKERS: Record<WalletNetwork, (address: string) => RuleResult> = {
  TRON: checkTron,
  ETHEREUM: checkEvm,
  BITCOIN: checkBitcoin,
};

/**
 * Every supported address is plain ASCII letters and digits. Anything else is refused before
 * decoding, with a message that names the likely cause: a pasted space or newline, an invisible
 * character, or a look-alike letter from another alphabet (Cyrillic "а" for Latin "a").
 */
function checkCharacters(address: string): string | null {
  if (address.length === 0) return 'is empty';
  if (address.length > WALLET_ADDRESS_MAX_LENGTH) return `is longer than ${WALLET_ADDRESS_MAX_LENGTH} characters`;
  if (/\s/u.test(address)) return 'contains whitespace';
  if (/[\p{Cf}\p{Cc}]/u.test(address)) return 'contains invisible or control characters';
  if (/[^\x20-\x7e]/u.test(address)) return 'contains non-ASCII characters (look-alike letters?)';
  if (!/^[0-9A-Za-z]+$/.test(address)) return 'contains characters no address uses';
  return null;
}

function decodeBase58Payload(address: string): RuleResult & { payload?: Uint8Array } {
  let raw: Uint8Array;
  try {
    raw = base58.decode(address);
  } catch {
    return { kind: 'not_this_format' };
  }
  if (raw.length !== BASE58_PAYLOAD_BYTES + 4) return { kind: 'invalid', issue: `decodes to ${raw.length} bytes, expected ${BASE58_PAYLOAD_BYTES + 4}` };
  try {
    return { kind: 'valid', payload: base58check.decode(address) };
  } catch {
    return { kind: 'invalid', issue: 'has a wrong base58check checksum (a typo?)' };
  }
}

function checkTron(address: string): RuleResult {
  if (!address.startsWith('T')) return { kind: 'not_this_format' };
  const decoded = decodeBase58Payload(address);
  if (decoded.kind !== 'valid') return decoded;
  if (decoded.payload?.[0] !== TRON_VERSION_BYTE) return { kind: 'invalid', issue: 'does not carry the TRON address prefix 0x41' };
  return { kind: 'valid' };
}

function checkEvm(address: string): RuleResult {
  if (!/^0x/i.test(address)) return { kind: 'not_this_format' };
  const hex = address.slice(2);
  if (!address.startsWith('0x')) return { kind: 'invalid', issue: 'must start with lower-case 0x' };
  if (!/^[0-9a-fA-F]*$/.test(hex)) return { kind: 'invalid', issue: 'has characters that are not hexadecimal' };
  if (hex.length !== 40) return { kind: 'invalid', issue: `has ${hex.length} hex digits, expected 40` };
  const isMixedCase = hex !== hex.toLowerCase() && hex !== hex.toUpperCase();
  if (isMixedCase && eip55Checksummed(hex) !== hex) return { kind: 'invalid', issue: 'has a wrong EIP-55 checksum (a typo?)' };
  return { kind: 'valid' };
}

/** EIP-55: a hex letter is upper case when the matching nibble of keccak256(lower-case hex) is ≥ 8. */
export function eip55Checksummed(hex: string): string {
  const lower = hex.toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(lower));
  let result = '';
  for (let index = 0; index < lower.length; index += 1) {
    const byte = hash[index >> 1] ?? 0;
    const nibble = index % 2 === 0 ? byte >> 4 : byte & 0x0f;
    result += nibble >= 8 ? lower[index].toUpperCase() : lower[index];
  }
  return result;
}

function checkBitcoin(address: string): RuleResult {
  if (/^bc1/i.test(address)) return checkBitcoinSegwit(address);
  if (!/^[13]/.test(address)) return { kind: 'not_this_format' };
  const decoded = decodeBase58Payload(address);
  if (decoded.kind !== 'valid') return decoded;
  const version = decoded.payload?.[0];
  if (version !== BITCOIN_P2PKH_VERSION && version !== BITCOIN_P2SH_VERSION) return { kind: 'invalid', issue: 'has an unknown Bitcoin version byte' };
  return { kind: 'valid' };
}

/** BIP-173 (witness v0, bech32) and BIP-350 (witness v1 taproot, bech32m); mainnet `bc` only. */
function checkBitcoinSegwit(address: string): RuleResult {
  if (address !== address.toLowerCase() && address !== address.toUpperCase())
    return { kind: 'invalid', issue: 'mixes upper and lower case, which bech32 forbids' };
  const lower = address.toLowerCase() as `${string}1${string}`;
  const decoded = decodeSegwit(lower);
  if (!decoded) return { kind: 'invalid', issue: 'has a wrong bech32 checksum (a typo?)' };
  if (decoded.prefix !== BITCOIN_MAINNET_HRP) return { kind: 'not_this_format' };
  const [version, ...programWords] = decoded.words;
  const program = bech32.fromWordsUnsafe(programWords);
  if (version === undefined || !program) return { kind: 'invalid', issue: 'has no valid witness program' };
  if (version === 0) {
    if (decoded.encoding !== 'bech32') return { kind: 'invalid', issue: 'uses bech32m for witness version 0, which requires bech32' };
    if (program.length !== 20 && program.length !== 32) return { kind: 'invalid', issue: 'has a witness program of the wrong length' };
    return { kind: 'valid' };
  }
  if (version === 1) {
    if (decoded.encoding !== 'bech32m') return { kind: 'invalid', issue: 'uses bech32 for witness version 1, which requires bech32m' };
    if (program.length !== 32) return { kind: 'invalid', issue: 'has a taproot program of the wrong length' };
    return { kind: 'valid' };
  }
  return { kind: 'invalid', issue: `uses witness version ${version}, which is not supported` };
}

function decodeSegwit(address: `${string}1${string}`): { prefix: string; words: number[]; encoding: 'bech32' | 'bech32m' } | null {
  for (const [encoding, coder] of [
    ['bech32', bech32],
    ['bech32m', bech32m],
  ] as const) {
    try {
      const { prefix, words } = coder.decode(address, WALLET_ADDRESS_MAX_LENGTH);
      return { prefix, words: Array.from(words), encoding };
    } catch {
      // Try the other checksum constant; neither matching means a typo.
    }
  }
  return null;
}

function isBitcoinTestnet(address: string): boolean {
  const lower = address.toLowerCase();
  if (BITCOIN_TESTNET_HRPS.some((hrp) => lower.startsWith(`${hrp}1`))) return decodeSegwit(lower as `${string}1${string}`) !== null;
  const decoded = decodeBase58Payload(address);
  return decoded.kind === 'valid' && BITCOIN_TESTNET_VERSIONS.includes(decoded.payload?.[0] ?? -1);
}
