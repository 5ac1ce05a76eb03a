/**
 * Goal: the merchant documentation cannot silently rot. (1) Every relative link in README.md
 * and docs/**\/*.md leads to a file inside the repository (and to a heading that exists), and
 * nothing points at the private spec folder or elsewhere outside the repository. (2) The
 * worked signing examples in docs/api/authentication.md are recomputed with the gateway's own
 * signing code, and the callback example in docs/api/callbacks.md with the Standard Webhooks
 * library, so a change to either the rules or the doc without the other fails here.
 * Method: read the Markdown as a merchant would get it from a clone; the example inputs are
 * parsed from the doc's fenced blocks, never repeated in this file.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { canonicalSignedPath, checkTimestamp, computeSignature, MERCHANT_ID_PATTERN, signaturesMatch, signedPayload } from '@mp/access-domain';
import { Webhook } from 'standardwebhooks';

const repositoryRoot = resolve(__dirname, '../../..');
const docsRoot = join(repositoryRoot, 'docs');

function markdownFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFilesUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

const documents = [join(repositoryRoot, 'README.md'), ...markdownFilesUnder(docsRoot)];
const read = (file: string) => readFileSync(file, 'utf8');
const nameOf = (file: string) => relative(repositoryRoot, file);

/** Fenced code blocks, with the info string that follows the opening fence. */
function fencedBlocks(markdown: string): Array<{ info: string; body: string }> {
  const blocks: Array<{ info: string; body: string }> = [];
  const fence = /^```([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm;
  for (let match = fence.exec(markdown); match; match = fence.exec(markdown)) blocks.push({ info: match[1].trim(), body: match[2] });
  return blocks;
}

/** The prose only: code blocks and inline code spans removed, so a link-like text in code is not a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```[ \t]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

function linkTargets(markdown: string): string[] {
  const targets: string[] = [];
  const inline = /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
  const reference = /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm;
  const html = /\b(?:href|src)\s*=\s*"([^"]+)"/g;
  for (const pattern of [inline, reference, html]) {
    const text = prose(markdown);
    for (let match = pattern.exec(text); match; match = pattern.exec(text)) targets.push(match[1]);
  }
  return targets;
}

/**
 * Heading anchors as GitHub renders them (github-slugger): lower case, punctuation dropped,
 * each space a hyphen, repeats numbered. Hand-written because the slugger is not a dependency
 * of this workspace and the rule is four lines.
 */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutCode = markdown.replace(/^```[^\n]*\n[\s\S]*?^```[ \t]*$/gm, '');
  for (const match of withoutCode.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const text = match[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** What is wrong with one link of `file`, or null when it leads somewhere inside the repository. */
function linkProblem(file: string, target: string): string | null {
  if (/^https:\/\//i.test(target)) return null; // public web pages: reachable from any clone
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return 'uses a scheme other than https:';
  const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
  if (isAbsolute(pathPart) || pathPart.startsWith('/')) return 'is an absolute path, which depends on where the repository is';
  const resolved = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
  const inside = relative(repositoryRoot, resolved);
  if (inside.startsWith('..') || isAbsolute(inside)) return 'leads outside the repository';
  const topFolder = inside.split(sep)[0];
  if (['node_modules', '.local', '.git', '.nx', 'dist', 'tmp'].includes(topFolder)) return `leads into ${topFolder}/, which a clone does not have`;
  if (!existsSync(resolved)) return 'leads to a file that does not exist';
  if (!statSync(resolved).isFile()) return 'leads to a folder, not a file';
  if (anchor !== undefined && resolved.endsWith('.md') && !headingAnchors(read(resolved)).has(anchor))
    return `names a heading #${anchor} that ${nameOf(resolved)} does not have`;
  return null;
}

describe('documentation links', () => {
  it('finds the documentation to check', () => {
    expect(documents.map(nameOf)).toEqual(expect.arrayContaining(['README.md', join('docs', 'README.md'), join('docs', 'api', 'authentication.md')]));
  });

  it.each(documents.map((file) => [nameOf(file), file]))('%s links only to files and headings inside the repository', (_name, file) => {
    const targets = linkTargets(read(file));
    expect(targets.length).toBeGreaterThan(0);
    const problems = targets.map((target) => ({ target, problem: linkProblem(file, target) })).filter((link) => link.problem !== null);
    expect(problems).toEqual([]);
  });

  it.each(documents.map((file) => [nameOf(file), file]))('%s mentions no path outside the repository', (_name, file) => {
    const outside = read(file).match(/\.\.\/shared\b|\bshared\/(?:spec|references)\b|\/work\/[\w.-]+/g) ?? [];
    expect(outside).toEqual([]);
  });

  // What a merchant reads: the API docs, the docs index and the SDK's README. They state each rule
  // themselves; a reader of this repository has no spec sections, decisions file or issue tracker.
  const CITATION = /\bdecisions\.md\b|\bspec(?:'s)? (?:section |§ ?)?\d+(?:\.\d+)*|\bsection \d+(?:\.\d+)* rule \d+|\b[Ii]ssues? #?\d+\b/g;
  const merchantDocuments = documents.filter((file) => nameOf(file).startsWith(join('docs', 'api')) || nameOf(file) === join('docs', 'README.md'));
  it.each([...merchantDocuments, join(repositoryRoot, 'libs/sdk/README.md')].map((file) => [nameOf(file), file]))(
    '%s cites no spec section, decisions file or issue number',
    (_name, file) => {
      const citations = read(file).match(CITATION) ?? [];
      expect(citations).toEqual([]);
    },
  );

  it('tells a citation from ordinary text (the check above can fail)', () => {
    expect('as spec 4.9 rule 2 says; see decisions.md; fixed in issue 21; section 1 rule 7'.match(CITATION)).toEqual([
      'spec 4.9',
      'decisions.md',
      'issue 21',
      'section 1 rule 7',
    ]);
    expect('endpoint 14 takes 5 MiB; the issuer of a card'.match(CITATION)).toBeNull();
  });

  it('links README.md to the documentation index', () => {
    expect(linkTargets(read(join(repositoryRoot, 'README.md')))).toContain('docs/README.md');
  });
});

/** `label: value` lines of an example block; the value is the rest of the line after the colon and spaces. */
function labelledLines(block: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of block.split('\n')) {
    const match = /^([a-z][a-z -]*):[ \t]*(.*)$/.exec(line);
    if (match) values.set(match[1], match[2]);
  }
  return values;
}

function required(values: Map<string, string>, label: string): string {
  const value = values.get(label);
  if (value === undefined) throw new Error(`example block lacks the line "${label}:"`);
  return value;
}

describe('the worked signing examples in docs/api/authentication.md', () => {
  const doc = read(join(docsRoot, 'api', 'authentication.md'));
  const examples = fencedBlocks(doc)
    .filter((block) => block.info === 'signing-example')
    .map((block) => {
      const values = labelledLines(block.body);
      return {
        secret: required(values, 'secret'),
        apiKey: required(values, 'x-api-key'),
        method: required(values, 'method'),
        wirePath: required(values, 'path on wire'),
        timestamp: required(values, 'x-timestamp'),
        body: required(values, 'body'),
        signedString: required(values, 'signed string'),
        signature: required(values, 'x-signature'),
      };
    });

  it('covers a body, an empty body and an id with an encoded slash', () => {
    expect(examples.some((example) => example.body !== '')).toBe(true);
    expect(examples.some((example) => example.method === 'GET' && example.body === '')).toBe(true);
    expect(examples.some((example) => /%2F/i.test(example.wirePath))).toBe(true);
  });

  it.each(examples.map((example) => [`${example.method} ${example.wirePath}`, example]))(
    '%s: the signed string and signature are what the server computes',
    (_name, example) => {
      expect(example.apiKey).toMatch(MERCHANT_ID_PATTERN);
      expect(checkTimestamp(example.timestamp, Number(example.timestamp))).toEqual({ ok: true });
      const body = Buffer.from(example.body, 'utf8');
      const path = canonicalSignedPath(example.wirePath);
      expect(signedPayload(example.timestamp, path, body).toString('utf8')).toBe(example.signedString);
      const expected = computeSignature(example.secret, example.timestamp, path, body);
      expect(example.signature).toBe(expected);
      expect(signaturesMatch(expected, example.signature)).toBe(true);
    },
  );

  it('shows no signature anywhere on the page that the examples do not produce', () => {
    const computed = new Set(
      examples.map((example) => computeSignature(example.secret, example.timestamp, canonicalSignedPath(example.wirePath), Buffer.from(example.body, 'utf8'))),
    );
    const shown = doc.match(/\b[0-9a-f]{64}\b/g) ?? [];
    expect(shown.length).toBeGreaterThan(examples.length);
    expect(shown.filter((signature) => !computed.has(signature))).toEqual([]);
  });
});

describe('the worked callback example in docs/api/callbacks.md', () => {
  const doc = read(join(docsRoot, 'api', 'callbacks.md'));
  const blocks = fencedBlocks(doc).filter((block) => block.info === 'webhook-example');

  it('is there', () => expect(blocks).toHaveLength(1));

  it.each(blocks.map((block, index) => [index + 1, block.body]))('example %s verifies with the Standard Webhooks library', (_index, body) => {
    const values = labelledLines(body);
    const [secret, id, timestamp, payload] = ['webhook secret', 'webhook-id', 'webhook-timestamp', 'body'].map((label) => required(values, label));
    expect(required(values, 'signed content')).toBe(`${id}.${timestamp}.${payload}`);
    const signature = new Webhook(secret).sign(id, new Date(Number(timestamp) * 1000), payload);
    expect(required(values, 'webhook-signature')).toBe(signature);
    // The sample request at the top of the page shows the same headers.
    expect(doc).toContain(`webhook-signature: ${signature}`);
    expect(JSON.parse(payload)).toMatchObject({ id, type: expect.stringMatching(/^payment\./) });
  });
});
