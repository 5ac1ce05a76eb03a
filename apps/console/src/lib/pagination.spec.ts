import { currentCursor, firstPage, hasPreviousPage, nextPage, pageNumber, previousPage } from './pagination';

describe('cursor pagination', () => {
  it('starts without a cursor and walks forward with each next_cursor', () => {
    let state = firstPage();
    expect(currentCursor(state)).toBeUndefined();
    expect(hasPreviousPage(state)).toBe(false);
    state = nextPage(state, 'c1');
    state = nextPage(state, 'c2');
    expect(currentCursor(state)).toBe('c2');
    expect(pageNumber(state)).toBe(3);
    expect(hasPreviousPage(state)).toBe(true);
  });

  it('goes back to the cursor that produced the previous page, down to the first', () => {
    let state = nextPage(nextPage(firstPage(), 'c1'), 'c2');
    state = previousPage(state);
    expect(currentCursor(state)).toBe('c1');
    state = previousPage(state);
    expect(currentCursor(state)).toBeUndefined();
    expect(previousPage(state)).toEqual(state);
  });

  it('refuses to go forward without a cursor (the last page)', () => {
    expect(() => nextPage(firstPage(), null)).toThrow('no next page');
  });
});
