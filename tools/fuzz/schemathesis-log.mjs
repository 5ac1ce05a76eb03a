/**
 * Reads a Schemathesis console log (what tools/fuzz/run.mjs writes per API) for the "Schema
 * validation mismatch" warning: operations whose valid-by-the-description requests the server
 * refused (400/422) in a whole phase. Such an operation means the OpenAPI description is looser
 * than the server, so a client built from it sends requests that fail; the fuzz step fails on it.
 *
 * Hand-written over the console text because Schemathesis 4 reports warnings nowhere else in
 * the quick mode (its JSON report is written in full runs only, and `warnings.fail-on` gives an
 * exit code but no operation names). The text it matches is Schemathesis'
 * `display_warning_blocks`: a `Schema validation mismatch: N operation(s) ...` line, then one
 * `  - METHOD /path` line per operation, then a `💡` tip.
 */

const HEADING = /^Schema validation mismatch: (\d+) operations? /;
const ITEM = /^ {2}- (\S+ \S+)\s*$/;

/**
 * The operations of the warning, as `METHOD /path`; an empty list when the log has no such
 * warning. A heading whose list cannot be read still counts: its number of unnamed operations
 * is reported as `(N operations, not named in the log)` so a change of format never passes.
 */
export function validationMismatches(logText) {
  const lines = logText.split(/\r?\n/);
  const start = lines.findIndex((line) => HEADING.test(line));
  if (start === -1) {
    // The summary's one-line form (`⚠️ Schema validation mismatch: N operations ...`) alone still fails the run.
    const summary = lines.find((line) => line.includes('Schema validation mismatch:'));
    return summary ? [`(${/(\d+) operation/.exec(summary)?.[1] ?? 'some'} operations, not named in the log)`] : [];
  }
  const count = Number(HEADING.exec(lines[start])[1]);
  const operations = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('💡') || /^\S/.test(line)) break;
    const item = ITEM.exec(line);
    if (item) operations.push(item[1]);
  }
  return operations.length === count ? operations : [...operations, `(${count - operations.length} more operations, not named in the log)`];
}
