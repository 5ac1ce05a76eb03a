/**
 * Preloaded (`--require`) into each service by bench/memory-profile.mjs. On SIGUSR2 it writes
 * `<MEMORY_PROFILE_DIR>/<pid>.json`: process.memoryUsage(), V8's heap, heap-space and code
 * statistics, and the CommonJS modules loaded, by package (their count and source size). When
 * the file `<MEMORY_PROFILE_DIR>/snapshot` exists it then writes `<pid>.heapsnapshot` too (V8
 * collects garbage first, so only what is live is in it). The JSON file appears once all is
 * written (written, then renamed).
 */
'use strict';
const { existsSync, renameSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const v8 = require('node:v8');

const directory = process.env.MEMORY_PROFILE_DIR;
/** The package a module file belongs to (`@scope/name` or `name`), or `(app)` for the workspace's own code. */
function packageOf(file) {
  const at = file.lastIndexOf('/node_modules/');
  if (at < 0) return '(app)';
  const [first, second] = file.slice(at + '/node_modules/'.length).split('/');
  return first.startsWith('@') ? `${first}/${second}` : first;
}

if (directory) {
  process.on('SIGUSR2', () => {
    const file = join(directory, `${process.pid}.json`);
    const modules = {};
    for (const name of Object.keys(require.cache)) {
      const owner = packageOf(name);
      const entry = (modules[owner] ??= { files: 0, sourceBytes: 0 });
      entry.files += 1;
      try {
        entry.sourceBytes += statSync(name).size;
      } catch {
        // A module without a file (a JSON loaded from memory, a deleted file): counted, not sized.
      }
    }
    const report = {
      pid: process.pid,
      memoryUsage: process.memoryUsage(),
      heap: v8.getHeapStatistics(),
      heapSpaces: v8.getHeapSpaceStatistics(),
      code: v8.getHeapCodeStatistics(),
      modules,
      snapshot: null,
    };
    // After the figures above: writing a snapshot grows the process for a while.
    if (existsSync(join(directory, 'snapshot'))) report.snapshot = v8.writeHeapSnapshot(join(directory, `${process.pid}.heapsnapshot`));
    writeFileSync(`${file}.part`, JSON.stringify(report));
    renameSync(`${file}.part`, file);
  });
}
