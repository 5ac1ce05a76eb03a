import { ApiProperty } from '@nestjs/swagger';
import { RequestMessages } from '@mp/shared-util-validation';
import { IsString } from 'class-validator';

/** `?at=` of a read as of an instant; the owning service checks the value (docs/operations/as-of-reads.md). */
@RequestMessages({ invalid: 'The query is not valid', unknownField: 'is not a parameter here; use at' })
export class AsOfQuery {
  @ApiProperty({ description: 'The instant, RFC 3339 (e.g. 2026-03-01T23:59:59Z): the state after every event recorded at or before it' })
  @IsString({ message: 'must be given once' })
  at!: string;
}

/** `?date=` of a day's opening and closing balances; the ledger checks the value. */
@RequestMessages({ invalid: 'The query is not valid', unknownField: 'is not a parameter here; use date' })
export class EndOfDayQuery {
  @ApiProperty({ description: 'The UTC day, YYYY-MM-DD' })
  @IsString({ message: 'must be given once' })
  date!: string;
}
