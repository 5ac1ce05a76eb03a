import { IsIsoDateTime, RequestMessages } from '@mp/shared-util-validation';

/** `?at=`: the instant a back-office read as of an instant is asked for (docs/operations/as-of-reads.md). */
@RequestMessages({ invalid: 'The query is not valid', unknownField: 'is not a parameter here; use at' })
export class AsOfQueryDto {
  @IsIsoDateTime('must be an RFC 3339 timestamp, e.g. 2026-01-31T23:59:59Z')
  at!: string;
}
