import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { CustomStrategy } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DISPUTES_CONSUMERS } from '@mp/disputes-infrastructure';
import { MESSAGE_BROKER, MessagingTransportStrategy } from '@mp/shared-messaging';
import { exitGracefullyOnSignals, internalListenerOptions, listenInternally } from '@mp/shared-health';
import { RECEIPT_BYTES_MAX } from '@mp/shared-util-validation';
import { exitOnStartupFailure, flushTraces, instrumentHttp, startServiceTelemetry } from '@mp/shared-telemetry';
import { AppModule } from './app.module';
import { loadDisputesConfig } from './disputes.config';

async function bootstrap(): Promise<void> {
  const config = loadDisputesConfig(process.env);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), new FastifyAdapter(internalListenerOptions(config.internalTls)), {
    logger: startServiceTelemetry('disputes', config.logFormat),
  });
  instrumentHttp(app.getHttpAdapter().getInstance());
  // Dispute receipts arrive from the gateway as raw file bytes; JSON stays with Nest's parser.
  app
    .getHttpAdapter()
    .getInstance()
    .addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: RECEIPT_BYTES_MAX + 1024 }, (_request, body, done) => done(null, body));
  exitGracefullyOnSignals(app, { ...config, afterClose: flushTraces });
  app.connectMicroservice<CustomStrategy>({ strategy: new MessagingTransportStrategy(app.get(MESSAGE_BROKER), DISPUTES_CONSUMERS) });
  // Initialised first so the topics exist (onApplicationBootstrap) before the group joins them.
  await app.init();
  await app.startAllMicroservices();
  const internalUrl = await listenInternally(app, config);
  new Logger('Bootstrap').log(`disputes ready: internal API on ${internalUrl}`);
}

bootstrap().catch(exitOnStartupFailure);
