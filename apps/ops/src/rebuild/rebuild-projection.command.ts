import { rebuildProjection, type RebuildReport } from '@mp/shared-command-handling';
import { ConfigError, ConfigReader, parseCommandLine } from '@mp/shared-util-config';
import { DataSource } from 'typeorm';
import { findProjection, NOT_DERIVABLE, REBUILDABLE_PROJECTIONS } from './projections';

export interface RebuildIo {
  out(line: string): void;
  err(line: string): void;
}

const USAGE = 'usage: rebuild-projection <service> <projection> [--switch] [--json] [--batch-size N] | --list';

/**
 * The projection rebuild (docs/operations/projection-rebuild.md). Exit code 0 when the rebuilt
 * projection equals the live one (or was switched in), 1 when it found differences and only
 * reported them, 2 on bad arguments or a projection with no events behind it (and 3 when it could
 * not run: rebuild-projection.ts).
 *
 * Connects as the service's migration role (<SERVICE>_MIGRATION_DATABASE_URL): the shadow
 * schema is created in the service's database, which the runtime role may not do.
 */
export async function runRebuildProjection(argv: string[], env: NodeJS.ProcessEnv, io: RebuildIo): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandLine({
      args: argv,
      allowPositionals: true,
      options: {
        switch: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        list: { type: 'boolean', default: false },
        'batch-size': { type: 'string' },
      },
    });
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(`${error.message}\n${USAGE}`);
      return 2;
    }
    throw error;
  }
  const { values, positionals } = parsed;
  if (values.list) {
    for (const projection of REBUILDABLE_PROJECTIONS) io.out(`${projection.service} ${projection.name}\t${projection.description}`);
    for (const other of NOT_DERIVABLE) io.out(`${other.service} ${other.name}\tnot rebuildable: ${other.why}`);
    return 0;
  }
  const [service, name] = positionals;
  if (positionals.length !== 2) {
    io.err(USAGE);
    return 2;
  }
  const notDerivable = NOT_DERIVABLE.find((other) => other.service === service && other.name === name);
  if (notDerivable) {
    io.err(`${service} ${name} cannot be rebuilt: ${notDerivable.why}`);
    return 2;
  }
  const projection = findProjection(service, name);
  if (!projection) {
    io.err(`no projection ${service} ${name}; npm run rebuild -- --list names them`);
    return 2;
  }
  const reader = new ConfigReader(env);
  const variable = `${service.toUpperCase()}_MIGRATION_DATABASE_URL`;
  const url = reader.url(variable, {
    protocols: ['postgres:', 'postgresql:'],
    description: `the ${service} database as its migration role (owner of the tables)`,
  });
  const batchSize = values['batch-size'] === undefined ? 1000 : Number(values['batch-size']);
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    io.err(`--batch-size must be a positive integer, not ${values['batch-size']}`);
    return 2;
  }
  reader.assertValid();

  const dataSource = new DataSource({ type: 'postgres', url, applicationName: `rebuild-${service}-${name}`, extra: { max: 2 } });
  await dataSource.initialize();
  try {
    const report = await rebuildProjection(dataSource, projection, { switch: values.switch, batchSize, log: values.json ? undefined : (line) => io.err(line) });
    io.out(values.json ? JSON.stringify(report) : formatReport(report));
    return report.differences.length === 0 || report.switched ? 0 : 1;
  } finally {
    await dataSource.destroy();
  }
}

/** The report for a terminal: one line per difference, then the counts and the rate. */
export function formatReport(report: RebuildReport): string {
  const lines = report.differences.map((difference) => {
    const key = Object.entries(difference.key)
      .map(([column, value]) => `${column}=${String(value)}`)
      .join(' ');
    if (difference.kind === 'changed')
      return `${difference.table} [${key}] ${difference.column}: live ${JSON.stringify(difference.live)}, rebuilt ${JSON.stringify(difference.rebuilt)}`;
    if (difference.kind === 'missing') return `${difference.table} [${key}] missing from the live table; rebuilt ${JSON.stringify(difference.rebuilt)}`;
    return `${difference.table} [${key}] in the live table with no events behind it: ${JSON.stringify(difference.live)}`;
  });
  for (const kept of report.notDerived) lines.push(`${kept.table}: kept from the live rows (not in the events): ${kept.columns.join(', ')}`);
  const outcome =
    report.differences.length === 0
      ? 'equal to the live projection'
      : `${report.differences.length} difference(s)${report.switched ? ', switched: the live projection now equals the rebuilt one' : ', not switched (--switch to copy the rebuilt rows in)'}`;
  lines.push(
    `${report.projection}: ${report.eventsFolded} events folded to position ${report.position} in ${report.seconds.toFixed(1)} s (${report.eventsPerSecond} events/s); ${outcome}`,
  );
  return lines.join('\n');
}
