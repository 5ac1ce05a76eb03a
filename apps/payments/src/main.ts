import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { CustomStrategy } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { PAYMENTS_CONSUMERS, RECEIPT_BYTES_MAX } from '@mp/payments-infrastructure';
import { MESSAGE_BROKER, MessagingTransportStrategy } from '@mp/shared-messaging';
import { exitOnStartupFailure, flushTraces, instrumentHttp, startServiceTelemetry } from '@mp/shared-telemetry';
import { exitGracefullyOnSignals, internalListenerOptions, listenInternally } from '@mp/shared-health';
import { AppModule } from './app.module';
import { loadPaymentsConfig } from './payments.config';

async function bootstrap(): Promise<void> {
  const config = loadPaymentsConfig(process.env);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), new FastifyAdapter(internalListenerOptions(config.internalTls)), {
    logger: startServiceTelemetry('payments', config.logFormat),
  });
  instrumentHttp(app.getHttpAdapter().getInstance());
  // Receipt uploads arrive as raw file bytes; JSON stays with Nest's parser.
  app
    .getHttpAdapter()
    .getInstance()
    .addContentTypeParser(
      ['application/octet-stream', 'application/pdf', 'image/png', 'image/jpeg'],
      { parseAs: 'buffer', bodyLimit: RECEIPT_BYTES_MAX + 1024 },
      (_request, body, done) => done(null, body),
    );
  exitGracefullyOnSignals(app, { ...config, afterClose: flushTraces });
  // Consumers are @EventPattern handlers on controllers, served over the messaging port.
  app.connectMicroservice<CustomStrategy>({ strategy: new MessagingTransportStrategy(app.get(MESSAGE_BROKER), PAYMENTS_CONSUMERS) });
  // Initialised first so the topics exist (onApplicationBootstrap) before the group joins them.
  await app.init();
  await app.startAllMicroservices();
  const internalUrl = await listenInternally(app, config);
  new Logger('Bootstrap').log(`payments ready: internal API on ${internalUrl}`);
}

bootstrap().catch(exitOnStartupFailure);
