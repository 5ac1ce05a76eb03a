import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('shared-decider', __dirname);
