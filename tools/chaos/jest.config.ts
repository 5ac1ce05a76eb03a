import { projectJestConfig } from '../../jest.preset';

/**
 * The chaos runner's tests: its pure parts, and the fault proxy and callback sink against the
 * real broker and server; the run itself is `npm run chaos` (docs/operations/chaos.md).
 */
export default projectJestConfig('chaos', __dirname, { needsInfrastructure: true });
