import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { ConfigError, ConfigReader, internalTlsOptions, readInternalTlsConfig, type InternalTls } from '@mp/shared-util-config';
import { eventually } from '@mp/shared-testing';
import { reloadInternalTlsWhenRenewed } from './internal-listener-tls';

const workspaceRoot = join(__dirname, '../../../..');

/** Two keystores from one CA, as compose's init makes them (deploy/kafka/make-tls.sh, keytool from PATH). */
function makeKeystores(dir: string): { caFile: string; first: InternalTls; second: InternalTls } {
  execFileSync(
    'bash',
    [
      join(workspaceRoot, 'deploy/kafka/make-tls.sh'),
      join(dir, 'ca'),
      join(dir, 'trust'),
      join(dir, 'broker'),
      'dns:localhost',
      `${join(dir, 'first')}=dns:first,ip:127.0.0.1`,
      `${join(dir, 'second')}=dns:second,ip:127.0.0.1`,
    ],
    { stdio: 'ignore' },
  );
  const store = (name: string): InternalTls => ({ keystoreFile: join(dir, name, 'keystore.p12'), keystorePasswordFile: join(dir, name, 'keystore.password') });
  return { caFile: join(dir, 'trust', 'ca.pem'), first: store('first'), second: store('second') };
}

/** The common name of the certificate a new connection is served, verified against the CA. */
function servedCommonName(port: number, caFile: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca: readFileSync(caFile), servername: 'localhost', checkServerIdentity: () => undefined }, () => {
      resolve(String(socket.getPeerCertificate().subject.CN));
      socket.end();
    });
    socket.on('error', reject);
  });
}

const readTls = (environment: Record<string, string>) => {
  const reader = new ConfigReader(environment);
  const config = readInternalTlsConfig(reader);
  reader.assertValid();
  return config.internalTls;
};

describe('internal listener TLS', () => {
  let dir: string;
  let stores: ReturnType<typeof makeKeystores>;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'internal-tls-'));
    stores = makeKeystores(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describe('its settings', () => {
    it('is off with neither setting, and on with both', () => {
      expect(readTls({})).toBeNull();
      expect(
        readTls({ INTERNAL_TLS_KEYSTORE_FILE: stores.first.keystoreFile, INTERNAL_TLS_KEYSTORE_PASSWORD_FILE: stores.first.keystorePasswordFile }),
      ).toEqual(stores.first);
    });

    it('refuses one setting without the other, rather than serving clear text', () => {
      expect(() => readTls({ INTERNAL_TLS_KEYSTORE_FILE: stores.first.keystoreFile })).toThrow(/go together/);
      expect(() => readTls({ INTERNAL_TLS_KEYSTORE_PASSWORD_FILE: stores.first.keystorePasswordFile })).toThrow(/go together/);
    });

    it('refuses a keystore it cannot open: a wrong password, a missing file', () => {
      const wrong = join(dir, 'wrong.password');
      writeFileSync(wrong, 'wrong\n');
      expect(() => readTls({ INTERNAL_TLS_KEYSTORE_FILE: stores.first.keystoreFile, INTERNAL_TLS_KEYSTORE_PASSWORD_FILE: wrong })).toThrow(ConfigError);
      expect(() => readTls({ INTERNAL_TLS_KEYSTORE_FILE: join(dir, 'missing.p12'), INTERNAL_TLS_KEYSTORE_PASSWORD_FILE: wrong })).toThrow(
        /INTERNAL_TLS_KEYSTORE_FILE .*missing\.p12 cannot be used/,
      );
    });
  });

  describe('a renewed keystore', () => {
    let server: Server;
    let live: InternalTls;
    let stopWatching: () => void;
    const logged: string[] = [];
    beforeAll(async () => {
      // The listener's own files, replaced in place as a renewal replaces a Secret's.
      live = { keystoreFile: join(dir, 'live.p12'), keystorePasswordFile: join(dir, 'live.password') };
      copyFileSync(stores.first.keystoreFile, live.keystoreFile);
      copyFileSync(stores.first.keystorePasswordFile, live.keystorePasswordFile);
      server = createServer(internalTlsOptions(live), (_request, response) => response.end('ok'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      stopWatching = reloadInternalTlsWhenRenewed(server, live, {
        intervalMs: 20,
        logger: { log: (line: string) => logged.push(line), error: (line: string) => logged.push(line) },
      });
    });
    afterAll(async () => {
      stopWatching();
      await new Promise((resolve) => server.close(resolve));
    });
    const port = () => (server.address() as { port: number }).port;
    const eventuallyServed = (commonName: string) =>
      eventually(
        () => servedCommonName(port(), stores.caFile),
        (served) => served === commonName,
        `${commonName} served`,
        5_000,
      );

    it('is served to new connections without a restart', async () => {
      expect(await servedCommonName(port(), stores.caFile)).toBe('first');
      copyFileSync(stores.second.keystoreFile, live.keystoreFile);
      copyFileSync(stores.second.keystorePasswordFile, live.keystorePasswordFile);
      expect(await eventuallyServed('second')).toBe('second');
      expect(logged.some((line) => line.includes('certificate reloaded'))).toBe(true);
    });

    it('keeps the current certificate when the new files cannot be opened', async () => {
      writeFileSync(live.keystorePasswordFile, 'not-the-password\n');
      await eventually(() => logged.some((line) => line.includes('kept its certificate')), Boolean, 'the certificate kept', 5_000);
      expect(await servedCommonName(port(), stores.caFile)).toBe('second');
    });
  });
});
