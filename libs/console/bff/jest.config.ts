import { projectJestConfig } from '../../../jest.preset';

// Unit specs only: the console's behaviour end to end is apps/system-e2e/src/console-bff.e2e.spec.ts.
export default projectJestConfig('console-bff', __dirname);
