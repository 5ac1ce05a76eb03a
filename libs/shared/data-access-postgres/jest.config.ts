import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('shared-data-access-postgres', __dirname);
