// Paths, versions, ports and timeouts of the local infrastructure, and the messages that say what to install.
// Part of deploy/local/infra.mjs, which is the entry point (API and CLI).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

////////// Constants

const DEPLOY_LOCAL_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The entry point (API and CLI); the watchdog helper is this file run with `__watchdog`. */
export const INFRA_CLI_FILE = path.join(DEPLOY_LOCAL_DIR, 'infra.mjs');
export const REPO_ROOT = path.resolve(DEPLOY_LOCAL_DIR, '..', '..');
const LOCAL_DIR = path.join(REPO_ROOT, '.local');
export const DEV_DIR = path.join(LOCAL_DIR, 'dev');
export const TEST_RUNS_DIR = path.join(LOCAL_DIR, 'test-runs');

export const KAFKA_POM = path.join(DEPLOY_LOCAL_DIR, 'kafka', 'pom.xml');
/** The project's one Kafka version, <kafka.version> of kafka/pom.xml; it also keys the "jars complete" marker. */
export const KAFKA_VERSION = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(readFileSync(KAFKA_POM, 'utf8'))[1];
export const KAFKA_LIBS_DIR = path.join(LOCAL_DIR, 'kafka-libs');
export const KAFKA_LIBS_MARKER = path.join(KAFKA_LIBS_DIR, `.complete-kafka-${KAFKA_VERSION}.json`);
export const KAFKA_READY_LINE = 'Kafka Server started';
export const KAFKA_READY_TIMEOUT_MS = 60_000;
export const KAFKA_STOP_GRACE_MS = 20_000;
// Far fewer than this means Maven copied the wrong scope (4.x's runtime closure is about 45 jars).
export const KAFKA_MIN_JAR_COUNT = 30;

export const DEV_PORTS = { kafka: 19092, kafkaController: 19093, postgres: 55432 };

export const PG_SUPERUSER = 'payments';
export const PG_DEV_PASSWORD = 'payments-local';
export const PG_FALLBACK_SYSTEM_USER = 'payments-pg';
export const PG_START_TIMEOUT_S = 60;
export const PG_STOP_TIMEOUT_S = 30;
// sun_path is 108 bytes on Linux; the socket file name ".s.PGSQL.NNNNN" needs ~20 of them.
export const UNIX_SOCKET_DIR_MAX_LENGTH = 85;

export const CLI_NAME = 'node deploy/local/infra.mjs';

export const MESSAGES = {
  javaMissing: 'Java 17 is required to run the local Kafka broker: install openjdk-17-jre-headless',
  mavenMissing: 'Maven is required to fetch Kafka jars from Maven Central: apt-get install maven',
  pgMissing: 'PostgreSQL server binaries not found: apt-get install postgresql-15',
};
