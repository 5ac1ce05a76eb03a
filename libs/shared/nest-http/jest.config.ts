import { projectJestConfig } from '../../../jest.preset';

export default projectJestConfig('shared-nest-http', __dirname);
