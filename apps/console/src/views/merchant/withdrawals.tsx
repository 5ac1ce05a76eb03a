import { merchantApi } from '../../api/console-api';
import type { Withdrawal } from '../../api/types';
import { DateTime, Money } from '../../app/components';
import { StatusBadge, StatusFilteredList } from '../status';

export function WithdrawalsView() {
  return (
    <StatusFilteredList<Withdrawal>
      title="Withdrawals"
      statuses={['PENDING', 'COMPLETED', 'FAILED']}
      load={merchantApi.listWithdrawals}
      caption="Withdrawals, newest first"
      headings={['Order', 'Status', 'Amount', 'Network fee', 'Address', 'Transaction', 'Created']}
      emptyText="No withdrawals."
      row={(withdrawal) => (
        <tr key={withdrawal.order_id}>
          <td>{withdrawal.order_id}</td>
          <td>
            <StatusBadge status={withdrawal.status} />
            {withdrawal.failure_reason ? <span className="muted"> {withdrawal.failure_reason}</span> : null}
          </td>
          <td>
            <Money amount={withdrawal.amount} currency={withdrawal.currency} />
          </td>
          <td>
            <Money amount={withdrawal.network_fee} currency={withdrawal.currency} />
          </td>
          <td className="wrap">
            <code>{withdrawal.address}</code> ({withdrawal.network})
          </td>
          <td className="wrap">{withdrawal.transaction_hash ? <code>{withdrawal.transaction_hash}</code> : '—'}</td>
          <td>
            <DateTime iso={withdrawal.created_at} />
          </td>
        </tr>
      )}
    />
  );
}
