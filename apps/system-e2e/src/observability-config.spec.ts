/**
 * Goal: deploy/observability stays loadable: Prometheus accepts the scrape config and the alert
 * rules (`promtool check config`, `promtool check rules`), and every alert and dashboard panel
 * reads at least one metric. That each of those metrics is one the services export is checked
 * against real scrapes in metrics.e2e.spec.ts.
 * Method: Debian's promtool (package `prometheus`, installed by .ci/run); where it is missing the
 * promtool tests are skipped and say so.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { alertExpressions, dashboardExpressions, metricNamesIn, OBSERVABILITY_DIR } from './observability-references';

const promtoolPresent = spawnSync('promtool', ['--version']).status === 0;
const withPromtool = promtoolPresent ? it : it.skip;
if (!promtoolPresent) console.warn('promtool is not installed (apt-get install prometheus): the promtool checks are skipped');

describe('deploy/observability', () => {
  withPromtool('passes promtool check config (which also checks the rule files it names)', () => {
    const output = execFileSync('promtool', ['check', 'config', join(OBSERVABILITY_DIR, 'prometheus.yml')], { encoding: 'utf8' });
    expect(output).toContain('is valid prometheus config file syntax');
  });

  withPromtool('passes promtool check rules', () => {
    const output = execFileSync('promtool', ['check', 'rules', join(OBSERVABILITY_DIR, 'alerts.yml')], { encoding: 'utf8' });
    expect(output).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('has the alerts the runbook names, each reading at least one metric', () => {
    const alerts = alertExpressions();
    expect(alerts.map((rule) => rule.alert)).toEqual(
      expect.arrayContaining(['ConsumerLagHigh', 'OutboxNotDraining', 'DeadLetters', 'CallbackFailureRateHigh', 'Http5xxRateHigh', 'WithdrawalStuckSending']),
    );
    for (const rule of alerts) expect([rule.alert, metricNamesIn(rule.expr).length > 0]).toEqual([rule.alert, true]);
  });

  it('has dashboard panels that each read at least one metric', () => {
    const queries = dashboardExpressions();
    expect(queries.length).toBeGreaterThan(10);
    for (const query of queries) expect([query.panel, metricNamesIn(query.expr).length > 0]).toEqual([query.panel, true]);
  });

  it('finds the metric names of a PromQL expression, not its functions, labels, keywords or durations', () => {
    const expression = `sum by (service) (rate(http_requests_total{status_code=~"5..", route!="by"}[5m])) / on (service) group_left sum without (le) (rate(other_seconds_count[$__rate_interval] offset 1h)) > 0.01 and up == bool 1`;
    expect(metricNamesIn(expression).sort()).toEqual(['http_requests_total', 'other_seconds_count', 'up']);
  });
});
