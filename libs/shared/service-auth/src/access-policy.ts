import type { ServiceName } from './service-token';

/**
 * A callee's allow-list: for each caller, the routes it may use, as `METHOD /route/:pattern`
 * exactly as the controller declares them (Fastify's route pattern, not the concrete path, so
 * no id in a path can widen or dodge a rule). A caller not named may use nothing.
 */
export type ServiceAccessPolicy = Readonly<Partial<Record<ServiceName, readonly string[]>>>;

export type AccessDecision = { allowed: true } | { allowed: false; reason: string };

/** The allow-list ready to ask: one set lookup per request. */
export class CompiledAccessPolicy {
  private readonly routes = new Map<string, ReadonlySet<string>>();

  constructor(readonly policy: ServiceAccessPolicy) {
    for (const [caller, rules] of Object.entries(policy)) {
      for (const rule of rules ?? []) {
        if (!/^(GET|POST|PUT|PATCH|DELETE) \/\S+$/.test(rule)) throw new Error(`access rule "${rule}" for ${caller} is not "METHOD /path"`);
      }
      this.routes.set(caller, new Set(rules));
    }
  }

  /** The callers the policy names, whose public keys the callee must have. */
  get callers(): ServiceName[] {
    return [...this.routes.keys()] as ServiceName[];
  }

  decide(caller: ServiceName, method: string, route: string): AccessDecision {
    // Fastify answers HEAD with the GET route: the same rule.
    const rule = `${method === 'HEAD' ? 'GET' : method} ${route}`;
    const allowed = this.routes.get(caller);
    if (!allowed) return { allowed: false, reason: `${caller} may call no route of this service` };
    if (!allowed.has(rule)) return { allowed: false, reason: `${caller} may not call ${rule}` };
    return { allowed: true };
  }
}
