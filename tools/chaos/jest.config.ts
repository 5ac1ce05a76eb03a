import { projectJestConfig } from '../../jest.preset';

/** Unit tests of the chaos runner's pure parts; the run itself is `npm run chaos` (docs/operations/chaos.md). */
export default projectJestConfig('chaos', __dirname);
