/**
 * Goal: the integration guide's code is the code the SDK's e2e spec runs. Every block of
 * docs/api/integration-guide.md that follows an `<!-- example: libs/sdk/examples/<file>.ts -->`
 * line must equal that file byte for byte, and every example file must be in the guide, so an
 * example changed without the guide (or the reverse) fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const repositoryRoot = resolve(__dirname, '../../..');
const guide = readFileSync(join(repositoryRoot, 'docs/api/integration-guide.md'), 'utf8');
const examplesDir = 'libs/sdk/examples';
// index.ts only re-exports the examples for the e2e spec; it is not an example.
const exampleFiles = readdirSync(join(repositoryRoot, examplesDir))
  .filter((name) => name.endsWith('.ts') && name !== 'index.ts')
  .map((name) => `${examplesDir}/${name}`);

/** Each marked block: the file the marker names and the block's text (everything between the fences). */
function markedBlocks(markdown: string): Array<{ file: string; code: string }> {
  const marked = /^<!-- example: (\S+) -->\n```ts\n([\s\S]*?)^```[ \t]*$/gm;
  const blocks: Array<{ file: string; code: string }> = [];
  for (let match = marked.exec(markdown); match; match = marked.exec(markdown)) blocks.push({ file: match[1], code: match[2] });
  return blocks;
}

describe('docs/api/integration-guide.md', () => {
  const blocks = markedBlocks(guide);

  it('includes every example file of libs/sdk/examples, once', () => {
    expect(blocks.map((block) => block.file).sort()).toEqual([...exampleFiles].sort());
  });

  it.each(blocks.map((block) => [block.file, block] as const))('shows %s exactly as the file is', (file, block) => {
    const source = readFileSync(join(repositoryRoot, file), 'utf8');
    if (block.code !== source) throw new Error(`the guide's block for ${file} differs from the file: copy the file into the guide again`);
    expect(block.code).toBe(source);
  });
});
