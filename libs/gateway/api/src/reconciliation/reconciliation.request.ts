import { ApiProperty } from '@nestjs/swagger';
import { IsCalendarDay, IsKnownCurrency, RequestMessages } from '@mp/shared-util-validation';

/** The query of GET /v2/merchant/reconciliation. Not signed (spec 5.2), so validated like any input. */
@RequestMessages({ invalid: 'The reconciliation query is not valid', unknownField: 'is not a parameter; use date and currency' })
export class ReconciliationQuery {
  @ApiProperty({ description: 'The UTC day, `YYYY-MM-DD`; today at the latest', example: '2026-01-31', format: 'date' })
  @IsCalendarDay()
  date!: string;

  @ApiProperty({ description: 'The currency of the entries, e.g. RUB', example: 'RUB' })
  @IsKnownCurrency('must be a currency code, e.g. RUB')
  currency!: string;
}
