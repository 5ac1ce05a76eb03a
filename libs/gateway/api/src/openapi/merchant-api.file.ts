/** Where the checked-in description lives, relative to the repository root (`npm run openapi` writes it). */
export const MERCHANT_API_DOCUMENT_FILE = 'openapi.json';
