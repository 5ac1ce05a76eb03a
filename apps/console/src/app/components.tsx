import { useCallback, useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { formatDateTime } from '../lib/dates';
import { ApiRequestError, type ApiError } from '../lib/errors';
import { formatMoneyDecimal } from '../lib/money';
import { currentCursor, firstPage, hasPreviousPage, nextPage, pageNumber, previousPage, type PageState } from '../lib/pagination';

/** Any thrown value as the error model, for the alert. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiRequestError) return error.apiError;
  const message = error instanceof Error ? error.message : String(error);
  return {
    status: 0,
    code: 'CLIENT_ERROR',
    message: message === 'Failed to fetch' ? 'The console could not reach the server. Check your connection and try again.' : message,
    details: [],
    requestId: null,
  };
}

export type Loaded<T> = { state: 'loading' } | { state: 'error'; error: ApiError } | { state: 'ready'; data: T };

/** Loads with `load` whenever `deps` change; `reload` runs it again. A stale answer never overwrites a newer one. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> & { reload: () => void } {
  const [result, setResult] = useState<Loaded<T>>({ state: 'loading' });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let current = true;
    setResult({ state: 'loading' });
    load().then(
      (data) => current && setResult({ state: 'ready', data }),
      (error: unknown) => current && setResult({ state: 'error', error: toApiError(error) }),
    );
    return () => {
      current = false;
    };
    // `load` is a new closure each render; what it reads is in `deps`.
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { ...result, reload };
}

export function Loading() {
  return (
    <p role="status" className="status">
      Loading…
    </p>
  );
}

export function ErrorAlert({ error }: { error: ApiError }) {
  return (
    <div role="alert" className="alert">
      <p>
        <strong>{error.message}</strong>
      </p>
      {error.details.length > 0 && (
        <ul>
          {error.details.map((detail) => (
            <li key={`${detail.field}:${detail.issue}`}>
              <code>{detail.field}</code>: {detail.issue}
            </li>
          ))}
        </ul>
      )}
      <p className="muted">
        {error.code}
        {error.requestId ? ` · request id ${error.requestId}` : ''}
      </p>
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** Loading, error or the content: the three designed states of every view. */
export function LoadState<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ReactNode }) {
  if (loaded.state === 'loading') return <Loading />;
  if (loaded.state === 'error') return <ErrorAlert error={loaded.error} />;
  return <>{children(loaded.data)}</>;
}

export function Money({ amount, currency }: { amount: string | number | null | undefined; currency: string }) {
  if (amount === null || amount === undefined) return <span>—</span>;
  try {
    return <span className="money">{formatMoneyDecimal(amount, currency)}</span>;
  } catch {
    return <span className="money">{`${amount} ${currency}`}</span>;
  }
}

/**
 * The merchant's own reference data (`metadata`) as a key/value list, keys in alphabetical order
 * (a JSON object's keys have none, and the platform stores them as PostgreSQL's jsonb orders
 * them); "none" when there is none. React escapes every key and value: they are the merchant's
 * free text.
 */
export function Metadata({ metadata }: { metadata: Record<string, string> | null | undefined }) {
  const entries = Object.entries(metadata ?? {}).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  if (entries.length === 0)
    return (
      <span className="muted" data-testid="metadata-none">
        none
      </span>
    );
  return (
    <dl className="facts metadata" data-testid="metadata">
      {entries.map(([key, value]) => (
        <div key={key} className="metadata-entry">
          <dt>{key}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function DateTime({ iso }: { iso: string | null | undefined }) {
  return iso ? <time dateTime={iso}>{formatDateTime(iso)}</time> : <span>—</span>;
}

/**
 * Cursor paging state for a list whose filters are `filterKey`: new filters start again at page
 * 1 in the same render (a cursor marks a position in one query, never valid for another).
 */
export function useCursorPages(filterKey: string) {
  const [pages, setPages] = useState<{ key: string; state: PageState }>(() => ({ key: filterKey, state: firstPage() }));
  const state = pages.key === filterKey ? pages.state : firstPage();
  return {
    cursor: currentCursor(state),
    pageNumber: pageNumber(state),
    hasPrevious: hasPreviousPage(state),
    next: (nextCursor: string | null) => setPages({ key: filterKey, state: nextPage(state, nextCursor) }),
    previous: () => setPages({ key: filterKey, state: previousPage(state) }),
  };
}

export function Pager({ pages, hasMore, nextCursor }: { pages: ReturnType<typeof useCursorPages>; hasMore: boolean; nextCursor: string | null }) {
  return (
    <div className="pager">
      <button type="button" onClick={pages.previous} disabled={!pages.hasPrevious}>
        Previous page
      </button>
      <span aria-live="polite">Page {pages.pageNumber}</span>
      <button type="button" onClick={() => pages.next(nextCursor)} disabled={!hasMore || !nextCursor}>
        Next page
      </button>
    </div>
  );
}

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** A modal dialog: focus moves in and stays in (Tab wraps), Escape closes, focus returns where it was. */
export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const dialogRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const dialog = dialogRef.current;
    const first = dialog?.querySelector<HTMLElement>(FOCUSABLE);
    (first ?? dialog)?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        onClose();
        return;
      }
      if (event.key !== 'Tab' || !dialog) return;
      const focusable = Array.from(dialog.querySelectorAll<HTMLElement>(FOCUSABLE));
      if (focusable.length === 0) return;
      const firstElement = focusable[0] as HTMLElement;
      const lastElement = focusable[focusable.length - 1] as HTMLElement;
      if (event.shiftKey && document.activeElement === firstElement) {
        event.preventDefault();
        lastElement.focus();
      } else if (!event.shiftKey && document.activeElement === lastElement) {
        event.preventDefault();
        firstElement.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      opener?.focus();
    };
  }, [onClose]);
  return (
    <div className="backdrop">
      <div ref={dialogRef} role="dialog" aria-modal="true" aria-labelledby="dialog-title" className="dialog" tabIndex={-1}>
        <h2 id="dialog-title">{title}</h2>
        {children}
      </div>
    </div>
  );
}

/** A secret shown once, with the warning that it will not be shown again. */
export function SecretDialog({ title, secrets, onClose }: { title: string; secrets: { label: string; value: string }[]; onClose: () => void }) {
  return (
    <Dialog title={title} onClose={onClose}>
      <p>Copy it now: it is shown this once and cannot be shown again.</p>
      <dl className="secrets">
        {secrets.map((secret) => (
          <div key={secret.label}>
            <dt>{secret.label}</dt>
            <dd>
              <code className="secret">{secret.value}</code>
            </dd>
          </div>
        ))}
      </dl>
      <button type="button" onClick={onClose}>
        Close
      </button>
    </Dialog>
  );
}

/** A confirmation before an action that cannot be undone. */
export function ConfirmDialog({
  title,
  message,
  confirmLabel,
  onConfirm,
  onClose,
}: {
  title: string;
  message: string;
  confirmLabel: string;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog title={title} onClose={onClose}>
      <p>{message}</p>
      <div className="actions">
        <button type="button" onClick={onConfirm} className="danger">
          {confirmLabel}
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

/** Runs an action, tracking busy and the error to show; `run` returns the action's result or undefined on failure. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const run = useCallback(async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await action();
    } catch (caught) {
      setError(toApiError(caught));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clearError: () => setError(null) };
}

/** A form whose submit runs `onSubmit` without reloading the page. */
export function Form({ label, onSubmit, children }: { label: string; onSubmit: () => void; children: ReactNode }) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <form aria-label={label} onSubmit={submit} className="form">
      {children}
    </form>
  );
}

export function TextField({
  label,
  value,
  onChange,
  type = 'text',
  required = false,
  id,
  autoComplete,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  type?: string;
  required?: boolean;
  id?: string;
  autoComplete?: string;
}) {
  const fieldId = id ?? `field-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <div className="field">
      <label htmlFor={fieldId}>{label}</label>
      <input id={fieldId} type={type} value={value} required={required} autoComplete={autoComplete} onChange={(event) => onChange(event.target.value)} />
    </div>
  );
}

export function SelectField({
  label,
  value,
  onChange,
  options,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: { value: string; label: string }[];
}) {
  const fieldId = `field-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <div className="field">
      <label htmlFor={fieldId}>{label}</label>
      <select id={fieldId} value={value} onChange={(event) => onChange(event.target.value)}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Saves a Blob as a file through a temporary object URL (no data: URL, nothing inline). */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = fileName;
  document.body.appendChild(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A random idempotency id for money forms: a retry of the same submission books once. */
export function newIdempotencyId(prefix: string): string {
  return `${prefix}-${crypto.randomUUID()}`;
}
