/**
 * Validates the operators' custom resources of a rendered kustomize stream offline, for
 * deploy/k8s/validate.sh, against the schemas of their CRDs as the @kubernetes-models packages
 * ship them (generated from each operator's released CRDs; the versions are pinned in
 * package.json): Strimzi (kafka.strimzi.io), CloudNativePG (postgresql.cnpg.io) and the
 * Prometheus Operator (monitoring.coreos.com) and cert-manager (cert-manager.io). Types, required fields, enums and patterns are
 * checked; fields a CRD does not know are not (CRD schemas allow them, and the API server would
 * drop them). A kind with no schema here is named, never skipped silently.
 *
 *   node deploy/k8s/custom-resources.mjs <rendered.yaml>
 *
 * Prints one JSON line {"valid": <count>, "invalid": ["Kind/name: problem", ...], "noSchema": ["Kind", ...]}
 * and exits 1 when a resource is invalid.
 */
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
// Kubernetes' own groups, which validate.sh checks with kubernetes-validate instead.
import { isBuiltInApiVersion } from './built-in-resources.mjs';

/** The API versions whose schemas are here, each the module that holds its kinds. */
const SCHEMA_MODULES = {
  'kafka.strimzi.io/v1': '@kubernetes-models/strimzi-kafka-operator/kafka.strimzi.io/v1',
  'postgresql.cnpg.io/v1': '@kubernetes-models/cloudnative-pg/postgresql.cnpg.io/v1',
  'monitoring.coreos.com/v1': '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1',
  'cert-manager.io/v1': '@kubernetes-models/cert-manager/cert-manager.io/v1',
};

const [renderedFile] = process.argv.slice(2);
if (!renderedFile) {
  console.error('usage: node deploy/k8s/custom-resources.mjs <rendered.yaml>');
  process.exit(2);
}
const resources = YAML.parseAllDocuments(readFileSync(renderedFile, 'utf8'))
  .map((document) => document.toJSON())
  .filter((resource) => resource !== null && !isBuiltInApiVersion(String(resource.apiVersion ?? '')));

const modules = new Map();
async function modelOf(apiVersion, kind) {
  const path = SCHEMA_MODULES[apiVersion];
  if (!path) return undefined;
  if (!modules.has(path)) modules.set(path, await import(path));
  const model = modules.get(path)[kind];
  return model?.kind === kind && model?.apiVersion === apiVersion ? model : undefined;
}

let valid = 0;
const invalid = [];
const noSchema = new Set();
for (const resource of resources) {
  const Model = await modelOf(resource.apiVersion, resource.kind);
  if (!Model) {
    noSchema.add(`${resource.kind} (${resource.apiVersion})`);
    continue;
  }
  try {
    new Model(resource).validate();
    valid += 1;
  } catch (error) {
    invalid.push(`${resource.kind}/${resource.metadata?.name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
console.log(JSON.stringify({ valid, invalid, noSchema: [...noSchema] }));
process.exit(invalid.length > 0 ? 1 : 0);
