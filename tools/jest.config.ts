import { projectJestConfig } from '../jest.preset';

/**
 * The command-line tools' checks (tools/*.spec.ts); built entry points come from dist/ (npm test builds it).
 * chaos/src: the chaos runner's fault proxy and callback sink, against the real broker and server.
 */
export default { ...projectJestConfig('tools', __dirname), testMatch: ['<rootDir>/*.spec.ts', '<rootDir>/fuzz/*.spec.ts', '<rootDir>/chaos/src/*.spec.ts'] };
