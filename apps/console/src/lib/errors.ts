/** An error answer, read from the decisions' error model `{ error: { code, message, details }, request_id }`. */
export interface ApiError {
  status: number;
  code: string;
  message: string;
  details: { field: string; issue: string }[];
  requestId: string | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Never throws: a body that is not the model (a proxy's HTML page) still gives a message to show. */
export function parseApiError(status: number, bodyText: string, headerRequestId: string | null): ApiError {
  let body: unknown = null;
  try {
    body = JSON.parse(bodyText);
  } catch {
    body = null;
  }
  const error = isRecord(body) && isRecord(body['error']) ? body['error'] : null;
  const requestId = isRecord(body) && typeof body['request_id'] === 'string' ? body['request_id'] : headerRequestId;
  if (!error || typeof error['code'] !== 'string') {
    return { status, code: `HTTP_${status}`, message: `The server answered ${status} without an error description.`, details: [], requestId };
  }
  const details = Array.isArray(error['details'])
    ? error['details']
        .filter((d): d is { field: string; issue: string } => isRecord(d) && typeof d['field'] === 'string' && typeof d['issue'] === 'string')
        .map((d) => ({ field: d.field, issue: d.issue }))
    : [];
  const message = typeof error['message'] === 'string' ? error['message'] : error['code'];
  return { status, code: error['code'], message, details, requestId };
}

/** Thrown by the API layer for every non-2xx answer. */
export class ApiRequestError extends Error {
  constructor(readonly apiError: ApiError) {
    super(apiError.message);
    this.name = 'ApiRequestError';
  }
}
