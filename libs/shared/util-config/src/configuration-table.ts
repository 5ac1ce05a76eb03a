import { compareText, type ConfigVariable } from './config';

/** The variables one service reads (describeConfiguration of its config loader). */
export interface ServiceConfiguration {
  service: string;
  variables: ConfigVariable[];
}

/** A table cell: `|` would end the cell, even inside a code span. */
const cell = (text: string): string => text.replaceAll('|', '\\|');

/**
 * The operator's reference table: one row per variable, and per default and description where
 * services read the same variable differently; `all` when every service reads it alike.
 * Rows are sorted by name, so the table changes only where a reader changed.
 */
export function renderConfigurationTable(services: ServiceConfiguration[]): string {
  const rows = new Map<string, { variable: ConfigVariable; services: string[] }>();
  for (const { service, variables } of services) {
    for (const variable of variables) {
      const key = JSON.stringify([variable.name, variable.default ?? null, variable.description ?? null]);
      const row = rows.get(key) ?? { variable, services: [] };
      row.services.push(service);
      rows.set(key, row);
    }
  }
  const lines = [...rows.values()]
    .map(({ variable, services: readers }) => ({ variable, readers: readers.length === services.length ? 'all' : readers.join(', ') }))
    .sort((a, b) => compareText(a.variable.name, b.variable.name) || compareText(a.readers, b.readers))
    .map(({ variable, readers }) => `| \`${variable.name}\` | ${readers} | ${cell(variable.default ?? 'required')} | ${cell(variable.description ?? '')} |`);
  return ['| Variable | Services | Default | Meaning |', '|---|---|---|---|', ...lines].join('\n');
}

/** The markers around the generated table in a Markdown file. */
export const GENERATED_TABLE_BEGIN = '<!-- BEGIN generated from the config readers by `npm run config:docs`: edit the readers, not this table -->';
export const GENERATED_TABLE_END = '<!-- END generated table -->';

/** `markdown` with the text between the markers replaced by `table`; throws when the markers are missing. */
export function replaceGeneratedTable(markdown: string, table: string): string {
  const begin = markdown.indexOf(GENERATED_TABLE_BEGIN);
  const end = markdown.indexOf(GENERATED_TABLE_END);
  if (begin < 0 || end < begin) throw new Error(`the generated table's markers are missing: ${GENERATED_TABLE_BEGIN} … ${GENERATED_TABLE_END}`);
  return `${markdown.slice(0, begin + GENERATED_TABLE_BEGIN.length)}\n${table}\n${markdown.slice(end)}`;
}
