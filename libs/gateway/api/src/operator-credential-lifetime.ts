import type { ConfigReader } from '@mp/shared-util-config';

/**
 * OPERATOR_CREDENTIAL_LIFETIME_DAYS: how long a new operator token works. Read by the gateway
 * (credentials issued through the back office) and by the commands that make an operator
 * outside it (the ops image's bootstrap command), so both apply the same bounds.
 */
export function readOperatorCredentialLifetime(reader: ConfigReader): { operatorCredentialLifetimeDays: number } {
  return { operatorCredentialLifetimeDays: reader.integer('OPERATOR_CREDENTIAL_LIFETIME_DAYS', { default: 90, min: 1, max: 366, description: 'how long a new operator token works (1–366); `operator:create` and `bootstrap-operator` read it too' }) };
}
