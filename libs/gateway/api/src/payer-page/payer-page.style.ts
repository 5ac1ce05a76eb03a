/**
 * The page's whole stylesheet, inlined under the response's CSP nonce: no external fonts or
 * files, so the page loads in one request on a slow phone connection and leaks the payer's
 * visit to nobody. Mobile first; wider screens just centre the column.
 */
export const PAYER_PAGE_STYLE = `
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: #f3f4f6; color: #111827; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 28rem; margin: 0 auto; padding: 1rem; }
h1 { margin: .25rem 0 .75rem; font-size: 1.375rem; line-height: 1.3; }
.reference { margin: -.5rem 0 1rem; color: #4b5563; font-size: .875rem; overflow-wrap: anywhere; }
.card { background: #fff; border-radius: 16px; padding: 1.25rem; box-shadow: 0 1px 3px rgba(17, 24, 39, .08); }
.card + .card { margin-top: .75rem; }
.label { margin: 0; color: #4b5563; font-size: .875rem; }
.row { display: flex; align-items: center; justify-content: space-between; gap: .75rem; min-height: 2.25rem; }
.amount { margin: 0; font-size: 2rem; line-height: 1.25; font-weight: 700; letter-spacing: -.01em; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.amount.long { font-size: 1.375rem; }
.details { margin: 0; font-size: 1.125rem; font-weight: 600; overflow-wrap: anywhere; }
.recipient { margin: .25rem 0 0; color: #374151; overflow-wrap: anywhere; }
.timer { margin: 1rem 0 0; padding: .5rem .75rem; border-radius: 10px; background: #fef3c7; color: #78350f; font-size: .9375rem; }
.timer strong { font-variant-numeric: tabular-nums; }
.intro { margin: 0 0 1rem; color: #374151; }
.steps { margin: 0 0 1rem; padding-left: 1.25rem; color: #374151; }
.steps li + li { margin-top: .375rem; }
.button { display: block; width: 100%; min-height: 3rem; padding: .75rem 1rem; border: 0; border-radius: 12px; background: #1d4ed8; color: #fff; font: inherit; font-weight: 600; text-align: center; text-decoration: none; cursor: pointer; }
.button:disabled { background: #8ea2d6; cursor: progress; }
.button.secondary { background: #e5e7eb; color: #111827; }
.button:focus-visible, .copy:focus-visible { outline: 3px solid #93c5fd; outline-offset: 2px; }
.hint { margin: .5rem 0 0; color: #4b5563; font-size: .875rem; text-align: center; }
.copy { flex: none; padding: .375rem .75rem; border: 1px solid #d1d5db; border-radius: 8px; background: #fff; color: #1d4ed8; font: inherit; font-size: .875rem; cursor: pointer; }
.result { text-align: center; }
.result h1 { margin-top: .75rem; }
.result p { margin: .5rem 0 0; color: #374151; overflow-wrap: anywhere; }
.result .button { margin-top: 1.25rem; }
.badge { display: inline-flex; align-items: center; justify-content: center; width: 3.5rem; height: 3.5rem; border-radius: 50%; font-size: 1.75rem; font-weight: 700; }
.badge.success { background: #d1fae5; color: #047857; }
.badge.failure { background: #fee2e2; color: #b91c1c; }
.badge.neutral { background: #e5e7eb; color: #374151; }
.badge.waiting { border: 4px solid #dbeafe; border-top-color: #1d4ed8; animation: spin 1s linear infinite; }
@keyframes spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .badge.waiting { animation: none; } }
.summary { margin-top: 1.25rem; padding-top: 1rem; border-top: 1px solid #e5e7eb; color: #4b5563; font-size: .9375rem; }
.summary strong, .summary span { display: block; }
.summary strong { color: #111827; font-variant-numeric: tabular-nums; }
`;
