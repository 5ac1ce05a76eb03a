import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { AUTH_HEADERS, canonicalSignedPath, computeSignature, isTestMerchantId, testMerchantIdFor } from '@mp/access-domain';
import type { BackofficeAuditStore, BackofficeCredentialStore, ConsoleKeyStore, MerchantCredentialStore } from '@mp/access-infrastructure';
import type { Clock } from '@mp/shared-util-clock';
import type { FastifyInstance, FastifyReply, FastifyRequest, InjectOptions } from 'fastify';
import type { ConsoleMetrics } from './console-metrics';
import { sendConsoleError } from './console-errors';
import type { ConsoleSettings } from './console-settings';
import type { ConsoleRole, ConsoleSession, ConsoleSessionStore, NewConsoleSession } from './console-session.store';
import { checkCsrf } from './csrf';
import { parseLoginBody } from './login-request';
import { clearedSessionCookie, sessionCookie, sessionValueOf } from './session-cookie';
import { checkSystemHealth } from './system-health';
import { relayPathRefusal } from './relay-path';

/** The contract's CSP for everything under /console: the bundle's own files only, no inline code. */
export const CONSOLE_CONTENT_SECURITY_POLICY =
  "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

export const CONSOLE_API_PREFIX = '/console/api';

/** Where each console prefix is relayed to, and which role may use it. */
const RELAYS: ReadonlyArray<{ route: string; prefix: string; target: string; role: ConsoleRole; sandbox?: true }> = [
  { route: '/console/api/merchant/v2/*', prefix: '/console/api/merchant', target: '', role: 'merchant' },
  // Test mode: the same /v2 calls signed as the merchant's sandbox merchant (`test_` and its id), the
  // one an operator issued test credentials for; a merchant manages both from one sign-in.
  { route: '/console/api/merchant/test/v2/*', prefix: '/console/api/merchant/test', target: '', role: 'merchant', sandbox: true },
  { route: '/console/api/agent/*', prefix: '/console/api/agent', target: '/backoffice/v1/agent', role: 'agent' },
  { route: '/console/api/operator/*', prefix: '/console/api/operator', target: '/backoffice/v1', role: 'operator' },
];

/** The request headers a relayed call keeps: what the target routes read, and the client's address as proxies told it. */
const FORWARDED_REQUEST_HEADERS = ['content-type', 'accept', 'x-file-name', 'x-forwarded-for', 'x-forwarded-proto', 'user-agent', 'host'];
/** Answer headers the console sets itself, or that describe the hop rather than the answer. */
const DROPPED_ANSWER_HEADERS = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'date',
  'set-cookie',
  'content-security-policy',
  'strict-transport-security',
]);

export interface ConsoleDependencies {
  settings: ConsoleSettings;
  sessions: ConsoleSessionStore;
  consoleKeys: ConsoleKeyStore;
  backofficeCredentials: BackofficeCredentialStore;
  merchants: MerchantCredentialStore;
  audit: BackofficeAuditStore;
  metrics: ConsoleMetrics;
  clock: Clock;
}

type ConsoleRequest = FastifyRequest & { requestId?: string };

/**
 * The console's HTTP side inside the gateway: sessions, the relays, system health and the
 * bundle. Registered on the gateway's Fastify instance (after configureGatewayHttp, whose hooks
 * give every answer its request id and security headers).
 */
export class ConsoleHttp {
  private readonly logger = new Logger('Console');

  constructor(private readonly deps: ConsoleDependencies) {}

  register(fastify: FastifyInstance): void {
    fastify.addHook('onRequest', async (request, reply) => {
      if (request.url === '/console' || request.url.startsWith('/console/') || request.url.startsWith('/console?'))
        void reply.header('content-security-policy', CONSOLE_CONTENT_SECURITY_POLICY);
    });
    fastify.get(`${CONSOLE_API_PREFIX}/session`, (request, reply) => this.session(request, reply));
    fastify.post(`${CONSOLE_API_PREFIX}/login`, (request, reply) => this.login(request, reply));
    fastify.post(`${CONSOLE_API_PREFIX}/logout`, (request, reply) => this.logout(request, reply));
    fastify.get(`${CONSOLE_API_PREFIX}/operator/system-health`, (request, reply) => this.systemHealth(fastify, request, reply));
    for (const relay of RELAYS) fastify.all(relay.route, (request, reply) => this.relay(fastify, relay, request, reply));
    fastify.all(`${CONSOLE_API_PREFIX}/*`, (request, reply) =>
      sendConsoleError(request, reply, 'NOT_FOUND', `No console route ${request.method} ${request.url.split('?')[0]}`),
    );
    this.registerBundle(fastify);
  }

  private async session(request: ConsoleRequest, reply: FastifyReply): Promise<void> {
    const session = await this.sessionOf(request);
    if (!session) return this.sessionRequired(request, reply);
    await reply
      .status(200)
      .type('application/json')
      .send(JSON.stringify(sessionBody(session)));
  }

  private async login(request: ConsoleRequest, reply: FastifyReply): Promise<void> {
    const csrf = checkCsrf({
      method: request.method,
      host: request.headers.host,
      origin: header(request, 'origin'),
      csrfHeader: undefined,
      sessionCsrfToken: null,
      isLogin: true,
    });
    if (!csrf.ok)
      return sendConsoleError(request, reply, 'CSRF_TOKEN_INVALID', 'The request did not come from the console', [{ field: csrf.field, issue: csrf.issue }]);
    const parsed = parseLoginBody(request.headers['content-type'], request.body);
    if (!parsed.ok) {
      this.deps.metrics.login('unknown', 'invalid_request');
      return sendConsoleError(request, reply, parsed.code, parsed.message, parsed.details);
    }
    const { role, credential } = parsed.login;
    const now = this.deps.clock.now();
    const identity = await this.identify(role, credential, now);
    if (!identity) {
      this.deps.metrics.login(role, 'invalid_credentials');
      this.logger.warn(`console sign-in refused: role=${role} (unknown, revoked or expired credential, or one of another role)`);
      return sendConsoleError(request, reply, 'INVALID_CONSOLE_CREDENTIALS', 'The credential does not open the console for this role', [
        { field: 'credential', issue: 'unknown, revoked or expired, or of another role' },
      ]);
    }
    const created = await this.deps.sessions.create(identity, now);
    this.deps.metrics.login(role, 'success');
    this.logger.log(`console sign-in: role=${role} subject=${identity.subjectId}`);
    await this.recordAudit(created.session, 'POST /console/api/login', 200);
    await reply
      .status(200)
      .header('set-cookie', sessionCookie(created.cookieValue))
      .type('application/json')
      .send(JSON.stringify(sessionBody(created.session)));
  }

  private async logout(request: ConsoleRequest, reply: FastifyReply): Promise<void> {
    const session = await this.sessionOf(request);
    if (!session) return this.sessionRequired(request, reply);
    if (!(await this.csrfHolds(request, reply, session))) return;
    await this.deps.sessions.end(session.sessionSha256);
    this.deps.metrics.sessionEnded('logout');
    this.logger.log(`console sign-out: role=${session.role} subject=${session.subjectId}`);
    await this.recordAudit(session, 'POST /console/api/logout', 204);
    await reply.status(204).header('set-cookie', clearedSessionCookie()).send();
  }

  private async systemHealth(fastify: FastifyInstance, request: ConsoleRequest, reply: FastifyReply): Promise<void> {
    const session = await this.sessionOf(request);
    if (!session) return this.sessionRequired(request, reply);
    if (session.role !== 'operator') return this.roleForbidden(request, reply, 'operator');
    // The operator's token may have been revoked since sign-in: this view is answered here, not relayed, so it checks.
    const bearer = await this.deps.sessions.bearerOf(session);
    const authenticated = bearer === null ? null : await this.deps.backofficeCredentials.authenticate(bearer, this.deps.clock.now());
    if (!authenticated?.ok) return this.endSession(request, reply, session, 'credential_revoked');
    const health = await checkSystemHealth(fastify, this.deps.settings);
    await reply.status(200).type('application/json').send(JSON.stringify(health));
  }

  private async relay(fastify: FastifyInstance, relay: (typeof RELAYS)[number], request: ConsoleRequest, reply: FastifyReply): Promise<void> {
    const session = await this.sessionOf(request);
    if (!session) return this.sessionRequired(request, reply);
    if (!(await this.csrfHolds(request, reply, session))) return;
    if (session.role !== relay.role) return this.roleForbidden(request, reply, relay.role);
    const rawUrl = request.raw.url ?? request.url;
    const url = `${relay.target}${rawUrl.slice(relay.prefix.length)}`;
    if (relayPathRefusal(url) !== null || (relay.role === 'operator' && /^\/backoffice\/v1\/agent(\/|\?|$)/.test(url))) {
      return sendConsoleError(request, reply, 'NOT_FOUND', `No console route ${request.method} ${rawUrl.split('?')[0]}`);
    }
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = header(request, name);
      if (value !== undefined) headers[name] = value;
    }
    const body = request.body === undefined || request.body === null ? undefined : (request.body as Buffer | NodeJS.ReadableStream);
    if (session.role === 'merchant') {
      const signed = await this.merchantSignature(session, url, Buffer.isBuffer(body) ? body : Buffer.alloc(0), relay.sandbox === true);
      if (signed === 'no_sandbox')
        return sendConsoleError(
          request,
          reply,
          'NOT_FOUND',
          'This merchant has no test credentials yet: an operator issues them (POST /backoffice/v1/merchants/{merchant_id}/test-credentials)',
        );
      if (!signed) return this.endSession(request, reply, session, 'credential_revoked');
      Object.assign(headers, signed);
    } else {
      const bearer = await this.deps.sessions.bearerOf(session);
      if (bearer === null) return this.endSession(request, reply, session, 'credential_revoked');
      headers['authorization'] = `Bearer ${bearer}`;
    }
    // Through the gateway's own routes, so every guard, pipe, audit and rate limit applies as to a
    // direct call. The peer address stays the browser's (or its proxy's, with X-Forwarded-For), so
    // per-address limits still count the real client.
    const answer = await fastify.inject({
      method: request.method as InjectOptions['method'],
      url,
      headers,
      ...(body === undefined ? {} : { payload: body as InjectOptions['payload'] }),
      remoteAddress: request.raw.socket?.remoteAddress ?? '127.0.0.1',
    });
    this.deps.metrics.relay(session.role, answer.statusCode);
    if (answer.statusCode === 401) return this.endSession(request, reply, session, 'credential_revoked');
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !DROPPED_ANSWER_HEADERS.has(name.toLowerCase())) void reply.header(name, value);
    }
    await reply.status(answer.statusCode).send(answer.rawPayload);
  }

  /**
   * The merchant's signature headers, made here with its current API secret (its sandbox
   * merchant's, in test mode); null when its console key no longer works, `no_sandbox` when test
   * mode is asked of a merchant without test credentials (or of a sandbox merchant itself).
   */
  private async merchantSignature(session: ConsoleSession, url: string, body: Buffer, sandbox: boolean): Promise<Record<string, string> | 'no_sandbox' | null> {
    if (!session.merchantId || !session.consoleKeyId || !(await this.deps.consoleKeys.isActive(session.consoleKeyId, this.deps.clock.now()))) return null;
    const merchantId = sandbox ? testMerchantIdFor(session.merchantId) : session.merchantId;
    if (sandbox && isTestMerchantId(session.merchantId)) return 'no_sandbox';
    const credentials = await this.deps.merchants.findCredentials(merchantId);
    if (!credentials) return sandbox ? 'no_sandbox' : null;
    // Real time, as the signature guard reads it (the gateway's test clock moves credential lifetimes, not signatures).
    const timestamp = String(Math.floor(Date.now() / 1000));
    return {
      [AUTH_HEADERS.apiKey]: merchantId,
      [AUTH_HEADERS.timestamp]: timestamp,
      [AUTH_HEADERS.signature]: computeSignature(credentials.apiSecret, timestamp, canonicalSignedPath(url), body),
    };
  }

  private async identify(role: ConsoleRole, credential: string, now: Date): Promise<NewConsoleSession | null> {
    if (role === 'merchant') {
      const key = await this.deps.consoleKeys.authenticate(credential, now);
      if (!key.ok) return null;
      const profile = await this.deps.merchants.findProfile(key.merchantId);
      if (!profile) return null;
      return {
        role,
        subjectId: key.merchantId,
        merchantId: key.merchantId,
        consoleKeyId: key.keyId,
        credentialId: null,
        displayName: profile.name,
        bearerToken: null,
      };
    }
    const authenticated = await this.deps.backofficeCredentials.authenticate(credential, now);
    if (!authenticated.ok || authenticated.principal.role !== role) return null;
    const principal = authenticated.principal;
    const subjectId = role === 'agent' ? principal.agentId : principal.credentialId;
    if (!subjectId) return null;
    return {
      role,
      subjectId,
      merchantId: null,
      consoleKeyId: null,
      credentialId: principal.credentialId,
      displayName: principal.name,
      bearerToken: credential,
    };
  }

  private async sessionOf(request: ConsoleRequest): Promise<ConsoleSession | null> {
    const value = sessionValueOf(request.headers.cookie);
    return value === null ? null : this.deps.sessions.use(value, this.deps.clock.now());
  }

  private async csrfHolds(request: ConsoleRequest, reply: FastifyReply, session: ConsoleSession): Promise<boolean> {
    const csrf = checkCsrf({
      method: request.method,
      host: request.headers.host,
      origin: header(request, 'origin'),
      csrfHeader: header(request, 'x-csrf-token'),
      sessionCsrfToken: session.csrfToken,
      isLogin: false,
    });
    if (csrf.ok) return true;
    await sendConsoleError(request, reply, 'CSRF_TOKEN_INVALID', 'The request did not come from the console, or carries no valid x-csrf-token', [
      { field: csrf.field, issue: csrf.issue },
    ]);
    return false;
  }

  private async endSession(request: ConsoleRequest, reply: FastifyReply, session: ConsoleSession, reason: 'credential_revoked'): Promise<void> {
    await this.deps.sessions.end(session.sessionSha256);
    this.deps.metrics.sessionEnded(reason);
    this.logger.log(`console session ended: role=${session.role} subject=${session.subjectId} reason=${reason}`);
    void reply.header('set-cookie', clearedSessionCookie());
    await this.sessionRequired(request, reply);
  }

  private sessionRequired(request: ConsoleRequest, reply: FastifyReply): Promise<void> {
    return sendConsoleError(request, reply, 'CONSOLE_SESSION_REQUIRED', 'Sign in to the console first (the session is missing, expired or ended)');
  }

  private roleForbidden(request: ConsoleRequest, reply: FastifyReply, needed: ConsoleRole): Promise<void> {
    return sendConsoleError(request, reply, 'CONSOLE_ROLE_FORBIDDEN', `This part of the console is for the ${needed} role`);
  }

  /** Sign-ins and sign-outs join the back-office audit trail, the actor being the credential that signed in. */
  private async recordAudit(session: ConsoleSession, action: string, statusCode: number): Promise<void> {
    try {
      await this.deps.audit.record({
        principal: {
          credentialId: session.credentialId ?? session.consoleKeyId ?? session.subjectId,
          role: session.role as 'operator',
          name: session.displayName,
        },
        action,
        path: action.split(' ')[1] ?? action,
        merchantId: session.merchantId,
        statusCode,
        errorCode: null,
        reason: null,
        occurredAt: this.deps.clock.now(),
      });
    } catch (error) {
      this.logger.error(`console ${action} by ${session.role} ${session.subjectId} was not audited: ${String(error)}`);
    }
  }

  /** The SPA: its assets with a long cache, and index.html for every client-side route. */
  private registerBundle(fastify: FastifyInstance): void {
    const { assetsDir } = this.deps.settings;
    const indexFile = join(assetsDir, 'index.html');
    // Read once: like the assets, index.html is fixed for the process's life.
    const index = existsSync(indexFile) ? readFileSync(indexFile) : null;
    const bundled = index !== null;
    if (bundled) {
      // Vite names every asset by its content hash: a file never changes under its name. One route
      // per file found at boot (wildcard: false): the bundle is fixed for the process's life, and
      // any other asset path falls through to serveIndex's 404 in the error model.
      // Loaded when registered: the gateway's config (and its unit specs) import this library
      // without loading @fastify/static, whose dependencies jest cannot load.
      void fastify.register(import('@fastify/static'), {
        root: join(assetsDir, 'assets'),
        prefix: '/console/assets/',
        decorateReply: false,
        index: false,
        wildcard: false,
        maxAge: '365d',
        immutable: true,
      });
    } else {
      this.logger.warn(`console bundle not found at ${assetsDir} (nx run console:build builds it): /console answers 404`);
    }
    const serveIndex = async (request: ConsoleRequest, reply: FastifyReply) => {
      const path = request.url.split('?')[0] ?? '';
      if (!bundled || path.startsWith('/console/assets/'))
        return sendConsoleError(request, reply, 'NOT_FOUND', bundled ? `No console asset ${path}` : 'The console is not built on this gateway');
      await reply.status(200).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(index);
    };
    fastify.get('/console', serveIndex);
    fastify.get('/console/*', serveIndex);
  }
}

function sessionBody(session: ConsoleSession) {
  return {
    role: session.role,
    subject_id: session.subjectId,
    merchant_id: session.merchantId,
    display_name: session.displayName,
    csrf_token: session.csrfToken,
    expires_at: session.expiresAt.toISOString(),
  };
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : undefined;
}
