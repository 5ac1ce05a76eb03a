import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceRoot } from '@mp/shared-testing';

export const OBSERVABILITY_DIR = join(workspaceRoot, 'deploy/observability');

/** Words of PromQL that are not metric names: aggregation modifiers, set operators, `bool`, `offset`. */
const PROMQL_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/**
 * The metric names a PromQL expression reads. Hand-written because no PromQL parser is a
 * dependency here (promtool checks syntax, but does not list names); the rules' and dashboard's
 * expressions are simple enough: drop strings, label matchers, range selectors and grouping
 * label lists, then every identifier not called as a function and not a keyword is a metric.
 */
export function metricNamesIn(expression: string): string[] {
  const stripped = expression
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\w+/g, ' ');
  const names = [...stripped.matchAll(/(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)].map((match) => match[1]);
  return [...new Set(names.filter((name) => !PROMQL_KEYWORDS.has(name.toLowerCase())))];
}

/**
 * Every expression of the alert rules (alerts.yml), by alert name. No YAML library is a
 * dependency of the workspace, and the rule file keeps to two shapes an `expr` can take: one
 * line (`expr: up == 0`) or a literal block (`expr: |` and the lines indented below it).
 */
export function alertExpressions(): Array<{ alert: string; expr: string }> {
  const lines = readFileSync(join(OBSERVABILITY_DIR, 'alerts.yml'), 'utf8').split('\n');
  const found: Array<{ alert: string; expr: string }> = [];
  let alert = '';
  lines.forEach((line, index) => {
    const named = /^\s*- alert: (\S+)/.exec(line);
    if (named) alert = named[1];
    const expr = /^(\s*)expr: (.*)$/.exec(line);
    if (!expr) return;
    if (expr[2].trim() !== '|') return void found.push({ alert, expr: expr[2] });
    const block: string[] = [];
    for (const next of lines.slice(index + 1)) {
      if (next.trim() !== '' && next.search(/\S/) <= expr[1].length) break;
      block.push(next);
    }
    found.push({ alert, expr: block.join('\n') });
  });
  return found;
}

interface DashboardPanel {
  title: string;
  targets?: Array<{ expr: string }>;
}

/** Every expression of the Grafana dashboard: its panels' queries and its template variables' label_values. */
export function dashboardExpressions(): Array<{ panel: string; expr: string }> {
  const dashboard = JSON.parse(readFileSync(join(OBSERVABILITY_DIR, 'grafana-dashboard.json'), 'utf8')) as {
    panels: DashboardPanel[];
    templating: { list: Array<{ name: string; definition?: string }> };
  };
  const queries = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })));
  // label_values(metric, label): only its first argument is a metric.
  const variables = dashboard.templating.list.flatMap((variable) => {
    const match = /label_values\((\w+),/.exec(variable.definition ?? '');
    return match ? [{ panel: `variable ${variable.name}`, expr: match[1] }] : [];
  });
  return [...queries, ...variables];
}
