import { projectJestConfig } from '../jest.preset';

/**
 * The command-line tools' checks (tools/*.spec.ts); built entry points come from dist/ (npm test builds it).
 * The chaos runner's specs belong to its own project (tools/chaos/jest.config.ts).
 */
export default { ...projectJestConfig('tools', __dirname), testMatch: ['<rootDir>/*.spec.ts', '<rootDir>/fuzz/*.spec.ts'] };
