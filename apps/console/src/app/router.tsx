import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react';
import { stripBase } from '../lib/route-match';

/**
 * A router on the History API. Hand-written rather than react-router: no router is installed,
 * the console has a dozen flat routes, and matching (lib/route-match.ts, unit-tested) is all
 * it needs. The app lives under Vite's base, /console/.
 */
export const APP_BASE = '/console/';
const NAVIGATED = 'console:navigated';

export function currentPath(): string {
  return stripBase(window.location.pathname, APP_BASE);
}

export function hrefOf(path: string): string {
  return `${APP_BASE.replace(/\/$/, '')}${path}`;
}

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', hrefOf(path));
  else window.history.pushState(null, '', hrefOf(path));
  window.dispatchEvent(new Event(NAVIGATED));
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATED, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATED, update);
    };
  }, []);
  return path;
}

export function Link({ to, children, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    // Let the browser open new tabs and windows itself.
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a href={hrefOf(to)} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
