import { projectJestConfig } from '../jest.preset';

/**
 * The command-line tools' checks (tools/*.spec.ts); the ones that run built entry points from dist/ are end-to-end files (the e2e tier builds it).
 * The chaos runner's specs belong to its own project (tools/chaos/jest.config.ts).
 */
export default projectJestConfig('tools', __dirname, { specs: ['<rootDir>/*', '<rootDir>/fuzz/*'] });
