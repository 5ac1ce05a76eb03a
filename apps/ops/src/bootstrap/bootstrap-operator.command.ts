import 'reflect-metadata';
import { credentialExpiry } from '@mp/access-domain';
import { BackofficeCredentialStore, issuedOperatorJson, type CreatedBackofficeCredential } from '@mp/access-infrastructure';
import { readOperatorCredentialLifetime } from '@mp/gateway-api';
import { ConfigError, ConfigReader, parseCommandLine, type Environment } from '@mp/shared-util-config';
import { DataSource } from 'typeorm';
import { createSecret, type KubernetesApi } from './kubernetes-secret';

/**
 * The bootstrap command's exit codes, for a Job's or a script's caller: 0 the operator was made;
 * 3 refused, an operator exists already (rerun with --force only to recover a deployment whose
 * every operator is locked out); 2 bad arguments or environment; 1 anything else (database
 * unreachable or not migrated yet, the Secret could not be written), in which case nothing was made.
 */
export const BOOTSTRAP_EXIT = { created: 0, failed: 1, usage: 2, refused: 3 } as const;

export interface BootstrapIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** The pod's API access, for --secret; null outside a pod. */
  kubernetes: () => KubernetesApi | null;
}

interface BootstrapConfig {
  databaseUrl: string;
  lifetimeDays: number;
  name: string;
  force: boolean;
  json: boolean;
  secret: string | undefined;
}

/** A Secret's name (RFC 1123 subdomain, as Kubernetes checks it). */
const SECRET_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function readConfig(args: string[], environment: Environment): BootstrapConfig {
  const { values } = parseCommandLine({
    args,
    options: { name: { type: 'string' }, force: { type: 'boolean', default: false }, json: { type: 'boolean', default: false }, secret: { type: 'string' } },
  });
  const reader = new ConfigReader(environment);
  const databaseUrl = reader.url('GATEWAY_DATABASE_URL', { protocols: ['postgres:', 'postgresql:'] });
  const { operatorCredentialLifetimeDays } = readOperatorCredentialLifetime(reader);
  const name = values.name?.trim();
  if (!name) reader.problem('--name is required: the name of the person the first operator is');
  else if (name.length > 200) reader.problem('--name is at most 200 characters');
  if (values.secret !== undefined && (values.secret.length > 253 || !SECRET_NAME.test(values.secret)))
    reader.problem(`--secret ${JSON.stringify(values.secret)} is not a Kubernetes Secret name (lower case letters, digits, '-' and '.')`);
  if (values.secret !== undefined && values.json) reader.problem('--json prints the credential, --secret keeps it out of the output: give one of them');
  reader.assertValid();
  return { databaseUrl, lifetimeDays: operatorCredentialLifetimeDays, name: name as string, force: values.force, json: values.json, secret: values.secret };
}

/** Where the credential goes: the one line of output that holds it, or a Secret and no token in the output at all. */
function delivery(config: BootstrapConfig, io: BootstrapIo): (operator: CreatedBackofficeCredential) => Promise<void> {
  if (config.secret !== undefined) {
    const secret = config.secret;
    const api = io.kubernetes();
    if (!api) throw new ConfigError(['--secret works only inside a Kubernetes pod (no KUBERNETES_SERVICE_HOST, no service account)']);
    return async (operator) => {
      await createSecret(
        api,
        secret,
        {
          token: operator.token,
          operator_id: operator.operatorId as string,
          credential_id: operator.credentialId,
          expires_at: operator.expiresAt?.toISOString() ?? '',
        },
        { 'app.kubernetes.io/component': 'bootstrap-operator' },
      );
      io.out(
        `Operator ${operator.name} (${operator.operatorId}, credential ${operator.credentialId}) made; may issue operator credentials; expires ${operator.expiresAt?.toISOString()}.`,
      );
      io.out(`Its token is in Secret ${api.namespace}/${secret} (key "token"), nowhere else. Read it once, then delete the Secret:`);
      io.out(`  kubectl -n ${api.namespace} get secret ${secret} -o jsonpath='{.data.token}' | base64 -d; kubectl -n ${api.namespace} delete secret ${secret}`);
    };
  }
  return async (operator) => {
    if (config.json) io.out(issuedOperatorJson(operator));
    else
      io.out(
        `Operator ${operator.name} (${operator.operatorId}, credential ${operator.credentialId}; may issue operator credentials)\n  token: ${operator.token}\n  expires: ${operator.expiresAt?.toISOString()}\nUse it as "Authorization: Bearer <token>" on /backoffice/v1, or sign in to the console with it. It is never shown again.`,
      );
  };
}

/**
 * The first operator of a deployment (docs/operations/operators.md), made from the ops image:
 *
 *   node dist/apps/ops/src/bootstrap-operator.js --name "Alice" [--json | --secret NAME] [--force]
 *
 * Needs GATEWAY_DATABASE_URL (the gateway's runtime role: it only inserts a row; init has run
 * the migrations). Prints the credential once, or with --secret writes it to a Kubernetes Secret
 * and prints no token. Refuses (exit 3) when an operator exists; --force makes another bootstrap
 * operator anyway.
 */
export async function runBootstrapOperator(args: string[], environment: Environment, io: BootstrapIo): Promise<number> {
  let config: BootstrapConfig;
  let deliver: (operator: CreatedBackofficeCredential) => Promise<void>;
  try {
    config = readConfig(args, environment);
    deliver = delivery(config, io);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(error.message);
    return BOOTSTRAP_EXIT.usage;
  }
  const dataSource = new DataSource({ type: 'postgres', url: config.databaseUrl, extra: { max: 1, connectionTimeoutMillis: 10_000 } });
  try {
    await dataSource.initialize();
    const [{ found }]: Array<{ found: string | null }> = await dataSource.query(`SELECT to_regclass('backoffice_credentials')::text AS found`);
    if (!found) {
      io.err('the gateway database has no back-office credentials table yet: run init (the migrations) first');
      return BOOTSTRAP_EXIT.failed;
    }
    const result = await new BackofficeCredentialStore(dataSource).createBootstrapOperator(config.name, {
      expiresAt: credentialExpiry(new Date(), config.lifetimeDays),
      force: config.force,
      deliver,
    });
    if (result.kind === 'refused') {
      io.err(
        `refused: this deployment has ${result.operators} operator(s) already, and the bootstrap command makes only the first. Operators issue further credentials through the back office (POST /backoffice/v1/operator-credentials). Use --force only when every operator is locked out.`,
      );
      return BOOTSTRAP_EXIT.refused;
    }
    if (result.operatorsBefore > 0) io.err(`--force: made another bootstrap operator beside ${result.operatorsBefore} existing one(s)`);
    return BOOTSTRAP_EXIT.created;
  } catch (error) {
    io.err(`no operator was made: ${error instanceof Error ? error.message : String(error)}`);
    return BOOTSTRAP_EXIT.failed;
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
  }
}
