export { DISPUTES_MIGRATIONS, DisputesModule } from './disputes.module';
export { DISPUTES_CONSUMERS } from './commands/dispute-consumers';
export type { DisputesSettings } from './disputes-settings';
export { DISPUTES_INTERNAL_ACCESS } from './internal-access';
export { DISPUTES_PROJECTION, DISPUTES_PROJECTIONS } from './rebuild/disputes.rebuild';
