/**
 * Goal: the fuzzer signs exactly as merchants must (tools/fuzz/signing.py), so a 401 it meets is
 * the server's, never its own. Method: the signer runs under the system's python3 (it needs only
 * the standard library) on every published vector of docs/api/signing-test-vectors.json, and
 * on a prepared request whose query string must stay out of the signed path.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');
interface Vector {
  name: string;
  secret: string;
  timestamp: string;
  wire_path: string;
  body: string;
  signed_path: string;
  signature: string;
}
const vectors = (JSON.parse(readFileSync(join(root, 'docs/api/signing-test-vectors.json'), 'utf8')) as { vectors: Vector[] }).vectors;

/** Runs a Python snippet with tools/fuzz importable; its stdout is one JSON value. */
function python(script: string, input: unknown): unknown {
  const result = spawnSync('python3', ['-c', script], {
    cwd: root,
    input: JSON.stringify(input),
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: join(root, 'tools/fuzz') },
  });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout);
}

describe('the fuzzer request signer (tools/fuzz/signing.py)', () => {
  it('signs every published vector as docs/api/signing-test-vectors.json says', () => {
    const signed = python(
      `import json, sys
from signing import signature_headers, signed_path
print(json.dumps([[signed_path(v["wire_path"]), signature_headers("mch_x", v["secret"], v["wire_path"], v["body"].encode("utf-8"), v["timestamp"])["x-signature"]] for v in json.load(sys.stdin)]))`,
      vectors,
    );
    expect(signed).toEqual(vectors.map((vector) => [vector.signed_path, vector.signature]));
  });

  it('signs the prepared request: its path without the query, its body bytes as sent', () => {
    const [vector] = vectors.filter((each) => each.name === 'encoded-slash-stays');
    const headers = python(
      `import json, sys
from signing import MerchantSignature
class Prepared: pass
v = json.load(sys.stdin)
request = Prepared(); request.path_url = v["wire_path"] + "?limit=1"; request.body = None; request.headers = {}
MerchantSignature("mch_x", v["secret"])(request)
print(json.dumps(request.headers))`,
      vector,
    ) as Record<string, string>;
    expect(headers['x-api-key']).toBe('mch_x');
    const expected = python(
      `import json, sys\nfrom signing import signature\nv = json.load(sys.stdin)\nprint(json.dumps(signature(v["secret"], ${'v["ts"]'}, v["signed_path"], b"")))`,
      { ...vector, ts: headers['x-timestamp'] },
    );
    expect(headers['x-signature']).toBe(expected);
  });
});
