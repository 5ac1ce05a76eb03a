import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { WebhookSecretStore } from '@mp/access-infrastructure';
import { CallbackDestinationPolicy, configureGatewayHttp, gatewayFastifyOptions, RateLimiter, startInternalListener } from '@mp/gateway-api';
import { CLOCK } from '@mp/shared-util-clock';
import { exitOnStartupFailure, flushTraces, instrumentHttp, startServiceTelemetry } from '@mp/shared-telemetry';
import { exitGracefullyOnSignals, internalListenerScheme } from '@mp/shared-health';
import { MetricsRegistry } from '@mp/shared-metrics';
import { SERVICE_AUTHENTICATOR } from '@mp/shared-service-auth';
import { AppModule } from './app.module';
import { loadGatewayConfig } from './gateway.config';

async function bootstrap(): Promise<void> {
  const config = loadGatewayConfig(process.env);
  const adapter = new FastifyAdapter(gatewayFastifyOptions({ trustedProxies: config.trustedProxies }));
  // Nest's own JSON parser is off: the gateway verifies signatures over the raw bytes first.
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    bodyParser: false,
    logger: startServiceTelemetry('gateway', config.logFormat),
  });
  configureGatewayHttp(app.getHttpAdapter().getInstance(), { trustedProxies: config.trustedProxies });
  // After configureGatewayHttp: a refused request still gets its request id and security headers.
  app.get(RateLimiter).registerAddressLimits(app.getHttpAdapter().getInstance());
  // After configureGatewayHttp: its hook gives the request id, which becomes the correlation id of the commands the request sends.
  instrumentHttp(app.getHttpAdapter().getInstance(), {
    requestIdOf: (request) => (request as { requestId?: string }).requestId,
    requestIdIsCorrelationId: true,
  });
  exitGracefullyOnSignals(app, { ...config, afterClose: flushTraces });
  await app.listen(config.httpPort, config.httpHost);
  const logger = new Logger('Bootstrap');
  logger.log(`gateway ready: http://${config.httpHost}:${config.httpPort} (instance ${config.instanceId})`);
  const internal = await startInternalListener(app.get(WebhookSecretStore), {
    host: config.internalHttpHost,
    port: config.internalHttpPort,
    authenticator: app.get(SERVICE_AUTHENTICATOR),
    metrics: app.get(MetricsRegistry),
    testClock: config.testClockEnabled ? app.get(CLOCK) : undefined,
    tls: config.internalTls,
    callbackAllowLists: app.get(CallbackDestinationPolicy),
  });
  // Nest's shutdown hooks end the process on SIGTERM; this listener must not keep it alive.
  internal.server.unref();
  logger.log(
    `gateway internal listener: ${internalListenerScheme(config.internalTls)}://${config.internalHttpHost}:${config.internalHttpPort} (callback dispatcher, Prometheus /metrics)`,
  );
}

bootstrap().catch(exitOnStartupFailure);
