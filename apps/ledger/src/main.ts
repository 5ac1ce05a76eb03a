import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { exitOnStartupFailure, serviceLogger } from '@mp/shared-nest-http';
import { AppModule } from './app.module';
import { loadLedgerConfig } from './ledger.config';

async function bootstrap(): Promise<void> {
  const config = loadLedgerConfig(process.env);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), new FastifyAdapter(), {
    logger: serviceLogger(config.logFormat),
  });
  app.enableShutdownHooks();
  await app.listen(config.httpPort, config.httpHost);
  new Logger('Bootstrap').log(`ledger ready: internal API on http://${config.httpHost}:${config.httpPort}`);
}

bootstrap().catch(exitOnStartupFailure);
