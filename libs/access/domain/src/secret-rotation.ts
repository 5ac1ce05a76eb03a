/**
 * Rotation of a merchant's API secret with an overlap window (docs/api/endpoints.md "8b. Rotate your secrets": "both old and new
 * valid for an overlap window"). Pure decisions; the store applies them in one UPDATE.
 */

/** Where a merchant's API secret stands: the previous one verifies until `previousValidUntil`. */
export interface ApiSecretRotationState {
  previousValidUntil: Date | null;
}

export type ApiSecretRotationDecision =
  | { kind: 'rotate'; previousValidUntil: Date }
  /**
   * A second rotation while an overlap runs is refused: it would end the oldest secret before
   * the end it was promised, and an integrator still switching would be cut off. An operator
   * who must end a leaked secret now rotates with a zero overlap instead.
   */
  | { kind: 'refuse'; code: 'SECRET_ROTATION_IN_PROGRESS'; previousValidUntil: Date };

export function decideApiSecretRotation(
  state: ApiSecretRotationState,
  overlapMs: number,
  now: Date,
  options: { endOverlapNow?: boolean } = {},
): ApiSecretRotationDecision {
  if (!Number.isSafeInteger(overlapMs) || overlapMs < 0) throw new Error(`invariant: the overlap is whole non-negative milliseconds, not ${overlapMs}`);
  const overlapRunning = state.previousValidUntil !== null && state.previousValidUntil > now;
  if (overlapRunning && !(options.endOverlapNow && overlapMs === 0)) {
    return { kind: 'refuse', code: 'SECRET_ROTATION_IN_PROGRESS', previousValidUntil: state.previousValidUntil as Date };
  }
  return { kind: 'rotate', previousValidUntil: new Date(now.getTime() + overlapMs) };
}

/** One secret a signature may be checked against, and until when (null: the current one). */
export interface VerifyingSecret {
  secret: Buffer;
  validUntil: Date | null;
}

/**
 * The secrets a request signed at `now` may use: the current one and the previous one only
 * while its window lasts. Checked on every request, after any cache, so a cached entry never
 * lets a retired secret verify after its window.
 */
export function secretsValidAt(secrets: readonly VerifyingSecret[], now: Date): VerifyingSecret[] {
  return secrets.filter((candidate) => candidate.validUntil === null || candidate.validUntil > now);
}
