import { DocumentBuilder, type OpenAPIObject } from '@nestjs/swagger';
import { AccessOperatorController } from '../backoffice/access-operator.controller';
import { AgentController } from '../backoffice/agent.controller';
import { AgentCredentialsOperatorController } from '../backoffice/agent-credentials-operator.controller';
import { ApprovalsOperatorController } from '../backoffice/approvals-operator.controller';
import { ConsoleKeysOperatorController } from '../backoffice/console-keys-operator.controller';
import { EventAnchorsOperatorController } from '../backoffice/event-anchors-operator.controller';
import { OperatorController } from '../backoffice/operator.controller';
import { SandboxOperatorController } from '../backoffice/sandbox-operator.controller';
import { WithdrawalsOperatorController } from '../backoffice/withdrawals-operator.controller';
import { CallbackAllowListController } from '../callback-destinations/callback-allow-list.controller';
import { CallbacksBackofficeController } from '../callbacks/callbacks-backoffice.controller';
import { AgentDisputesController, OperatorDisputesController } from '../disputes/dispute-review.controllers';
import { MerchantRateLimitController } from '../rate-limit/merchant-rate-limit.controller';
import { buildApiDocument } from './api-document';
import { BACKOFFICE_BEARER_SCHEME } from './backoffice-api.decorator';

/** The controllers of the agent API (`/backoffice/v1/agent`, role agent). */
export const AGENT_API_CONTROLLERS = [AgentController, AgentDisputesController];

/** The controllers of the operator API (the rest of `/backoffice/v1`, role operator). A new one goes here and into the gateway module. */
export const BACKOFFICE_API_CONTROLLERS = [
  OperatorController,
  AgentCredentialsOperatorController,
  AccessOperatorController,
  ApprovalsOperatorController,
  WithdrawalsOperatorController,
  CallbacksBackofficeController,
  CallbackAllowListController,
  MerchantRateLimitController,
  OperatorDisputesController,
  SandboxOperatorController,
  ConsoleKeysOperatorController,
  EventAnchorsOperatorController,
];

/** Not a merchant-facing contract: it changes with the platform, so it carries the platform's API generation, not a semantic version of its own. */
const BACKOFFICE_API_VERSION = 'v1';

const BEARER_AUTHENTICATION = `Every request carries \`Authorization: Bearer <token>\`: an operator's credential (\`npm run operator:create\`, or \`POST /backoffice/v1/operator-credentials\`) or an agent's (\`POST /backoffice/v1/agents\`). Tokens are shown once, stored hashed, expire and can be revoked.

- No token: \`401 MISSING_AUTH_HEADER\`; an unknown or deactivated one \`401 INVALID_API_KEY\`; \`401 CREDENTIAL_EXPIRED\` and \`401 CREDENTIAL_REVOKED\` say why a known one stopped working.
- A token of the other role: \`403 FORBIDDEN\`. Merchant signatures never work here, and these tokens never work on \`/v2\`.
- Every authenticated answer carries \`credential-expires-at\`: when the caller's token stops working, so a client can ask for a renewal before it does.

Errors have the body of the merchant API: \`{"error": {"code", "message", "details"}, "request_id"}\`, with the status the error catalogue gives each code.`;

function backofficeConfig(title: string, description: string, tags: ReadonlyArray<[string, string]>): Omit<OpenAPIObject, 'paths'> {
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.0.4')
    .setTitle(title)
    .setDescription(`${description}\n\n## Authentication\n\n${BEARER_AUTHENTICATION}`)
    .setVersion(BACKOFFICE_API_VERSION)
    .addServer('http://127.0.0.1:3000', 'Local development (npm start, docker compose)')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An operator or agent token (see Authentication)' }, BACKOFFICE_BEARER_SCHEME);
  for (const [name, tagDescription] of tags) builder.addTag(name, tagDescription);
  return builder.build();
}

/** The agent API: what a payment agent's token reaches. */
export async function buildAgentApiDocument(): Promise<OpenAPIObject> {
  const config = backofficeConfig(
    'Merchant payments agent API',
    "What payment agents do with an agent token: see their orders and the payouts they could take, take one, confirm or decline a pay-in, complete a payout with a receipt, review disputes on their pay-ins. Another agent's order is not found, in the very answer a missing order gets.",
    [
      ['Agent orders', "The agent's pay-ins and payouts"],
      ['Agent disputes', "Disputes on the agent's pay-ins"],
    ],
  );
  return buildApiDocument({ controllers: AGENT_API_CONTROLLERS, config });
}

/** The back-office (operator) API: what an operator's token reaches. */
export async function buildBackofficeApiDocument(): Promise<OpenAPIObject> {
  const config = backofficeConfig(
    'Merchant payments back-office API',
    'What operators do with an operator token: merchants, their methods, fees, limits and secrets, agents, any order, deposits and conversions, withdrawals, approvals, callbacks and disputes. Every action is audited.',
    [
      ['Merchants', 'Merchants, method catalogs, agents, orders, balances and the ledger'],
      ['Access', 'Merchant secrets and status, operator credentials, the audit trail'],
      ['Approvals', 'Deposit adjustments and conversions above the approval threshold'],
      ['Withdrawals', 'Conversions, stuck withdrawals and their resolution'],
      ['Callbacks', "Merchants' callback deliveries, endpoints, allow-lists and webhook secrets"],
      ['Rate limits', "A merchant's own rate limit"],
      ['Disputes', 'Dispute reviews and receipt downloads'],
      ['Sandbox', "Merchants' sandbox credentials"],
      ['Event anchors', "The daily anchors of each service's event store: what proves later that no event was changed"],
    ],
  );
  return buildApiDocument({ controllers: BACKOFFICE_API_CONTROLLERS, config });
}
