/**
 * An Nx plugin (registered in nx.json) that gives every project a cached `build` target:
 * tools/build.mjs compiles its src/ into dist/<project root>/src. Inferred rather than written
 * in each project.json, so a new app or library is built (and `npm start` and the tests can run
 * it) without anyone remembering to add a target.
 *
 * Cache inputs: the project's non-test sources and those of every project it depends on
 * (`^production`), the compiler settings and this build script. `dependsOn: ^build` builds the
 * libraries an app requires first; a change to one library rebuilds it and its dependants only.
 */
const { dirname } = require('node:path');

const buildTarget = {
  executor: 'nx:run-commands',
  options: { command: 'node tools/build.mjs {projectRoot}' },
  cache: true,
  dependsOn: ['^build'],
  inputs: ['production', '^production', '{workspaceRoot}/.swcrc', '{workspaceRoot}/tsconfig.base.json', '{workspaceRoot}/tools/build.mjs'],
  outputs: ['{workspaceRoot}/dist/{projectRoot}'],
};

module.exports = {
  name: 'merchant-payments-build',
  createNodes: [
    // apps, libraries, the benchmark (bench/) and the chaos runner (tools/chaos/), which run from their builds like the services.
    '{apps/**/project.json,libs/**/project.json,bench/project.json,tools/chaos/project.json}',
    (projectFiles) => projectFiles.map((file) => [file, { projects: { [dirname(file)]: { targets: { build: buildTarget } } } }]),
  ],
};
