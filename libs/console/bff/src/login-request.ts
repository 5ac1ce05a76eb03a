import type { ErrorCode } from '@mp/shared-util-errors';
import type { ConsoleRole } from './console-session.store';
import type { ErrorDetail } from './console-errors';

export const CONSOLE_ROLES: readonly ConsoleRole[] = ['merchant', 'agent', 'operator'];
const CREDENTIAL_LENGTH_MAX = 200;
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

export type LoginParse =
  { ok: true; login: { role: ConsoleRole; credential: string } } | { ok: false; code: ErrorCode; message: string; details: ErrorDetail[] };

/**
 * `{ "role", "credential" }` and nothing else. Checked by hand because the body arrives as raw
 * bytes (the gateway parses no body before its route decides) and has two fields.
 */
export function parseLoginBody(contentType: string | undefined, body: unknown): LoginParse {
  if (!contentType || !JSON_MEDIA_TYPE.test(contentType))
    return refuse('UNSUPPORTED_MEDIA_TYPE', 'Sign in with an application/json body', [{ field: 'content-type', issue: 'must be application/json' }]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.isBuffer(body) ? body.toString('utf8') : '');
  } catch {
    return refuse('VALIDATION_ERROR', 'The body is not valid JSON', [{ field: 'body', issue: 'must be a JSON object' }]);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return refuse('VALIDATION_ERROR', 'The body must be a JSON object', [{ field: 'body', issue: 'must be a JSON object' }]);
  const fields = parsed as Record<string, unknown>;
  const details: ErrorDetail[] = [];
  for (const name of Object.keys(fields).filter((key) => key !== 'role' && key !== 'credential'))
    details.push({ field: name, issue: 'is not a field; send role and credential' });
  const role = fields['role'];
  if (typeof role !== 'string' || !(CONSOLE_ROLES as readonly string[]).includes(role))
    details.push({ field: 'role', issue: `must be one of ${CONSOLE_ROLES.join(', ')}` });
  const credential = fields['credential'];
  if (typeof credential !== 'string' || credential.trim() === '' || credential.length > CREDENTIAL_LENGTH_MAX)
    details.push({ field: 'credential', issue: `must be a non-empty string of at most ${CREDENTIAL_LENGTH_MAX} characters` });
  if (details.length > 0) return refuse('VALIDATION_ERROR', 'The sign-in request is not valid', details);
  return { ok: true, login: { role: role as ConsoleRole, credential: (credential as string).trim() } };
}

function refuse(code: ErrorCode, message: string, details: ErrorDetail[]): LoginParse {
  return { ok: false, code, message, details };
}
