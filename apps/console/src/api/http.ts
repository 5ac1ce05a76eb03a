import { ApiRequestError, parseApiError } from '../lib/errors';
import { parseJsonKeepingMoney } from '../lib/money';

/**
 * The one fetch wrapper of the console: every call goes to /console/api (the BFF, same origin,
 * cookie session), sends the session's CSRF token on anything but GET/HEAD, reads errors in
 * the decisions' model and, when the session is gone (401 CONSOLE_SESSION_REQUIRED), tells the
 * app so it shows the login page.
 */
export const API_BASE = '/console/api';

let csrfToken: string | null = null;
let sessionEnded: () => void = () => undefined;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

export function onSessionEnded(handler: () => void): void {
  sessionEnded = handler;
}

export interface RequestOptions {
  /** A JSON body, serialised with JSON.stringify. */
  json?: unknown;
  /** A JSON body already written as text (money written as exact JSON numbers). */
  jsonText?: string;
  /** A raw body (a receipt file) with its content type. */
  raw?: { body: Blob; contentType: string; headers?: Record<string, string> };
  query?: Record<string, string | number | undefined>;
}

function urlOf(path: string, query: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '') params.set(name, String(value));
  const search = params.toString();
  return `${API_BASE}${path}${search ? `?${search}` : ''}`;
}

async function send(method: string, path: string, options: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: BodyInit | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.jsonText !== undefined) {
    headers['content-type'] = 'application/json';
    body = options.jsonText;
  } else if (options.raw) {
    headers['content-type'] = options.raw.contentType;
    Object.assign(headers, options.raw.headers ?? {});
    body = options.raw.body;
  }
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const response = await fetch(urlOf(path, options.query), { method, headers, body, credentials: 'same-origin', cache: 'no-store' });
  if (!response.ok) {
    const error = parseApiError(response.status, await response.text(), response.headers.get('x-request-id'));
    if (response.status === 401 && error.code === 'CONSOLE_SESSION_REQUIRED') sessionEnded();
    throw new ApiRequestError(error);
  }
  return response;
}

/** A JSON answer (money fields kept as decimal text), or undefined for 204. */
export async function apiJson<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const response = await send(method, path, options);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text === '' ? undefined : parseJsonKeepingMoney(text)) as T;
}

export interface DownloadedFile {
  blob: Blob;
  fileName: string | null;
  contentType: string;
}

/** A file answer (CSV, receipt), with the name its content-disposition gives. */
export async function apiFile(path: string, query?: RequestOptions['query']): Promise<DownloadedFile> {
  const response = await send('GET', path, { query });
  const disposition = response.headers.get('content-disposition') ?? '';
  const fileName = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition)?.[1] ?? null;
  return {
    blob: await response.blob(),
    fileName: fileName ? decodeURIComponent(fileName) : null,
    contentType: response.headers.get('content-type') ?? 'application/octet-stream',
  };
}

/** A path segment (an order id may hold `/`, sent as %2F as the APIs expect). */
export function segment(value: string): string {
  return encodeURIComponent(value);
}
