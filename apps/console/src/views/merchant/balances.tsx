import { useMemo, useState } from 'react';
import { merchantApi } from '../../api/console-api';
import { Empty, LoadState, Money, SelectField, useLoad } from '../../app/components';
import { dailySettlementChange } from '../../lib/csv';
import { lastUtcDays } from '../../lib/dates';
import { SettlementChart } from '../settlement-chart';

const CHART_DAYS = 14;

export function BalancesView() {
  const balances = useLoad(() => merchantApi.balances(), []);
  return (
    <>
      <h1>Balances</h1>
      <LoadState loaded={balances}>
        {(data) => (
          <>
            <table>
              <caption>Settlement balances</caption>
              <thead>
                <tr>
                  <th scope="col">Currency</th>
                  <th scope="col">Available</th>
                  <th scope="col">Frozen</th>
                </tr>
              </thead>
              <tbody>
                {data.settlement.map((row) => (
                  <tr key={row.currency}>
                    <td>{row.currency}</td>
                    <td>
                      <Money amount={row.available} currency={row.currency} />
                    </td>
                    <td>
                      <Money amount={row.frozen} currency={row.currency} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {data.settlement.length === 0 && <Empty>No settlement balance yet: one appears once money has moved in a currency.</Empty>}
            <table>
              <caption>Deposit balances</caption>
              <thead>
                <tr>
                  <th scope="col">Currency</th>
                  <th scope="col">Available</th>
                </tr>
              </thead>
              <tbody>
                {data.deposit.map((row) => (
                  <tr key={row.currency}>
                    <td>{row.currency}</td>
                    <td>
                      <Money amount={row.available} currency={row.currency} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {data.deposit.length === 0 && <Empty>No deposit yet.</Empty>}
            <SettlementSection currencies={data.settlement.map((row) => row.currency)} />
          </>
        )}
      </LoadState>
    </>
  );
}

function SettlementSection({ currencies }: { currencies: string[] }) {
  const [currency, setCurrency] = useState(currencies[0] ?? 'RUB');
  const days = useMemo(() => lastUtcDays(new Date(), CHART_DAYS), []);
  const series = useLoad(
    () =>
      // One report per UTC day (endpoint 9a), read in order: fourteen small requests.
      days.reduce<Promise<{ day: string; changeMinor: bigint }[]>>(async (previous, day) => {
        const points = await previous;
        const file = await merchantApi.reconciliationCsv(day, currency);
        return [...points, { day, changeMinor: dailySettlementChange(await file.blob.text()) }];
      }, Promise.resolve([])),
    [currency, days],
  );
  return (
    <section aria-labelledby="settlement-heading">
      <h2 id="settlement-heading">Settlement over the last {CHART_DAYS} days</h2>
      {currencies.length > 1 && (
        <SelectField label="Chart currency" value={currency} onChange={setCurrency} options={currencies.map((code) => ({ value: code, label: code }))} />
      )}
      <LoadState loaded={series}>{(points) => <SettlementChart currency={currency} days={points} />}</LoadState>
    </section>
  );
}
