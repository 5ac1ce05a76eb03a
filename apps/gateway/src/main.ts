import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { configureGatewayHttp, gatewayFastifyOptions } from '@mp/gateway-api';
import { exitOnStartupFailure, serviceLogger } from '@mp/shared-nest-http';
import { AppModule } from './app.module';
import { loadGatewayConfig } from './gateway.config';

async function bootstrap(): Promise<void> {
  const config = loadGatewayConfig(process.env);
  const adapter = new FastifyAdapter(gatewayFastifyOptions({ trustedProxies: config.trustedProxies }));
  // Nest's own JSON parser is off: the gateway verifies signatures over the raw bytes first.
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, { bodyParser: false, logger: serviceLogger(config.logFormat) });
  configureGatewayHttp(app.getHttpAdapter().getInstance(), { trustedProxies: config.trustedProxies });
  app.enableShutdownHooks();
  await app.listen(config.httpPort, config.httpHost);
  new Logger('Bootstrap').log(`gateway ready: http://${config.httpHost}:${config.httpPort} (instance ${config.instanceId})`);
}

bootstrap().catch(exitOnStartupFailure);
