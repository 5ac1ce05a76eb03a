import { createHash } from 'node:crypto';

/**
 * The SHA-256 of every secret value this repository has ever published as an example: the
 * passwords, master keys and service-token private keys that `.env.example` and the dev overlay
 * of deploy/k8s used to ship (they now ship none, and `npm run secrets:generate` makes real ones).
 * Anyone could read those values, so a service that booted on one would protect nothing: every
 * service refuses to start while any of its settings holds one (ConfigReader.assertValid). Kept
 * as hashes so that this file does not hand out the values a second time. A value added to an
 * example in future is added here too (docs/operations/secrets.md).
 */
const PUBLISHED_SECRET_SHA256 = new Set([
  '03c43b38b14de2c53748f6f091420686bab1a2f9f2045f2f4b2e95f09782aa4c',
  '04569685672057e85340fec0a7c9f6f9a92eecad3fc9d73ce6cee907a92c9122',
  '0649a76e66d98c6da031772071d2bd27a89662da6c3148893ff4b6e4ea60a0b8',
  '0988ecc5e9bdd0ea84e59280cfde930eed11a0bb2da4ff70fbf1a3ce602b6c86',
  '0bea3073355b677f8be6daac79ce4e02852e2681236142791bdd040877875b0b',
  '0e052dd6cea309d46e2b680b0de6d313b979570da116d0e73eff2c3ddfaf2086',
  '100e25bb2e3773a5af3c560501bfcf6d72afea34b289c87cb0a04f58046d2dd9',
  '13376e1cef740dba00cbd7ea6d6cc25b12db704b05099231f55eaa2569645de7',
  '1663db2372b92d6036a4cf054c2eea3ec9df4e4b55c66a4a4123d95c0e452843',
  '1b443283b424f281d991fcf84751a2677d03e1d8fab151aef6e0eafdfac2d7f3',
  '1e658d6542777e4c5782dc892cf328fb710e07fe402de6dbcf1c453619a4b519',
  '230c3bbd2369752b7894feb5ba4241a258c956c54b81bc72bb290cf71fccd0a2',
  '3029fa3f86332b6d9cfb37ce4d035bc30850422b4a0254ad1dc943fce1ed1ec0',
  '306c26e622cbd898bc4c8762d31b80a4e4dc5af32503dda2d1bcc33d9cdf1f6a',
  '3314489e148dd2b00c5197e6a5d6ac919c1b64205eb7d6628784a55d9045402f',
  '3d50cdd9c956d61a40cdbc39a5bd5b51c98ba8680cd63bfac663b73a9b97bb0a',
  '3d77d95f33522c20591a8f75cea6540962db266fb9c0f3e0ee10b9a8de07f33f',
  '454fb629fb6dc213f82cb960e441d4510f502386ad2d9c0a6344a27b3c0c27cc',
  '48b08454fd079576884a115d2381256b63dbe2ac7f112502bfe436c0c0b6d349',
  '54bbbc542e6ff913f98e5983b91b292fef5ec9a1b425e4e0fec24a1e5f9adf9d',
  '54f848c2ee50c8de7e9ebcce3eaefef13f0d8ec9bcc530940f7bc7fb1347deb5',
  '560be4003997cc270eb418ab10e580f2efffd3c57d9e5c92b48c6bb18b206e63',
  '579841856eb137ec67da799b11c55aace2ee1acad18fae5ab5020691871e6528',
  '58f5e4ac1437b125c973bd9ce01a9bccee1b864445eca16431f6ae2604781d03',
  '5926c4c0aa0903dfce27b9054452142bf0f767eac0fbc8a87e38d6735eb7edc3',
  '7a3cadd80c7a3c652b6775c07f01c6dcd99f18280bba4e4b55fef83afbfdcab7',
  '7b795dee10a7f2aab478f7d5ccf306df484cfb0713604d7a5c0ffad9aee705bb',
  '7c6898c1095a2fe3b125e2a1794aa6000ac520b23835b10cbbf1ed7d86816dc3',
  '874509662a015b1e935cb40ea0c770f8c73f54c498ebfe3a814a1c12ec9e742f',
  '8b65ba5e7cffd9f064e1ea4bd97841e25dcf563a7b2c038fc3f8b017e0a220e4',
  '8ced7c9bc2297459845eb174fac8c3450ec0541ceff7e1da2fa528156649040f',
  '9065f185b5d545c8c81274ed5668d7e954a31a6a76a4e2681977b88def2bb0fd',
  '90f22b29c0a51d2f0ad28f5d09c44d60374268e0d44837ab60aa26b0cca15724',
  'a516a2c36a99d122e1abccd46651ef6f26bb1b6b4d11a06016714961cee31730',
  'a8866ab16f2c177b2462c203eee2cfa085a60373174ff099b137a51edd3543aa',
  'ac114cdd03bf8b322ce13c15f30ae8b80d0bb4dc1601022c31fbbd94b5e2b4c8',
  'ac7b430cf6e59ee68740f4a03ad2862c0e10e24d6d18d9e10babeff329b4c8b9',
  'b7ef4eff55a26970c4d8e2179518a9152acbd8ba796372c0a8882d383a8a2352',
  'cb687f51a3bd33ace71e9e40368aaf6dea9dfd3f228c47a3079b2cfa9456e4e1',
  'cc3399d8685f62b1828daab7a17df1a009eedf3b28e4e7a4f8241b4482013c9f',
  'd49f6d830ec404bc1ac9b6ab7c6bb9f8f22da8b6aedac739763d2b31ce3e4a86',
  'e0de885f12eac12cdc668c49b3f31da0936cfce0bb0a04c68ec12f8a51809d64',
  'e1dbc4da12feeaac97bf13e2b14ca2dfc9211e351479d4e58aa869dba17c2793',
  'e7ba0ff958236805214aff2b89a4ec830d91c023c258e021bcf3ea928a8e759b',
  'ea510e8156b2c8fdf1ec23f733c8a20a4e28e395f645624cb4f24aec0816a993',
  'ebc923258b5f7ed52bb828347347ccca6626689ee7cb76676d6cc6ea8cfd5d04',
  'ecce650e7ca09e41ca7322b04863ae567ac843c9fc22e376dd1fd60b20493ad4',
  'f07cfca6fd40296520ec663b29949ca39d8ad01a2d3f70b092de0ca003b51381',
  'f8343349043bda705d5f48362b0f6cfbe8c379b8bc546742f8f561d8632d6d9b',
  'fa1dfd72a75ca762e8ed233e000257b613b87fb537fc5267b7481c93e6b7cd24',
]);

const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

/** Whether `value`, or the password inside it when it is a URL, is one of the published examples. */
export function isPublishedSecret(value: string): boolean {
  if (PUBLISHED_SECRET_SHA256.has(sha256(value.trim()))) return true;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return false;
  try {
    const password = decodeURIComponent(new URL(value).password);
    return password !== '' && PUBLISHED_SECRET_SHA256.has(sha256(password));
  } catch {
    return false;
  }
}

/** The names of the settings in `environment` that hold a published example value. */
export function settingsWithPublishedSecrets(environment: Record<string, string | undefined>): string[] {
  return Object.entries(environment)
    .filter(([, value]) => value !== undefined && value !== '' && isPublishedSecret(value))
    .map(([name]) => name)
    .sort();
}
