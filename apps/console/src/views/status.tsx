import { useState, type ReactNode } from 'react';
import type { ListFilters } from '../api/console-api';
import type { Page } from '../api/types';
import { Empty, LoadState, Pager, SelectField, useCursorPages, useLoad } from '../app/components';

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status.toLowerCase()}`}>{status}</span>;
}

/**
 * A merchant list with a status filter and cursor pages (endpoints 12 and 15): the view's title,
 * the statuses, how to read a page and how to draw its rows.
 */
export function StatusFilteredList<T>(props: {
  title: string;
  statuses: readonly string[];
  /** Shown between the heading and the list (a view's forms). */
  children?: ReactNode;
  load: (filters: ListFilters) => Promise<Page<T>>;
  caption: string;
  headings: string[];
  row: (item: T) => ReactNode;
  emptyText: string;
}) {
  const [status, setStatus] = useState('');
  const pages = useCursorPages(status);
  const list = useLoad(() => props.load({ status: status || undefined, cursor: pages.cursor, limit: 25 }), [status, pages.cursor]);
  return (
    <>
      <h1>{props.title}</h1>
      {props.children}
      <SelectField
        label="Status"
        value={status}
        onChange={setStatus}
        options={[{ value: '', label: 'Any status' }, ...props.statuses.map((value) => ({ value, label: value }))]}
      />
      <LoadState loaded={list}>
        {(page) => (
          <>
            <div className="table-scroll">
              <table>
                <caption>{props.caption}</caption>
                <thead>
                  <tr>
                    {props.headings.map((heading) => (
                      <th scope="col" key={heading}>
                        {heading}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>{page.data.map(props.row)}</tbody>
              </table>
            </div>
            {page.data.length === 0 && <Empty>{props.emptyText}</Empty>}
            <Pager pages={pages} hasMore={page.has_more} nextCursor={page.next_cursor} />
          </>
        )}
      </LoadState>
    </>
  );
}
