/** Where the checked-in agent and back-office descriptions live, relative to the repository root (`npm run openapi` writes them). */
export const AGENT_API_DOCUMENT_FILE = 'docs/api/agent-openapi.json';
export const BACKOFFICE_API_DOCUMENT_FILE = 'docs/api/backoffice-openapi.json';
