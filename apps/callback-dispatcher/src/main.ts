import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { connectCallbackConsumers } from '@mp/callbacks-infrastructure';
import { exitOnStartupFailure, flushTraces, instrumentHttp, startServiceTelemetry } from '@mp/shared-telemetry';
import { exitGracefullyOnSignals, internalListenerOptions, listenInternally } from '@mp/shared-health';
import { AppModule } from './app.module';
import { loadCallbackDispatcherConfig } from './callback-dispatcher.config';

async function bootstrap(): Promise<void> {
  const config = loadCallbackDispatcherConfig(process.env);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), new FastifyAdapter(internalListenerOptions(config.internalTls)), {
    logger: startServiceTelemetry('callback-dispatcher', config.logFormat),
  });
  instrumentHttp(app.getHttpAdapter().getInstance());
  exitGracefullyOnSignals(app, { ...config, afterClose: flushTraces });
  // Consumers are @ConsumeTopicInBatches handlers on controllers, served over the messaging port.
  connectCallbackConsumers(app);
  // Initialised first so the topics exist (onApplicationBootstrap) before the group joins them.
  await app.init();
  await app.startAllMicroservices();
  const internalUrl = await listenInternally(app, config);
  // Starts with the service's name in the launcher's SERVICES, as every service's ready line does.
  new Logger('Bootstrap').log(`callbacks ready: callback dispatcher, internal API on ${internalUrl} (instance ${config.instanceId})`);
}

bootstrap().catch(exitOnStartupFailure);
