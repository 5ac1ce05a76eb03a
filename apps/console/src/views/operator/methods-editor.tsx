import { useEffect, useState } from 'react';
import { operatorApi } from '../../api/console-api';
import type { MethodEntry } from '../../api/types';
import { Empty, ErrorAlert, Form, LoadState, SelectField, TextField, useAction, useLoad } from '../../app/components';

const NEW_METHOD: MethodEntry = {
  method: '',
  direction: 'incoming',
  country: '',
  currency: '',
  fee_rate_basis_points: 0,
  fee_fixed_minor: '0',
  min_amount_minor: '1',
  max_amount_minor: '100000000',
  expiry_minutes: 30,
};

/** The merchant's method catalog, edited as a whole and stored with one PUT (the API replaces the catalog). */
export function MethodsEditor({ merchantId }: { merchantId: string }) {
  const methods = useLoad(() => operatorApi.methods(merchantId), [merchantId]);
  const [entries, setEntries] = useState<MethodEntry[] | null>(null);
  const action = useAction();
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (methods.state === 'ready') setEntries(methods.data.data);
  }, [methods]);
  const update = (index: number, patch: Partial<MethodEntry>) =>
    setEntries((current) => (current ?? []).map((entry, at) => (at === index ? { ...entry, ...patch } : entry)));
  const save = async () => {
    setSaved(false);
    if (entries && (await action.run(() => operatorApi.putMethods(merchantId, entries)))) {
      setSaved(true);
      methods.reload();
    }
  };
  return (
    <section aria-labelledby="methods-heading">
      <h2 id="methods-heading">Methods and fees</h2>
      {methods.state !== 'ready' || !entries ? (
        <LoadState loaded={methods}>{() => null}</LoadState>
      ) : (
        <Form label="Methods and fees" onSubmit={save}>
          {entries.length === 0 && <Empty>No methods yet: add one.</Empty>}
          {entries.map((entry, index) => (
            <fieldset key={index} className="method">
              <legend>
                Method {index + 1}
                {entry.method ? `: ${entry.method}` : ''}
              </legend>
              <TextField id={`m${index}-method`} label="Method" value={entry.method} onChange={(value) => update(index, { method: value })} required />
              <SelectField
                label={`Direction of method ${index + 1}`}
                value={entry.direction}
                onChange={(value) => update(index, { direction: value as MethodEntry['direction'] })}
                options={[
                  { value: 'incoming', label: 'incoming' },
                  { value: 'outgoing', label: 'outgoing' },
                ]}
              />
              <TextField
                id={`m${index}-country`}
                label="Country"
                value={entry.country}
                onChange={(value) => update(index, { country: value.toUpperCase() })}
                required
              />
              <TextField
                id={`m${index}-currency`}
                label="Currency"
                value={entry.currency}
                onChange={(value) => update(index, { currency: value.toUpperCase() })}
                required
              />
              <TextField
                id={`m${index}-rate`}
                label="Fee rate (basis points)"
                type="number"
                value={String(entry.fee_rate_basis_points)}
                onChange={(value) => update(index, { fee_rate_basis_points: Number.parseInt(value || '0', 10) })}
              />
              <TextField
                id={`m${index}-fixed`}
                label="Fixed fee (minor units)"
                value={entry.fee_fixed_minor}
                onChange={(value) => update(index, { fee_fixed_minor: value })}
              />
              <TextField
                id={`m${index}-min`}
                label="Minimum (minor units)"
                value={entry.min_amount_minor}
                onChange={(value) => update(index, { min_amount_minor: value })}
              />
              <TextField
                id={`m${index}-max`}
                label="Maximum (minor units)"
                value={entry.max_amount_minor}
                onChange={(value) => update(index, { max_amount_minor: value })}
              />
              <TextField
                id={`m${index}-expiry`}
                label="Expiry (minutes)"
                type="number"
                value={String(entry.expiry_minutes)}
                onChange={(value) => update(index, { expiry_minutes: Number.parseInt(value || '0', 10) })}
              />
              <button type="button" className="danger" onClick={() => setEntries(entries.filter((_, at) => at !== index))}>
                Remove method {index + 1}
              </button>
            </fieldset>
          ))}
          {action.error && <ErrorAlert error={action.error} />}
          {saved && <p role="status">Methods saved.</p>}
          <div className="actions">
            <button type="button" onClick={() => setEntries([...entries, { ...NEW_METHOD }])}>
              Add method
            </button>
            <button type="submit" disabled={action.busy}>
              Save methods
            </button>
          </div>
        </Form>
      )}
    </section>
  );
}
