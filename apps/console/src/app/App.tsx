import { Fragment, useCallback, useEffect, useRef, useState } from 'react';
import { getSession, login, logout, setMerchantMode, type MerchantMode } from '../api/console-api';
import { onSessionEnded } from '../api/http';
import type { Role, Session } from '../api/types';
import { matchRoute } from '../lib/route-match';
import { agentRoutes } from '../views/agent';
import { merchantRoutes } from '../views/merchant';
import { operatorRoutes } from '../views/operator';
import { ErrorAlert, Loading, toApiError, useAction } from './components';
import { Link, currentPath, navigate, usePath } from './router';
import type { RouteDefinition } from './routes';
import type { ApiError } from '../lib/errors';

const ROUTES_BY_ROLE: Record<Role, RouteDefinition[]> = { merchant: merchantRoutes, agent: agentRoutes, operator: operatorRoutes };

type SessionState =
  { state: 'loading' } | { state: 'signed-out'; notice?: string } | { state: 'error'; error: ApiError } | { state: 'signed-in'; session: Session };

export function App() {
  const [sessionState, setSessionState] = useState<SessionState>({ state: 'loading' });

  const bootstrap = useCallback(() => {
    setSessionState({ state: 'loading' });
    getSession().then(
      (session) => setSessionState({ state: 'signed-in', session }),
      (error: unknown) => {
        const apiError = toApiError(error);
        setSessionState(apiError.status === 401 ? { state: 'signed-out' } : { state: 'error', error: apiError });
      },
    );
  }, []);

  useEffect(() => {
    onSessionEnded(() => setSessionState({ state: 'signed-out', notice: 'Your session has ended. Sign in again to continue.' }));
    bootstrap();
  }, [bootstrap]);

  if (sessionState.state === 'loading')
    return (
      <main id="main" className="centered">
        <Loading />
      </main>
    );
  if (sessionState.state === 'error')
    return (
      <main id="main" className="centered">
        <h1>The console could not start</h1>
        <ErrorAlert error={sessionState.error} />
        <button type="button" onClick={bootstrap}>
          Try again
        </button>
      </main>
    );
  const signedIn = (session: Session) => {
    // Back where the session ended, unless that was another role's page.
    if (!currentPath().startsWith(`/${session.role}/`)) navigate('/', { replace: true });
    setSessionState({ state: 'signed-in', session });
  };
  if (sessionState.state === 'signed-out') return <LoginPage notice={sessionState.notice} onSignedIn={signedIn} />;
  return <Shell session={sessionState.session} onSignedOut={() => setSessionState({ state: 'signed-out' })} />;
}

const ROLE_OPTIONS: { role: Role; label: string; hint: string }[] = [
  { role: 'merchant', label: 'Merchant', hint: 'your console key (mck_…)' },
  { role: 'agent', label: 'Payment agent', hint: 'your back-office token' },
  { role: 'operator', label: 'Operator', hint: 'your back-office token' },
];

function LoginPage({ notice, onSignedIn }: { notice?: string; onSignedIn: (session: Session) => void }) {
  const [role, setRole] = useState<Role>('merchant');
  const [credential, setCredential] = useState('');
  const action = useAction();
  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const session = await action.run(() => login(role, credential));
    if (session) {
      setCredential('');
      onSignedIn(session);
    }
  };
  const hint = ROLE_OPTIONS.find((option) => option.role === role)?.hint;
  return (
    <main id="main" className="login">
      <h1>Sign in to the console</h1>
      {notice && <p className="notice">{notice}</p>}
      <form onSubmit={submit} className="form" aria-label="Sign in">
        <fieldset role="radiogroup" aria-labelledby="role-legend" className="roles">
          <legend id="role-legend">Role</legend>
          {ROLE_OPTIONS.map((option) => (
            <label key={option.role} className="radio">
              <input type="radio" name="role" value={option.role} checked={role === option.role} onChange={() => setRole(option.role)} />
              {option.label}
            </label>
          ))}
        </fieldset>
        <div className="field">
          <label htmlFor="credential">Credential</label>
          <input
            id="credential"
            type="password"
            autoComplete="current-password"
            required
            value={credential}
            onChange={(event) => setCredential(event.target.value)}
            aria-describedby="credential-hint"
          />
          <p id="credential-hint" className="muted">
            Paste {hint}.
          </p>
        </div>
        {action.error && <ErrorAlert error={action.error} />}
        <button type="submit" disabled={action.busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}

function Shell({ session, onSignedOut }: { session: Session; onSignedOut: () => void }) {
  const path = usePath();
  const routes = ROUTES_BY_ROLE[session.role];
  const action = useAction();
  const mainRef = useRef<HTMLElement>(null);
  const matched = routes.map((route) => ({ route, params: matchRoute(route.pattern, path) })).find((candidate) => candidate.params !== null);
  const firstNav = routes.find((route) => route.navLabel);

  useEffect(() => {
    // The app's root goes to the role's first view.
    if (path === '/' && firstNav) navigate(firstNav.pattern, { replace: true });
  }, [path, firstNav]);

  const signOut = async () => {
    await action.run(() => logout());
    onSignedOut();
  };
  // Merchants look at live data or at their sandbox's; every view reloads on a switch.
  const [mode, setMode] = useState<MerchantMode>('live');
  const switchMode = (next: MerchantMode) => {
    setMerchantMode(next);
    setMode(next);
  };

  return (
    <>
      <a href="#main" className="skip-link">
        Skip to main content
      </a>
      <header className="topbar">
        <span className="brand">Payments console</span>
        <span className="who">
          {session.display_name} <span className="muted">({roleLabel(session.role)})</span>
        </span>
        {session.role === 'merchant' && (
          <span className="segmented" role="group" aria-label="Mode">
            <button type="button" aria-pressed={mode === 'live'} onClick={() => switchMode('live')}>
              Live
            </button>
            <button type="button" aria-pressed={mode === 'test'} onClick={() => switchMode('test')}>
              Test
            </button>
          </span>
        )}
        <button type="button" onClick={signOut} disabled={action.busy}>
          Sign out
        </button>
      </header>
      {mode === 'test' && (
        <p className="test-mode" role="note">
          Test mode: you are looking at your sandbox (test credentials, magic amounts); nothing here moves real money.
        </p>
      )}
      <nav aria-label="Main" className="mainnav">
        <ul>
          {routes
            .filter((route) => route.navLabel)
            .map((route) => (
              <li key={route.pattern}>
                <Link to={route.pattern} aria-current={path.startsWith(route.pattern) ? 'page' : undefined}>
                  {route.navLabel}
                </Link>
              </li>
            ))}
        </ul>
      </nav>
      <main id="main" ref={mainRef} tabIndex={-1}>
        {action.error && <ErrorAlert error={action.error} />}
        <Fragment key={mode}>{matched && matched.params ? matched.route.render(matched.params) : path === '/' ? <Loading /> : <NotFound />}</Fragment>
      </main>
    </>
  );
}

function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p className="empty">No view of the console has this address. Choose one from the navigation.</p>
    </>
  );
}

export function roleLabel(role: Role): string {
  return ROLE_OPTIONS.find((option) => option.role === role)?.label ?? role;
}
