import { createHash } from 'node:crypto';
import { bech32 as bech32Reference, bech32m as bech32mReference } from 'bech32';
import bs58check from 'bs58check';
import { checkWalletAddress, detectNetwork, eip55Checksummed } from './wallet-address';
import type { WalletNetwork } from './assets';

/**
 * The address matrix: at least ten valid and ten invalid addresses per network. Valid ones are
 * published test vectors (EIP-55, BIP-173, BIP-350, well-known mainnet addresses) plus
 * addresses encoded here with independent implementations (the `bs58check` and `bech32`
 * packages, not the @scure/base code the validator uses), so a shared bug cannot hide.
 */
const bytes20 = (seed: number): Buffer => createHash('sha256').update(`seed-${seed}`).digest().subarray(0, 20);
const bytes32 = (seed: number): Buffer => createHash('sha256').update(`seed32-${seed}`).digest();
const base58With = (version: number, seed: number): string => bs58check.encode(Buffer.concat([Buffer.from([version]), bytes20(seed)]));
const segwitV0 = (hrp: string, program: Buffer): string => bech32Reference.encode(hrp, [0, ...bech32Reference.toWords(program)]);
const taproot = (hrp: string, program: Buffer): string => bech32mReference.encode(hrp, [1, ...bech32mReference.toWords(program)]);
const seeds = [1, 2, 3, 4, 5, 6, 7, 8];

/** Changes one character to another of the same alphabet, so only the checksum can catch it. */
function typo(address: string, position: number, alphabet: string): string {
  const current = address[position];
  const replacement = alphabet[(alphabet.indexOf(current) + 1) % alphabet.length];
  return address.slice(0, position) + replacement + address.slice(position + 1);
}
const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BECH32_ALPHABET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

const VALID: Record<WalletNetwork, string[]> = {
  TRON: ['TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', ...seeds.map((seed) => base58With(0x41, seed)), base58With(0x41, 99)],
  ETHEREUM: [
    // EIP-55's own test vectors: all caps, all lower, and mixed case.
    '0x52908400098527886E0F7030069857D2E4169EE7',
    '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
    '0xde709f2102306220921060314715629080e2fb77',
    '0x27b1fdb04752bbc536007a920d24acb045561c26',
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    `0x${bytes20(1).toString('hex')}`,
    `0x${bytes20(2).toString('hex').toUpperCase()}`,
  ],
  BITCOIN: [
    '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
    '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
    'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4',
    'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3',
    'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
    base58With(0x00, 1),
    base58With(0x05, 2),
    segwitV0('bc', bytes20(3)),
    segwitV0('bc', bytes32(4)),
    taproot('bc', bytes32(5)),
  ],
};

const validTron = VALID.TRON[1];
const validEvm = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const validSegwit = segwitV0('bc', bytes20(3));

const INVALID: Record<WalletNetwork, Array<[string, RegExp]>> = {
  TRON: [
    [typo(validTron, 10, BASE58_ALPHABET), /checksum/],
    [typo(validTron, validTron.length - 1, BASE58_ALPHABET), /checksum/],
    [base58With(0x42, 1), /TRON address prefix|not a TRON/],
    [validTron.slice(0, -1), /bytes|checksum/],
    [`${validTron}1`, /bytes|checksum/],
    [validEvm, /Ethereum/],
    [base58With(0x00, 1), /Bitcoin address, not a TRON/],
    [` ${validTron}`, /whitespace/],
    [`${validTron}\n`, /whitespace/],
    [`${validTron.slice(0, 5)}\u200b${validTron.slice(5)}`, /invisible/],
    [validTron.replace('T', '\u0422'), /non-ASCII/], // Cyrillic Te
    ['T0OIl0000000000000000000000000000', /not a TRON|checksum|bytes/],
  ],
  ETHEREUM: [
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', /EIP-55/],
    ['0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', /EIP-55/],
    [validEvm.slice(0, -1), /39 hex digits/],
    [`${validEvm}a`, /41 hex digits/],
    ['0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', /lower-case 0x/],
    [`0x${'g'.repeat(40)}`, /hexadecimal/],
    [validEvm.slice(2), /not a ETHEREUM|not an? /],
    [validTron, /TRON address, not a ETHEREUM/],
    [validSegwit, /Bitcoin address, not a ETHEREUM/],
    [`${validEvm} `, /whitespace/],
    [validEvm.replace('a', '\u0430'), /non-ASCII/], // Cyrillic a
    [`${validEvm.slice(0, 4)}\u200d${validEvm.slice(4)}`, /invisible/],
  ],
  BITCOIN: [
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5', /checksum/],
    [typo(validSegwit, 12, BECH32_ALPHABET), /checksum/],
    [typo('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 8, BASE58_ALPHABET), /checksum/],
    ['bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', /mixes upper and lower/],
    [segwitV0('tb', bytes20(3)), /testnet/],
    [base58With(0x6f, 1), /testnet/],
    [base58With(0xc4, 2), /testnet/],
    // Witness v0 encoded with bech32m, and v1 with bech32: BIP-350's crossed-constant cases.
    [bech32mReference.encode('bc', [0, ...bech32mReference.toWords(bytes20(3))]), /requires bech32/],
    [bech32Reference.encode('bc', [1, ...bech32Reference.toWords(bytes32(5))]), /requires bech32m/],
    [segwitV0('bc', bytes20(3).subarray(0, 19)), /wrong length/],
    [validTron, /TRON address, not a BITCOIN/],
    [validEvm, /Ethereum .* not a BITCOIN/],
    [`1A1zP1eP5QGefi2DMPTfTL5SLmv7Divf\u200bNa`, /invisible/],
    ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa\t', /whitespace/],
  ],
};

describe('wallet address validation', () => {
  for (const network of Object.keys(VALID) as WalletNetwork[]) {
    describe(network, () => {
      it.each(VALID[network])('accepts %s', (address) => {
        expect(checkWalletAddress(network, address)).toEqual({ valid: true, network, address });
      });

      it.each(INVALID[network])('refuses %j', (address, issue) => {
        const check = checkWalletAddress(network, address);
        expect(check.valid).toBe(false);
        if (!check.valid) expect(check.issue).toMatch(issue);
      });
    });
  }

  it('names the network a wrong-network address belongs to', () => {
    expect(checkWalletAddress('TRON', validEvm)).toMatchObject({ valid: false, detectedNetwork: 'ETHEREUM' });
    expect(checkWalletAddress('ETHEREUM', validTron)).toMatchObject({ valid: false, detectedNetwork: 'TRON' });
    expect(checkWalletAddress('BITCOIN', segwitV0('tb', bytes20(1)))).toMatchObject({ valid: false, detectedNetwork: 'BITCOIN_TESTNET' });
    expect(detectNetwork('not-an-address')).toBeNull();
  });

  it('computes EIP-55 checksums as the EIP publishes them', () => {
    expect(`0x${eip55Checksummed('5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')}`).toBe(validEvm);
    expect(`0x${eip55Checksummed('FB6916095CA1DF60BB79CE92CE3EA74C37C5D359')}`).toBe('0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359');
  });
});
