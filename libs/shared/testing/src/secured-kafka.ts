import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import type { SecuredKafkaClientInfo } from './infra-launcher';
import { builtEntryPoint, CATALOG_SERVICE_NAMES, type ServiceName } from './system-under-test';
import { workspaceRoot } from './workspace-root';

const START_TIMEOUT_MS = 90_000;

/**
 * A broker of its own in the secured configuration that compose and Kubernetes run: SASL_SSL
 * with SCRAM-SHA-512, one principal per service, ACLs, and no access without one. The shared
 * test broker stays PLAINTEXT on loopback (like `npm start`); this one is for the suites that
 * prove the boundary. It runs as `node deploy/local/infra.mjs secured-kafka` (an ES module a
 * jest test cannot import), stopped with SIGTERM.
 */
export class SecuredKafka {
  private constructor(
    readonly brokers: string,
    readonly security: SecuredKafkaClientInfo,
    private readonly launcher: ChildProcess,
    private readonly exited: Promise<unknown>,
  ) {}

  /** `extraUsers`: principals beside the services' (the dead-letter replay principals), each with a password of its own. */
  static async start(options: { extraUsers?: string[] } = {}): Promise<SecuredKafka> {
    const users = [...CATALOG_SERVICE_NAMES, ...(options.extraUsers ?? [])];
    const launcher = spawn(process.execPath, [join(workspaceRoot, 'deploy/local/infra.mjs'), 'secured-kafka', '--users', users.join(',')], {
      cwd: workspaceRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { stdout } = launcher;
    const exited = new Promise((resolve) => launcher.once('exit', resolve));
    const log: string[] = [];
    launcher.stderr?.on('data', (chunk: Buffer) => log.push(chunk.toString('utf8')));
    const printed: Record<string, string> = {};
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the secured broker did not start within ${START_TIMEOUT_MS / 1000} s:\n${log.join('')}`)),
        START_TIMEOUT_MS,
      );
      void exited.then(() => reject(new Error(`the secured broker's launcher exited:\n${log.join('')}`)));
      createInterface({ input: stdout }).on('line', (line) => {
        const match = /^(KAFKA_BROKERS|KAFKA_SECURITY)=(.*)$/.exec(line);
        if (match) printed[match[1]] = match[2];
        if (printed['KAFKA_BROKERS'] && printed['KAFKA_SECURITY']) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    try {
      await ready;
    } catch (error) {
      launcher.kill('SIGTERM');
      throw error;
    }
    return new SecuredKafka(printed['KAFKA_BROKERS'], JSON.parse(printed['KAFKA_SECURITY']) as SecuredKafkaClientInfo, launcher, exited);
  }

  async stop(): Promise<void> {
    this.launcher.kill('SIGTERM');
    await this.exited;
  }

  /** A service's Kafka settings, as compose and the Kubernetes manifests give them. */
  serviceEnv(principal: string, password = this.security.users[principal] ?? ''): Record<string, string> {
    return {
      KAFKA_BROKERS: this.brokers,
      KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
      KAFKA_SASL_USERNAME: principal,
      KAFKA_SASL_PASSWORD: password,
      KAFKA_SSL_CA_FILE: this.security.caFile,
    };
  }

  /** Every service's settings, for SystemUnderTest's `env`. */
  systemEnv(): Partial<Record<ServiceName, Record<string, string>>> {
    return Object.fromEntries(CATALOG_SERVICE_NAMES.map((service) => [service, this.serviceEnv(service)]));
  }

  /** The catalog's topics and every principal's ACLs in `namespace`, made by the ops image's init, as the admin. */
  async provision(namespace: string, partitions = 3): Promise<string> {
    const { stdout } = await promisify(execFile)(process.execPath, [builtEntryPoint('apps/ops/src/init.ts'), '--steps', 'topics,kafka-access'], {
      cwd: workspaceRoot,
      env: {
        PATH: process.env['PATH'] ?? '',
        ...this.serviceEnv(this.security.adminUser, this.security.adminPassword),
        KAFKA_NAMESPACE: namespace,
        KAFKA_TOPIC_PARTITIONS: String(partitions),
      },
    });
    return stdout;
  }
}
