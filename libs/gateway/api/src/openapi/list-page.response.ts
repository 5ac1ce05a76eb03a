import { ApiProperty } from '@nestjs/swagger';

/** The paging members every list answer shares (docs/api/states.md "Lists"): items come in `data`. */
export abstract class ListPageResponse {
  @ApiProperty({ description: 'Whether another page follows; fetch it with `cursor: next_cursor`', example: false })
  has_more!: boolean;

  @ApiProperty({ type: 'string', nullable: true, description: 'Opaque cursor of the next page; null on the last page', example: null })
  next_cursor!: string | null;
}

/** What every amount on the wire is: a JSON number with the currency's digits, never a float the server rounded. */
export const AMOUNT_PROPERTY = {
  type: 'number',
  description: "Amount in the currency's major units, written with exactly its decimal digits",
  example: 1500.5,
} as const;
