import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { configureGatewayHttp, gatewayFastifyOptions } from '@mp/gateway-api';
import { ConfigError } from '@mp/shared-util-config';
import { AppModule } from './app.module';
import { loadGatewayConfig } from './gateway.config';

async function bootstrap(): Promise<void> {
  const config = loadGatewayConfig(process.env);
  const adapter = new FastifyAdapter(gatewayFastifyOptions({ trustedProxies: config.trustedProxies }));
  // Nest's own JSON parser is off: the gateway verifies signatures over the raw bytes first.
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, { bodyParser: false, logger: ['log', 'warn', 'error'] });
  configureGatewayHttp(app.getHttpAdapter().getInstance(), { trustedProxies: config.trustedProxies });
  app.enableShutdownHooks();
  await app.listen(config.httpPort, config.httpHost);
  console.log(`gateway ready: http://${config.httpHost}:${config.httpPort} (instance ${config.instanceId})`);
}

bootstrap().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
