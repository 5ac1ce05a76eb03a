/**
 * Splits a rendered kustomize stream for deploy/k8s/validate.sh: kubernetes-validate knows the
 * schemas of Kubernetes' own kinds only, and the prod overlay also holds the operators' custom
 * resources (Strimzi's Kafka and KafkaNodePool, CloudNativePG's Cluster, Database, ...). Those
 * are left out here, and named; deploy/k8s/custom-resources.mjs validates them against their CRDs.
 *
 *   node deploy/k8s/built-in-resources.mjs <rendered.yaml> <built-in.yaml>
 *
 * Writes the built-in resources to <built-in.yaml> and prints one JSON line:
 * {"builtIn": <count>, "skippedKinds": ["Kafka", ...]}.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

/**
 * Kubernetes' own API groups: the core group (apiVersion "v1"), the groups without a dot (apps,
 * batch, policy, autoscaling) and those under k8s.io (networking.k8s.io, rbac.authorization.k8s.io).
 * A custom resource's group is a domain of its owner (kafka.strimzi.io, postgresql.cnpg.io).
 */
export function isBuiltInApiVersion(apiVersion) {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.lastIndexOf('/')) : '';
  return !group.includes('.') || group.endsWith('.k8s.io');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [renderedFile, builtInFile] = process.argv.slice(2);
  if (!renderedFile || !builtInFile) {
    console.error('usage: node deploy/k8s/built-in-resources.mjs <rendered.yaml> <built-in.yaml>');
    process.exit(2);
  }
  const documents = YAML.parseAllDocuments(readFileSync(renderedFile, 'utf8'));
  const problems = documents.flatMap((document) => document.errors);
  if (problems.length > 0) {
    console.error(`${renderedFile}: ${problems.map((problem) => problem.message).join('; ')}`);
    process.exit(1);
  }
  const resources = documents.map((document) => document.toJSON()).filter((resource) => resource !== null);
  const builtIn = resources.filter((resource) => isBuiltInApiVersion(String(resource.apiVersion ?? '')));
  const skippedKinds = [...new Set(resources.filter((resource) => !builtIn.includes(resource)).map((resource) => resource.kind))];
  writeFileSync(builtInFile, builtIn.map((resource) => YAML.stringify(resource)).join('---\n'));
  console.log(JSON.stringify({ builtIn: builtIn.length, skippedKinds }));
}
