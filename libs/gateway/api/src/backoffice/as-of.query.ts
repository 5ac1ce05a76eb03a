import { ApiProperty } from '@nestjs/swagger';
import { IsCalendarDay, IsIsoDateTime, RequestMessages } from '@mp/shared-util-validation';
import { CREATION_PERIOD_SCHEMA } from '../openapi/request-schemas';

/** `?at=` of a read as of an instant (docs/operations/as-of-reads.md); the owning service checks it again. */
@RequestMessages({ invalid: 'The query is not valid', unknownField: 'is not a parameter here; use at' })
export class AsOfQuery {
  @ApiProperty({
    ...CREATION_PERIOD_SCHEMA,
    description: 'The instant, ISO 8601 (a date is its midnight UTC): the state after every event recorded at or before it',
    example: '2026-03-01T23:59:59Z',
  })
  @IsIsoDateTime('must be an RFC 3339 timestamp, e.g. 2026-03-01T23:59:59Z')
  at!: string;
}

/** `?date=` of a day's opening and closing balances; the ledger checks it again. */
@RequestMessages({ invalid: 'The query is not valid', unknownField: 'is not a parameter here; use date' })
export class EndOfDayQuery {
  @ApiProperty({ description: 'The UTC day, `YYYY-MM-DD`', example: '2026-03-01', format: 'date' })
  @IsCalendarDay()
  date!: string;
}
