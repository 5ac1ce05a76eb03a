/**
 * Path matching for the console's router. Hand-written rather than react-router: the app has a
 * dozen flat routes, no library for it is installed, and these twenty lines are tested here.
 */
export type RouteParams = Record<string, string>;

function segments(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

/** The parameters of `pattern` (`/merchant/orders/:orderId`) in `path`, decoded; null when it does not match. */
export function matchRoute(pattern: string, path: string): RouteParams | null {
  const expected = segments(pattern);
  const actual = segments(path);
  if (expected.length !== actual.length) return null;
  const params: RouteParams = {};
  for (let index = 0; index < expected.length; index += 1) {
    const want = expected[index] as string;
    const got = actual[index] as string;
    if (want.startsWith(':')) {
      try {
        params[want.slice(1)] = decodeURIComponent(got);
      } catch {
        return null;
      }
    } else if (want !== got) {
      return null;
    }
  }
  return params;
}

/** The path of `pattern` with its parameters, each encoded (an order id may hold `/`). */
export function pathFor(pattern: string, params: RouteParams = {}): string {
  return pattern.replace(/:([A-Za-z]+)/g, (_match, name: string) => encodeURIComponent(params[name] ?? ''));
}

/** The location's path inside the app: `/console/merchant/orders` → `/merchant/orders`. */
export function stripBase(pathname: string, base: string): string {
  const baseWithoutSlash = base.replace(/\/$/, '');
  if (pathname === baseWithoutSlash) return '/';
  if (pathname.startsWith(`${baseWithoutSlash}/`)) return pathname.slice(baseWithoutSlash.length) || '/';
  return pathname;
}
