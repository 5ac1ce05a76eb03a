import { CREDENTIAL_LIFETIME_DAYS_LIMIT, DEFAULT_OPERATOR_CREDENTIAL_LIFETIME_DAYS } from '@mp/access-domain';
import type { ConfigReader } from '@mp/shared-util-config';

export interface OperatorCredentialLifetime {
  /** How long a new operator credential works unless its issuer asks for less. */
  operatorCredentialLifetimeDays: number;
  /** The most an issuer may ask for. */
  operatorCredentialLifetimeMaxDays: number;
}

/**
 * How long a new operator credential works, and the most an issuer may ask for. Read by the
 * gateway (credentials issued through the back office) and by the commands that make an operator
 * outside it (`operator:create`, the ops image's bootstrap command), so all apply the same bounds.
 * The default may not exceed the maximum.
 */
export function readOperatorCredentialLifetime(reader: ConfigReader): OperatorCredentialLifetime {
  const limits = { min: 1, max: CREDENTIAL_LIFETIME_DAYS_LIMIT };
  const operatorCredentialLifetimeMaxDays = reader.integer('OPERATOR_CREDENTIAL_LIFETIME_MAX_DAYS', {
    default: DEFAULT_OPERATOR_CREDENTIAL_LIFETIME_DAYS,
    ...limits,
    description: `the longest life an issuer may give an operator credential (1–${CREDENTIAL_LIFETIME_DAYS_LIMIT}); a longer \`lifetime_days\` is refused`,
  });
  const operatorCredentialLifetimeDays = reader.integer('OPERATOR_CREDENTIAL_LIFETIME_DAYS', {
    default: Math.min(DEFAULT_OPERATOR_CREDENTIAL_LIFETIME_DAYS, operatorCredentialLifetimeMaxDays),
    ...limits,
    description:
      'how long a new operator credential works when its issuer names no life; at most OPERATOR_CREDENTIAL_LIFETIME_MAX_DAYS; `operator:create` and `bootstrap-operator` read it too',
  });
  if (operatorCredentialLifetimeDays > operatorCredentialLifetimeMaxDays)
    reader.problem(
      `OPERATOR_CREDENTIAL_LIFETIME_DAYS (${operatorCredentialLifetimeDays}) may not exceed OPERATOR_CREDENTIAL_LIFETIME_MAX_DAYS (${operatorCredentialLifetimeMaxDays})`,
    );
  return { operatorCredentialLifetimeDays, operatorCredentialLifetimeMaxDays };
}
