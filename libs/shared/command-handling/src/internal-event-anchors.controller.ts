import { Controller, Get, Query } from '@nestjs/common';
import { listAnchors } from '@mp/shared-messaging';
import { validationError } from '@mp/shared-util-errors';
import { DataSource } from 'typeorm';

/** The page the back office reads: one anchor per closed UTC day, newest first. */
export interface EventAnchorsPage {
  data: Array<{ day: string; previous_hash: string | null; streams: number; hash: string; made_at: string }>;
}

const DEFAULT_LIMIT = 30;

/**
 * The daily anchors of the service's event store (docs/operations/audit.md, "Event hash chain"),
 * for the back office: `?limit=` (1-366, default 30) anchors before `?before=` (a day, YYYY-MM-DD).
 * Internal only: each service's access policy lets the gateway read it.
 */
@Controller('internal/event-store')
export class InternalEventAnchorsController {
  constructor(private readonly dataSource: DataSource) {}

  @Get('anchors')
  async anchors(@Query() query: Record<string, string | undefined>): Promise<EventAnchorsPage> {
    const { limit = String(DEFAULT_LIMIT), before, ...rest } = query;
    const issues = [
      ...Object.keys(rest).map((field) => ({ field, issue: 'is not a filter here; use limit, before' })),
      ...(/^\d{1,3}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 366 ? [] : [{ field: 'limit', issue: 'must be a whole number from 1 to 366' }]),
      ...(before === undefined || (/^\d{4}-\d{2}-\d{2}$/.test(before) && !Number.isNaN(Date.parse(`${before}T00:00:00Z`)))
        ? []
        : [{ field: 'before', issue: 'must be a day YYYY-MM-DD' }]),
    ];
    if (issues.length > 0) throw validationError(issues, 'The anchors query is not valid');
    const anchors = await listAnchors(this.dataSource.manager, { limit: Number(limit), beforeDay: before });
    return {
      data: anchors.map((anchor) => ({
        day: anchor.day,
        previous_hash: anchor.previousHash,
        streams: anchor.streams,
        hash: anchor.hash,
        made_at: anchor.madeAt,
      })),
    };
  }
}
