import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { ConfigError } from '@mp/shared-util-config';
import { AppModule } from './app.module';
import { loadCallbackDispatcherConfig } from './callback-dispatcher.config';

async function bootstrap(): Promise<void> {
  const config = loadCallbackDispatcherConfig(process.env);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), new FastifyAdapter(), { logger: ['log', 'warn', 'error'] });
  app.enableShutdownHooks();
  await app.listen(config.httpPort, config.httpHost);
  console.log(`callback dispatcher ready: internal API on http://${config.httpHost}:${config.httpPort} (instance ${config.instanceId})`);
}

bootstrap().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
