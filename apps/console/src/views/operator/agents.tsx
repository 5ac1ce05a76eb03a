import { useState } from 'react';
import { operatorApi } from '../../api/console-api';
import type { AgentProfile } from '../../api/types';
import { DateTime, ErrorAlert, Form, SelectField, TextField, useAction } from '../../app/components';
import { StatusBadge, StatusFilteredList } from '../status';
import { useSecrets } from './secrets';

/** Every agent, newest first, with the form to register one or change a listed one. */
export function AgentsView() {
  const [agentId, setAgentId] = useState('');
  const [profile, setProfile] = useState({ name: '', display_name: '', payment_details: '', method: '', country: '', currency: '', active: 'true' });
  const action = useAction();
  const secrets = useSecrets();
  const [notice, setNotice] = useState<string | null>(null);
  const body = (): AgentProfile => ({
    ...(profile.name ? { name: profile.name } : {}),
    display_name: profile.display_name,
    payment_details: profile.payment_details,
    serves: [{ method: profile.method, country: profile.country, currency: profile.currency }],
    ...(agentId ? { active: profile.active === 'true' } : {}),
  });
  const submit = async () => {
    setNotice(null);
    if (agentId.trim()) {
      const answer = await action.run(() => operatorApi.updateAgent(agentId.trim(), body()));
      if (answer) setNotice(`Agent ${answer.agent_id ?? agentId} saved; the list shows it after a reload.`);
    } else {
      const answer = await action.run(() => operatorApi.createAgent(body()));
      if (answer)
        secrets.show({
          title: `Agent ${answer.agent_id} registered`,
          secrets: [
            { label: 'Agent ID', value: answer.agent_id },
            { label: 'Back-office token', value: answer.token },
          ],
        });
    }
  };
  const set = (field: keyof typeof profile) => (value: string) => setProfile({ ...profile, [field]: value });
  /** Puts a listed agent in the form, to change its profile or deactivate it. */
  const edit = (agent: AgentProfile & { agent_id: string }) => {
    const [area] = agent.serves;
    setNotice(null);
    setAgentId(agent.agent_id);
    setProfile({
      name: '',
      display_name: agent.display_name,
      payment_details: agent.payment_details,
      method: area?.method ?? '',
      country: area?.country ?? '',
      currency: area?.currency ?? '',
      active: String(agent.active !== false),
    });
    document.getElementById('agent-form-heading')?.focus();
  };
  return (
    <StatusFilteredList<AgentProfile & { agent_id: string; updated_at: string }>
      title="Agents"
      statuses={['active', 'inactive']}
      load={operatorApi.listAgents}
      caption="Agents, newest first"
      headings={['Agent', 'Display name', 'Serves', 'Status', 'Changed', 'Action']}
      emptyText="No agents registered yet."
      row={(agent) => (
        <tr key={agent.agent_id}>
          <td>
            <code>{agent.agent_id}</code>
          </td>
          <td>{agent.display_name}</td>
          <td>{agent.serves.map((area) => `${area.method} ${area.country} ${area.currency}`).join(', ')}</td>
          <td>
            <StatusBadge status={agent.active === false ? 'INACTIVE' : 'ACTIVE'} />
          </td>
          <td>
            <DateTime iso={agent.updated_at} />
          </td>
          <td>
            <button type="button" onClick={() => edit(agent)}>
              Edit {agent.display_name}
            </button>
          </td>
        </tr>
      )}
    >
      <h2 id="agent-form-heading" tabIndex={-1}>
        {agentId ? `Edit agent ${agentId}` : 'Register an agent'}
      </h2>
      <p>Leave Agent ID empty to register a new agent; fill it in (or press Edit on a listed agent) to replace that agent's profile.</p>
      <Form label="Agent profile" onSubmit={submit}>
        <TextField label="Agent ID" value={agentId} onChange={setAgentId} />
        <TextField label="Name" value={profile.name} onChange={set('name')} />
        <TextField label="Display name" value={profile.display_name} onChange={set('display_name')} required />
        <TextField label="Payment details" value={profile.payment_details} onChange={set('payment_details')} required />
        <fieldset>
          <legend>Serves</legend>
          <TextField label="Method" value={profile.method} onChange={set('method')} required />
          <TextField label="Country" value={profile.country} onChange={(value) => set('country')(value.toUpperCase())} required />
          <TextField label="Currency" value={profile.currency} onChange={(value) => set('currency')(value.toUpperCase())} required />
        </fieldset>
        {agentId && (
          <SelectField
            label="Active"
            value={profile.active}
            onChange={set('active')}
            options={[
              { value: 'true', label: 'Active' },
              { value: 'false', label: 'Deactivated (its token stops working)' },
            ]}
          />
        )}
        {action.error && <ErrorAlert error={action.error} />}
        {notice && <p role="status">{notice}</p>}
        <button type="submit" disabled={action.busy}>
          {agentId ? 'Save agent' : 'Register agent'}
        </button>
      </Form>
      {secrets.dialog}
      <h2>All agents</h2>
    </StatusFilteredList>
  );
}
