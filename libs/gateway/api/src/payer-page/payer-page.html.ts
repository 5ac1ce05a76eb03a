import { PAYER_PAGE_SCRIPT } from './payer-page.script';
import { PAYER_PAGE_STYLE } from './payer-page.style';

/** Escapes text for HTML element content and quoted attribute values alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * A decimal amount as a payer reads it off a screen: "1500000.50" → "1 500 000.50", grouped by
 * no-break spaces so a line never breaks inside the number. Works on the digits, never on a
 * float, so every amount shows exactly as the order holds it.
 */
export function formatAmount(amount: string): string {
  const [units, fraction] = amount.split('.');
  const grouped = units.replace(/\B(?=(\d{3})+(?!\d))/g, '\u00a0');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** "mm:ss", or "h:mm:ss" from an hour up; the page script formats its ticks the same way. */
export function formatRemaining(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const pad = (value: number) => String(value).padStart(2, '0');
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return hours > 0 ? `${hours}:${pad(minutes)}:${pad(seconds % 60)}` : `${pad(minutes)}:${pad(seconds % 60)}`;
}

/** The page's URL path; the token is base64url but is encoded anyway, as any path segment. */
export function payerPagePath(token: string): string {
  return `/pay/${encodeURIComponent(token)}`;
}

/**
 * What the page's Content-Security-Policy allows: the one inline style and script carrying
 * this response's nonce, polling its own origin, posting forms to its own origin. Nothing
 * else loads, and no other site may frame the page (an "I have paid" button must not be
 * clickjacked).
 */
export function payerPageContentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export interface DocumentParts {
  title: string;
  nonce: string;
  /** Attributes of <main> the page script reads (status, status URL); already escaped. */
  mainAttributes: string;
  body: string;
}

/** The HTML document around a screen: viewport for phones, inline style and script, no indexing. */
export function renderDocument({ title, nonce, mainAttributes, body }: DocumentParts): string {
  const escapedNonce = escapeHtml(nonce);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style nonce="${escapedNonce}">${PAYER_PAGE_STYLE}</style>
</head>
<body>
<main${mainAttributes}>
${body}
</main>
<script nonce="${escapedNonce}">${PAYER_PAGE_SCRIPT}</script>
</body>
</html>
`;
}
