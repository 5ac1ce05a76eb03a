import { randomBytes } from 'node:crypto';
import { payerLinkContext, payerPageTokenHash } from '@mp/contracts-payments';
import { ProcessSealer, SecretKeyring } from '@mp/shared-util-secret-box';
import type { PaymentsSettings } from '../payments-settings';
import { PayerPageLinks } from './payer-page-links';

const linksWith = (secretsKeyring: SecretKeyring) => new PayerPageLinks({ secretsKeyring, payerPageBaseUrl: 'https://pay.example' } as PaymentsSettings);

describe('payer-page links across a payments master-key rotation', () => {
  const keyV1 = randomBytes(32);
  const keyV2 = randomBytes(32);

  it('keeps showing the link an order was created with while its key version is in the keyring', () => {
    const before = linksWith(SecretKeyring.single(keyV1));
    const createdWith = before.tokenFor('mch_1', 'A-1');
    const storedHash = payerPageTokenHash(createdWith);

    const rotated = linksWith(
      new SecretKeyring(
        2,
        new Map([
          [2, keyV2],
          [1, keyV1],
        ]),
      ),
    );
    expect(rotated.urlFor('mch_1', 'A-1', storedHash)).toBe(`https://pay.example/pay/${createdWith}`);
    // New orders get tokens under the current key.
    expect(rotated.tokenFor('mch_1', 'A-2')).not.toBe(before.tokenFor('mch_1', 'A-2'));
    const newHash = payerPageTokenHash(rotated.tokenFor('mch_1', 'A-2'));
    expect(rotated.urlFor('mch_1', 'A-2', newHash)).toBe(`https://pay.example/pay/${rotated.tokenFor('mch_1', 'A-2')}`);
  });

  it('shows, on a replica that has the new key only as the next one, the link a promoted replica created', () => {
    const promoted = linksWith(
      new SecretKeyring(
        2,
        new Map([
          [2, keyV2],
          [1, keyV1],
        ]),
      ),
    );
    const createdWith = promoted.tokenFor('mch_1', 'B-1');
    const notYetPromoted = linksWith(
      new SecretKeyring(
        1,
        new Map([
          [1, keyV1],
          [2, keyV2],
        ]),
      ),
    );
    expect(notYetPromoted.urlFor('mch_1', 'B-1', payerPageTokenHash(createdWith))).toBe(`https://pay.example/pay/${createdWith}`);
    // Without the next key it could only show a link that does not open the page.
    expect(linksWith(SecretKeyring.single(keyV1)).urlFor('mch_1', 'B-1', payerPageTokenHash(createdWith))).not.toBe(`https://pay.example/pay/${createdWith}`);
  });

  it('seals the link for the gateway process that asked: only it opens it, only for that order, and it is the link reads show', () => {
    const links = linksWith(SecretKeyring.single(keyV1));
    const gateway = new ProcessSealer();
    const storedHash = payerPageTokenHash(links.tokenFor('mch_1', 'C-1'));
    const sealed = links.sealedUrlFor(gateway.publicKey, 'mch_1', 'C-1', storedHash);
    expect(sealed).not.toContain(links.tokenFor('mch_1', 'C-1'));
    expect(gateway.open(sealed, payerLinkContext('mch_1', 'C-1'))).toBe(links.urlFor('mch_1', 'C-1', storedHash));
    expect(gateway.open(sealed, payerLinkContext('mch_1', 'C-2'))).toBeNull();
    expect(new ProcessSealer().open(sealed, payerLinkContext('mch_1', 'C-1'))).toBeNull();
  });
});
