import { useState } from 'react';
import { operatorApi } from '../../api/console-api';
import type { MerchantProfile } from '../../api/types';
import { DateTime, ErrorAlert, Form, TextField, useAction } from '../../app/components';
import { Link, navigate } from '../../app/router';
import { pathFor } from '../../lib/route-match';
import { StatusBadge, StatusFilteredList } from '../status';
import { MERCHANT_PAGE } from './paths';
import { useSecrets } from './secrets';

/** Every merchant, newest first, with the forms to open one by its id and to create one. */
export function MerchantsView() {
  const [name, setName] = useState('');
  const [callbackUrl, setCallbackUrl] = useState('');
  const [lookup, setLookup] = useState('');
  const action = useAction();
  const secrets = useSecrets();
  const create = async () => {
    const merchant = await action.run(() => operatorApi.createMerchant(name.trim(), callbackUrl.trim() || undefined));
    if (merchant) {
      setName('');
      setCallbackUrl('');
      secrets.show({
        title: `Merchant ${merchant.merchant_id} created`,
        secrets: [
          { label: 'Merchant ID', value: merchant.merchant_id },
          { label: 'API secret', value: merchant.api_secret },
          { label: 'Webhook secret', value: merchant.webhook_secret },
        ],
      });
    }
  };
  return (
    <StatusFilteredList<MerchantProfile & { mode: 'live' | 'test' }>
      title="Merchants"
      statuses={['active', 'suspended']}
      load={operatorApi.listMerchants}
      caption="Merchants, newest first"
      headings={['Merchant', 'Name', 'Mode', 'Status', 'Created']}
      emptyText="No merchants yet."
      row={(merchant) => (
        <tr key={merchant.merchant_id}>
          <td>
            <Link to={pathFor(MERCHANT_PAGE, { merchantId: merchant.merchant_id })}>{merchant.merchant_id}</Link>
          </td>
          <td>{merchant.name}</td>
          <td>{merchant.mode === 'test' ? 'sandbox' : 'live'}</td>
          <td>
            <StatusBadge status={merchant.status.toUpperCase()} />
          </td>
          <td>
            <DateTime iso={merchant.created_at} />
          </td>
        </tr>
      )}
    >
      <section aria-labelledby="open-merchant">
        <h2 id="open-merchant">Open a merchant</h2>
        <Form label="Open a merchant" onSubmit={() => lookup.trim() && navigate(pathFor(MERCHANT_PAGE, { merchantId: lookup.trim() }))}>
          <TextField label="Merchant ID" id="lookup-merchant-id" value={lookup} onChange={setLookup} required />
          <button type="submit">Open</button>
        </Form>
      </section>
      <section aria-labelledby="create-merchant">
        <h2 id="create-merchant">Create a merchant</h2>
        <Form label="Create a merchant" onSubmit={create}>
          <TextField label="Name" value={name} onChange={setName} required />
          <TextField label="Default callback URL" type="url" value={callbackUrl} onChange={setCallbackUrl} />
          {action.error && <ErrorAlert error={action.error} />}
          <button type="submit" disabled={action.busy}>
            Create merchant
          </button>
        </Form>
      </section>
      {secrets.dialog}
      <h2>All merchants</h2>
    </StatusFilteredList>
  );
}
