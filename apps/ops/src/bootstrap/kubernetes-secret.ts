import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** How a pod reaches the Kubernetes API with its service account. */
export interface KubernetesApi {
  /** `https://<KUBERNETES_SERVICE_HOST>:<port>` in a pod. */
  url: string;
  token: string;
  /** The cluster's CA (PEM); absent for a plain-http test server. */
  ca?: string;
  namespace: string;
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The API as the pod's mounted service account sees it; null outside a pod. */
export function inClusterKubernetesApi(environment: NodeJS.ProcessEnv = process.env): KubernetesApi | null {
  const host = environment['KUBERNETES_SERVICE_HOST'];
  if (!host) return null;
  const port = environment['KUBERNETES_SERVICE_PORT'] ?? '443';
  const read = (file: string) => readFileSync(`${SERVICE_ACCOUNT_DIR}/${file}`, 'utf8').trim();
  return { url: `https://${host.includes(':') ? `[${host}]` : host}:${port}`, token: read('token'), ca: read('ca.crt'), namespace: read('namespace') };
}

export class SecretAlreadyExistsError extends Error {}

/**
 * Creates an Opaque Secret (never replaces one: 409 becomes SecretAlreadyExistsError, so a
 * credential already waiting to be collected is not overwritten). One POST with the service
 * account's token: the ops image needs nothing else of the API, so a Kubernetes client library
 * (and its dependency tree) in the image would buy nothing.
 */
export async function createSecret(api: KubernetesApi, name: string, data: Record<string, string>, labels: Record<string, string> = {}): Promise<void> {
  const body = JSON.stringify({
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: { name, namespace: api.namespace, labels },
    data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'utf8').toString('base64')])),
  });
  const url = new URL(`/api/v1/namespaces/${encodeURIComponent(api.namespace)}/secrets`, api.url);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        ca: api.ca,
        timeout: 10_000,
        headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error('the Kubernetes API did not answer within 10 s')));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
  if (status === 409) throw new SecretAlreadyExistsError(`Secret ${api.namespace}/${name} already exists: collect and delete it first`);
  if (status < 200 || status >= 300) throw new Error(`creating Secret ${api.namespace}/${name}: HTTP ${status} ${text.slice(0, 300)}`);
}
