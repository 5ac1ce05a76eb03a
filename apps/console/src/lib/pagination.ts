/**
 * Cursor pagination as the APIs define it (docs/api/states.md "Lists"): a cursor marks a position, so
 * "previous" is the cursor that produced the previous page. The state is the stack of cursors
 * that produced each page so far; the first page has none.
 */
export interface PageState {
  readonly cursors: readonly (string | undefined)[];
}

export function firstPage(): PageState {
  return { cursors: [undefined] };
}

export function currentCursor(state: PageState): string | undefined {
  return state.cursors[state.cursors.length - 1];
}

export function pageNumber(state: PageState): number {
  return state.cursors.length;
}

export function hasPreviousPage(state: PageState): boolean {
  return state.cursors.length > 1;
}

/** The page after this one: `nextCursor` is the answer's `next_cursor` (null on the last page). */
export function nextPage(state: PageState, nextCursor: string | null | undefined): PageState {
  if (!nextCursor) throw new Error('no next page: the last answer had no next_cursor');
  return { cursors: [...state.cursors, nextCursor] };
}

export function previousPage(state: PageState): PageState {
  return hasPreviousPage(state) ? { cursors: state.cursors.slice(0, -1) } : state;
}
