import { projectJestConfig } from '../jest.preset';

/** The command-line tools' checks (tools/*.spec.ts); built entry points come from dist/ (npm test builds it). */
export default { ...projectJestConfig('tools', __dirname), testMatch: ['<rootDir>/*.spec.ts', '<rootDir>/fuzz/*.spec.ts'] };
