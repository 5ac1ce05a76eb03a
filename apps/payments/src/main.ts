import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { RECEIPT_BYTES_MAX } from '@mp/payments-infrastructure';
import { exitOnStartupFailure, serviceLogger } from '@mp/shared-nest-http';
import { AppModule } from './app.module';
import { loadPaymentsConfig } from './payments.config';

async function bootstrap(): Promise<void> {
  const config = loadPaymentsConfig(process.env);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), new FastifyAdapter(), {
    logger: serviceLogger(config.logFormat),
  });
  // Receipt uploads arrive as raw file bytes; JSON stays with Nest's parser.
  app.getHttpAdapter().getInstance().addContentTypeParser(['application/octet-stream', 'application/pdf', 'image/png', 'image/jpeg'], { parseAs: 'buffer', bodyLimit: RECEIPT_BYTES_MAX + 1024 }, (_request, body, done) => done(null, body));
  app.enableShutdownHooks();
  await app.listen(config.httpPort, config.httpHost);
  new Logger('Bootstrap').log(`payments ready: internal API on http://${config.httpHost}:${config.httpPort}`);
}

bootstrap().catch(exitOnStartupFailure);
