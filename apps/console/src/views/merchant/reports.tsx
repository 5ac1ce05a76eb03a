import { useState } from 'react';
import { merchantApi } from '../../api/console-api';
import { ErrorAlert, Form, LoadState, SelectField, TextField, saveBlob, useAction, useLoad } from '../../app/components';

export function ReportsView() {
  const balances = useLoad(() => merchantApi.balances(), []);
  const [day, setDay] = useState(() => new Date().toISOString().slice(0, 10));
  const [currency, setCurrency] = useState('');
  const action = useAction();
  const download = async (fallbackCurrency: string) => {
    const chosen = currency || fallbackCurrency;
    const file = await action.run(() => merchantApi.reconciliationCsv(day, chosen));
    if (file) saveBlob(file.blob, file.fileName ?? `reconciliation-${day}-${chosen}.csv`);
  };
  return (
    <>
      <h1>Reports</h1>
      <p>The reconciliation report lists every money movement on your balances in one currency on one UTC day, in minor units.</p>
      <LoadState loaded={balances}>
        {(data) => {
          const currencies = Array.from(new Set([...data.settlement.map((row) => row.currency), ...data.deposit.map((row) => row.currency)]));
          const fallback = currencies[0] ?? 'RUB';
          return (
            <Form label="Reconciliation report" onSubmit={() => download(fallback)}>
              <TextField label="Day" type="date" value={day} onChange={setDay} required />
              {currencies.length > 0 ? (
                <SelectField
                  label="Currency"
                  value={currency || fallback}
                  onChange={setCurrency}
                  options={currencies.map((code) => ({ value: code, label: code }))}
                />
              ) : (
                <TextField label="Currency" value={currency} onChange={(value) => setCurrency(value.toUpperCase())} required />
              )}
              {action.error && <ErrorAlert error={action.error} />}
              <button type="submit" disabled={action.busy}>
                Download reconciliation CSV
              </button>
            </Form>
          );
        }}
      </LoadState>
    </>
  );
}
