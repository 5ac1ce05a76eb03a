import { Controller, Get } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * `GET /health` for services that own a database: healthy means the pool can still run a
 * query, which is what an orchestrator's readiness probe needs to know before routing reads.
 */
@Controller()
export class DatabaseHealthController {
  constructor(private readonly dataSource: DataSource) {}

  @Get('health')
  async health(): Promise<{ status: 'ok' }> {
    await this.dataSource.query('SELECT 1');
    return { status: 'ok' };
  }
}
