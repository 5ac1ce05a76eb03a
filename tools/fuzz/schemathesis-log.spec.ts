/**
 * Goal: the fuzz step fails, naming the operations, whenever Schemathesis says the server
 * refused most of the requests the description allows ("schema validation mismatch"), and only
 * then. Method: tools/fuzz/schemathesis-log.mjs runs (under the test's own node) on a console log
 * of a real quick run of the merchant API (testdata/merchant-validation-mismatch.log, 11
 * operations warned) and on variants of it: one operation, no such warning, the summary line only.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');
const realLog = readFileSync(join(__dirname, 'testdata/merchant-validation-mismatch.log'), 'utf8');

/** validationMismatches(log) of the .mjs module, run as run.mjs runs it (an ES module under node). */
function mismatchesOf(log: string): string[] {
  const script = `import { validationMismatches } from ${JSON.stringify(join(root, 'tools/fuzz/schemathesis-log.mjs'))};
let text = ''; process.stdin.on('data', (chunk) => (text += chunk)).on('end', () => process.stdout.write(JSON.stringify(validationMismatches(text))));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { input: log, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as string[];
}

/** The real log's warning block, cut down to the one operation `keep`. */
function withOnly(keep: string): string {
  const lines = realLog.split('\n').filter((line) => !line.startsWith('  - ') || line === `  - ${keep}` || !line.includes('/v2/'));
  const block = lines.join('\n');
  return block.replace(/Schema validation mismatch: 11 operations/g, 'Schema validation mismatch: 1 operation');
}

describe('reading the schema validation mismatch warning from a Schemathesis log (tools/fuzz/schemathesis-log.mjs)', () => {
  it("names every operation of a real run that warned, and none of the other warnings' operations", () => {
    expect(mismatchesOf(realLog)).toEqual([
      'PATCH /v2/merchant',
      'POST /v2/disputes',
      'POST /v2/disputes/list',
      'POST /v2/merchant/withdrawals',
      'POST /v2/merchant/withdrawals/list',
      'POST /v2/payments/incoming',
      'POST /v2/payments/incoming/list',
      'POST /v2/payments/outgoing',
      'POST /v2/payments/outgoing/list',
      'POST /v2/payments/{orderId}/cancel',
      'POST /v2/webhooks/endpoints/enable',
    ]);
  });

  it('names a single operation ("1 operation")', () => {
    expect(mismatchesOf(withOnly('POST /v2/payments/{orderId}/cancel'))).toEqual(['POST /v2/payments/{orderId}/cancel']);
  });

  it('finds nothing in a run without the warning, though other warnings list operations', () => {
    const clean = realLog.replace(/Schema validation mismatch:[\s\S]*?💡[^\n]*\n/, '').replace(/ {2}⚠️ Schema validation mismatch[^\n]*\n/, '');
    expect(clean).toContain('Missing test data: 6 operations');
    expect(mismatchesOf(clean)).toEqual([]);
  });

  it('still fails when only the summary line mentions the warning (a changed format never passes)', () => {
    const summaryOnly = realLog.replace(/Schema validation mismatch: 11 operations mostly rejected generated data due[\s\S]*?💡[^\n]*\n/, '');
    expect(summaryOnly).toContain('⚠️ Schema validation mismatch: 11 operations');
    expect(mismatchesOf(summaryOnly)).toEqual(['(11 operations, not named in the log)']);
  });

  it('reports the operations it could not read when the list is shorter than the heading says', () => {
    const cut = realLog.replace('  - POST /v2/payments/{orderId}/cancel\n  - POST /v2/webhooks/endpoints/enable\n', '  - POST /v2/payments/{orderId}/cancel\n');
    expect(cut).not.toEqual(realLog);
    expect(mismatchesOf(cut)).toEqual(expect.arrayContaining(['POST /v2/payments/{orderId}/cancel', '(1 more operations, not named in the log)']));
  });
});
