import { execFileSync } from 'node:child_process';
import { curlCommand, shellQuote } from './cli';
import { MerchantClient } from './client';

describe('the merchant CLI shell output', () => {
  it.each([["it's"], ['{ "a": "Кофе ☕",\n  "b": "$HOME `x` \\\\ !" }'], ['']])('quotes %j so bash reads it back unchanged', (text) => {
    expect(execFileSync('bash', ['-c', `printf '%s' ${shellQuote(text)}`], { encoding: 'utf8' })).toBe(text);
  });

  it('prints a curl command with the signed headers and the exact body', () => {
    const client = new MerchantClient({
      baseUrl: 'http://127.0.0.1:3000/',
      merchantId: 'mch_0123456789abcdef01234567',
      apiSecret: 'sk_Zm9yLWRvY3Mtb25seS1ub3QtYS1yZWFsLXNlY3JldA',
    });
    const command = curlCommand(client.prepare('POST', '/v2/payments/shop%2F2026%3A17/cancel', '{}', 1767225720_000));
    expect(command).toBe(
      "curl -sS -X POST 'http://127.0.0.1:3000/v2/payments/shop%2F2026%3A17/cancel' -H 'accept: application/json' -H 'x-api-key: mch_0123456789abcdef01234567' -H 'x-timestamp: 1767225720' " +
        "-H 'x-signature: 5ab15154e5b8b8f63f8a9eeea3c6c1bdc09c3e3911a8653feef8fb6f280daae9' -H 'content-type: application/json' --data-binary '{}'",
    );
  });
});
