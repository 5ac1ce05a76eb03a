#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { verifyCallback } from './callbacks';
import { MerchantClient, type PreparedRequest } from './client';

/** POSIX shell single-quoting: the text as one word, whatever it contains. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The request as a curl command that sends exactly the signed bytes (valid for the 300 s signing window). */
export function curlCommand(request: PreparedRequest): string {
  const parts = ['curl', '-sS', '-X', request.method, shellQuote(request.url)];
  for (const [name, value] of Object.entries(request.headers)) parts.push('-H', shellQuote(`${name}: ${value}`));
  if (request.body) parts.push('--data-binary', shellQuote(request.body.toString('utf8')));
  return parts.join(' ');
}

/** JSON answers indented for reading; anything else (a receipt file, an HTML page) as it came. */
function laidOut(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** `--body '{"a":1}'` is sent as written; `--body @file.json` sends the file's bytes. */
function readBody(body: string | undefined): Buffer | undefined {
  if (body === undefined) return undefined;
  return body.startsWith('@') ? readFileSync(body.slice(1)) : Buffer.from(body, 'utf8');
}

/** A local listener that verifies each callback with the SDK and prints one line per callback. */
export function listen(port: number, host: string, secrets: string[], print: (line: string) => void = console.log): Promise<Server> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const result = verifyCallback(secrets, Buffer.concat(chunks), request.headers);
      if (result.valid) {
        print(`verified ${result.event.id} ${result.event.type} ${JSON.stringify(result.event.data)}`);
        response.writeHead(204).end();
      } else {
        print(`invalid ${request.headers['webhook-id'] ?? '-'}: ${result.reason}`);
        response.writeHead(401, { 'content-type': 'text/plain' }).end(`invalid callback: ${result.reason}\n`);
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

export async function runCli(argv: string[]): Promise<void> {
  await yargs(argv)
    .scriptName('merchant')
    .usage('$0 <command>: the merchant API (/v2) from the shell')
    .command(
      'call <method> <path>',
      'sign and send one request; prints the status line and the answer',
      (command) =>
        command
          .positional('method', { type: 'string', demandOption: true, describe: 'GET, POST or PATCH' })
          .positional('path', { type: 'string', demandOption: true, describe: 'the path as sent, e.g. /v2/payments/status/shop%2F2026%3A17' })
          .option('body', { type: 'string', describe: "the JSON body as written, or @file to send a file's bytes" })
          .option('curl', { type: 'boolean', default: false, describe: 'print the equivalent curl command instead of sending' })
          .option('merchant-id', { type: 'string', default: process.env['MERCHANT_ID'], describe: 'x-api-key (env MERCHANT_ID)' })
          .option('secret', { type: 'string', default: process.env['MERCHANT_SECRET'], describe: 'the API secret, sk_... (env MERCHANT_SECRET)' })
          .option('api-url', {
            type: 'string',
            default: process.env['MERCHANT_API_URL'] ?? 'http://127.0.0.1:3000',
            describe: 'the API base URL (env MERCHANT_API_URL)',
          })
          .check((args) => {
            if (!args['merchant-id'] || !args.secret)
              throw new Error('credentials missing: set MERCHANT_ID and MERCHANT_SECRET, or pass --merchant-id and --secret');
            return true;
          }),
      async (args) => {
        const client = new MerchantClient({ baseUrl: args['api-url'], merchantId: args['merchant-id'] as string, apiSecret: args.secret as string });
        const prepared = client.prepare(args.method.toUpperCase(), args.path, readBody(args.body));
        if (args.curl) {
          console.log(curlCommand(prepared));
          return;
        }
        const response = await fetch(prepared.url, {
          method: prepared.method,
          headers: prepared.headers,
          body: prepared.body ?? undefined,
          redirect: 'manual',
        });
        console.log(`HTTP ${response.status}\n${laidOut(await response.text())}`);
        if (!response.ok) process.exitCode = 1;
      },
    )
    .command(
      'listen',
      'run a local webhook listener that verifies each callback and prints verified or invalid',
      (command) =>
        command
          .option('port', { type: 'number', default: 8443, describe: 'the port to listen on' })
          .option('host', { type: 'string', default: '127.0.0.1', describe: 'the address to listen on' })
          .option('secret', {
            type: 'string',
            array: true,
            default: process.env['MERCHANT_WEBHOOK_SECRET'] ? [process.env['MERCHANT_WEBHOOK_SECRET']] : [],
            describe: 'the webhook secret, whsec_... (repeat it for both secrets of a rotation; env MERCHANT_WEBHOOK_SECRET)',
          })
          .check((args) => {
            if (args.secret.length === 0) throw new Error('no webhook secret: pass --secret whsec_... or set MERCHANT_WEBHOOK_SECRET');
            return true;
          }),
      async (args) => {
        const server = await listen(args.port, args.host, args.secret.map(String));
        const address = server.address();
        console.log(`listening on http://${args.host}:${typeof address === 'object' && address ? address.port : args.port}`);
      },
    )
    .demandCommand(1)
    .strict()
    .help()
    .parseAsync();
}

if (require.main === module) {
  runCli(hideBin(process.argv)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
