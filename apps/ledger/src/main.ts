import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { CustomStrategy } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LEDGER_CONSUMERS } from '@mp/ledger-infrastructure';
import { MESSAGE_BROKER, MessagingTransportStrategy } from '@mp/shared-messaging';
import { exitOnStartupFailure, flushTraces, instrumentHttp, startServiceTelemetry } from '@mp/shared-telemetry';
import { exitGracefullyOnSignals, internalListenerOptions, listenInternally } from '@mp/shared-health';
import { AppModule } from './app.module';
import { loadLedgerConfig } from './ledger.config';

async function bootstrap(): Promise<void> {
  const config = loadLedgerConfig(process.env);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), new FastifyAdapter(internalListenerOptions(config.internalTls)), {
    logger: startServiceTelemetry('ledger', config.logFormat),
  });
  instrumentHttp(app.getHttpAdapter().getInstance());
  exitGracefullyOnSignals(app, { ...config, afterClose: flushTraces });
  // Consumers are @EventPattern handlers on controllers, served over the messaging port.
  app.connectMicroservice<CustomStrategy>({ strategy: new MessagingTransportStrategy(app.get(MESSAGE_BROKER), LEDGER_CONSUMERS) });
  // Initialised first so the topics exist (onApplicationBootstrap) before the group joins them.
  await app.init();
  await app.startAllMicroservices();
  const internalUrl = await listenInternally(app, config);
  new Logger('Bootstrap').log(`ledger ready: internal API on ${internalUrl}`);
}

bootstrap().catch(exitOnStartupFailure);
