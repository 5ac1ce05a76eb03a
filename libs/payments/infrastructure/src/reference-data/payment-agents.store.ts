import type { AgentProfileList, AgentServiceArea } from '@mp/contracts-payments';
import { fetchNewestFirstPage, PositionCursor, SqlConditions } from '@mp/shared-data-access-postgres';
import type { EntityManager } from 'typeorm';

export interface PaymentAgentRow {
  agent_id: string;
  display_name: string;
  payment_details: string;
  serves: AgentServiceArea[];
  active: boolean;
}

export async function saveAgent(manager: EntityManager, agent: PaymentAgentRow): Promise<void> {
  await manager.query(
    `INSERT INTO payment_agents (agent_id, display_name, payment_details, serves, active) VALUES ($1, $2, $3, $4::jsonb, $5)
     ON CONFLICT (agent_id) DO UPDATE SET display_name = EXCLUDED.display_name, payment_details = EXCLUDED.payment_details,
       serves = EXCLUDED.serves, active = EXCLUDED.active, updated_at = now()`,
    [agent.agent_id, agent.display_name, agent.payment_details, JSON.stringify(agent.serves), agent.active],
  );
}

const AGENT_LIST_CURSOR = new PositionCursor('a');

/** Operators' list of agents, newest first with the API's cursors. */
export async function listAgents(manager: EntityManager, filter: { active?: boolean; limit: number; cursor?: string }): Promise<AgentProfileList> {
  const where = new SqlConditions();
  if (filter.active !== undefined) where.add('active = ?', filter.active);
  const page = await fetchNewestFirstPage<PaymentAgentRow & { updated_at: Date; list_position: string }>(manager, {
    select: 'SELECT agent_id, display_name, payment_details, serves, active, updated_at, list_position FROM payment_agents',
    where,
    positionColumn: 'payment_agents.list_position',
    positionOf: (row) => row.list_position,
    cursor: AGENT_LIST_CURSOR,
    after: filter.cursor,
    limit: filter.limit,
  });
  const data = page.rows.map(({ list_position: _position, updated_at, ...agent }) => ({ ...agent, updated_at: updated_at.toISOString() }));
  return { data, has_more: page.hasMore, next_cursor: page.nextCursor };
}

export async function findAgent(manager: EntityManager, agentId: string): Promise<PaymentAgentRow | null> {
  const rows: PaymentAgentRow[] = await manager.query(
    `SELECT agent_id, display_name, payment_details, serves, active FROM payment_agents WHERE agent_id = $1`,
    [agentId],
  );
  return rows[0] ?? null;
}

export function agentServes(agent: PaymentAgentRow, area: AgentServiceArea): boolean {
  return agent.active && agent.serves.some((served) => served.method === area.method && served.country === area.country && served.currency === area.currency);
}

/** The active agent serving the area with the fewest unfinished orders: spreads the work. */
export async function pickAgentFor(manager: EntityManager, area: AgentServiceArea): Promise<string | null> {
  const rows: Array<{ agent_id: string }> = await manager.query(
    `SELECT a.agent_id FROM payment_agents a
      WHERE a.active AND a.serves @> $1::jsonb
      ORDER BY (SELECT count(*) FROM payment_orders o WHERE o.agent_id = a.agent_id AND o.status = 'PENDING'), a.agent_id
      LIMIT 1`,
    [JSON.stringify([area])],
  );
  return rows[0]?.agent_id ?? null;
}
