import { RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import type { ServiceAccessPolicy } from './access-policy';

const join = (...parts: string[]) =>
  `/${parts
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;

/** The routes Nest will register for these controllers, as access rules name them (`GET /internal/...`). */
export function declaredRoutes(controllers: readonly Type[]): string[] {
  const routes: string[] = [];
  for (const controller of controllers) {
    const prefix = (Reflect.getMetadata(PATH_METADATA, controller) as string | undefined) ?? '';
    for (const name of Object.getOwnPropertyNames(controller.prototype)) {
      const handler = (controller.prototype as Record<string, unknown>)[name];
      if (typeof handler !== 'function' || name === 'constructor') continue;
      const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (path === undefined || method === undefined) continue;
      routes.push(`${RequestMethod[method]} ${join(prefix, path)}`);
    }
  }
  return routes;
}

/**
 * What an allow-list gets wrong against the controllers: rules naming no route (a typo locks
 * the caller out) and internal routes no caller may use (dead, or a caller forgotten).
 */
export function accessPolicyGaps(policy: ServiceAccessPolicy, controllers: readonly Type[]): { unknownRules: string[]; unreachableRoutes: string[] } {
  const declared = declaredRoutes(controllers).filter((route) => route.includes(' /internal/'));
  const allowed = new Set(Object.values(policy).flatMap((rules) => rules ?? []));
  return { unknownRules: [...allowed].filter((rule) => !declared.includes(rule)), unreachableRoutes: declared.filter((route) => !allowed.has(route)) };
}
