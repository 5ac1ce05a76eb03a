import { randomBytes } from 'node:crypto';

/** Every response carries a request id (header and error body) that support can search logs for. */
export function newRequestId(): string {
  return `req_${randomBytes(12).toString('hex')}`;
}

export const REQUEST_ID_HEADER = 'x-request-id';
