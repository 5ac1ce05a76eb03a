import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { HEALTH_SETTINGS, type HealthSettings } from './health-settings';
import { Readiness } from './readiness';

/**
 * GET /health/live, /health/ready and /health (readiness, kept for the launcher and tests).
 * Needs the app's TypeORM DataSource and the messaging port (MESSAGE_BROKER).
 */
@Module({})
export class HealthModule {
  static forRoot(settings: HealthSettings): DynamicModule {
    return {
      module: HealthModule,
      global: true,
      imports: [TerminusModule.forRoot({ errorLogStyle: 'json' })],
      controllers: [HealthController],
      providers: [{ provide: HEALTH_SETTINGS, useValue: settings }, Readiness],
      exports: [Readiness],
    };
  }
}
