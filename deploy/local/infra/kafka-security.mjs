// The local broker's secured configuration (SASL_SSL, SCRAM users, ACLs), as compose and Kubernetes run it.
// Part of deploy/local/infra.mjs, which is the entry point (API and CLI); used by kafka.mjs.

import fsp from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from './constants.mjs';
import { runChecked } from './util.mjs';

export const escapeProperty = (value) => String(value).replaceAll('\\', '\\\\');

/** The SCRAM mechanism of every secured listener; kafkajs speaks it as 'scram-sha-512'. */
export const KAFKA_SCRAM_MECHANISM = 'SCRAM-SHA-512';
/** The broker's own principal: inter-broker traffic, the controller link, and the provisioning steps. */
export const KAFKA_ADMIN_USER = 'admin';

/** A JAAS option value in double quotes (the passwords we make are hex, but a configured one may not be). */
const jaasQuoted = (value) => `"${String(value).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

/**
 * The extra listener for clients behind a TCP fault proxy (`kafkaProxiedListener` of
 * startKafka/startInfra: `{ advertisedPort, advertisedHost? }`): it listens on `port` (a free
 * port the launcher picks) and advertises the proxy's host:port. Null without the option.
 */
export function proxiedListener(options, port) {
  if (!options) return null;
  const advertisedPort = Number(options.advertisedPort);
  if (!Number.isInteger(advertisedPort) || advertisedPort < 1 || advertisedPort > 65535)
    throw new Error(`kafkaProxiedListener.advertisedPort must be a TCP port, got ${JSON.stringify(options.advertisedPort)}`);
  return { port, advertised: `${options.advertisedHost ?? '127.0.0.1'}:${advertisedPort}` };
}

/**
 * The listeners: PLAINTEXT on loopback by default (npm start, most tests). With `security`
 * (the secured configuration that compose and Kubernetes run, see deploy/kafka/README.md):
 * clients reach SASL_SSL with SCRAM-SHA-512, the controller link is SASL PLAIN on loopback as the
 * admin principal, and the StandardAuthorizer refuses whatever no ACL allows.
 */
export function listenerProperties({ brokerPort, controllerPort, security, proxied }) {
  if (!security) {
    // PROXIED (the chaos runner's fault proxy, see proxiedListener): a second PLAINTEXT listener
    // that advertises the proxy's address, so a client bootstrapped through the proxy keeps
    // talking to the broker through it; the broker itself and direct clients use PLAINTEXT.
    const extra = proxied
      ? { listener: `,PROXIED://127.0.0.1:${proxied.port}`, advertised: `,PROXIED://${proxied.advertised}`, protocol: ',PROXIED:PLAINTEXT' }
      : { listener: '', advertised: '', protocol: '' };
    return `listeners=PLAINTEXT://127.0.0.1:${brokerPort}${extra.listener},CONTROLLER://127.0.0.1:${controllerPort}
advertised.listeners=PLAINTEXT://127.0.0.1:${brokerPort}${extra.advertised}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT${extra.protocol}`;
  }
  if (proxied) throw new Error('kafkaProxiedListener works with the PLAINTEXT broker only, not with kafkaSecurity');
  const admin = jaasQuoted(security.adminPassword);
  return `listeners=SASL_SSL://127.0.0.1:${brokerPort},CONTROLLER://127.0.0.1:${controllerPort}
advertised.listeners=SASL_SSL://127.0.0.1:${brokerPort}
controller.listener.names=CONTROLLER
inter.broker.listener.name=SASL_SSL
listener.security.protocol.map=CONTROLLER:SASL_PLAINTEXT,SASL_SSL:SASL_SSL
sasl.enabled.mechanisms=${KAFKA_SCRAM_MECHANISM}
sasl.mechanism.inter.broker.protocol=${KAFKA_SCRAM_MECHANISM}
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="${KAFKA_ADMIN_USER}" password=${admin};
sasl.mechanism.controller.protocol=PLAIN
listener.name.controller.sasl.enabled.mechanisms=PLAIN
listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="${KAFKA_ADMIN_USER}" password=${admin} user_${KAFKA_ADMIN_USER}=${admin};
ssl.keystore.type=PKCS12
ssl.keystore.location=${escapeProperty(security.keystore)}
ssl.keystore.password=${security.keystorePassword}
ssl.truststore.type=PEM
ssl.truststore.location=${escapeProperty(security.caFile)}
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:${KAFKA_ADMIN_USER}
allow.everyone.if.no.acl.found=false`;
}

/**
 * SCRAM credentials are stored in the cluster metadata, so in KRaft the first ones (the admin
 * the broker itself logs in as) can only be added when the storage is formatted (KIP-900).
 */
export const scramArguments = (security) =>
  security
    ? Object.entries({ [KAFKA_ADMIN_USER]: security.adminPassword, ...security.users }).flatMap(([name, password]) => [
        '--add-scram',
        `${KAFKA_SCRAM_MECHANISM}=[name=${name},password=${password}]`,
      ])
    : [];

/**
 * The secured broker's TLS material, made by deploy/kafka/make-tls.sh (the script compose runs):
 * a CA, the CA certificate clients trust, and the broker's keystore for 127.0.0.1.
 */
export async function makeBrokerTls(ctx, { java, dir }) {
  const tls = path.join(dir, 'tls');
  const keytoolDir = path.dirname(java); // keytool ships next to java in every JDK and JRE.
  await runChecked(
    'bash',
    [path.join(REPO_ROOT, 'deploy/kafka/make-tls.sh'), path.join(tls, 'ca'), path.join(tls, 'trust'), path.join(tls, 'broker'), 'dns:localhost,ip:127.0.0.1'],
    {
      cwd: dir,
      env: { ...process.env, PATH: `${keytoolDir}${path.delimiter}${process.env.PATH ?? ''}` },
    },
  );
  return {
    caFile: path.join(tls, 'trust', 'ca.pem'),
    keystore: path.join(tls, 'broker', 'broker.p12'),
    keystorePassword: (await fsp.readFile(path.join(tls, 'broker', 'broker.password'), 'utf8')).trim(),
  };
}
