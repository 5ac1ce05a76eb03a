import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { FastifyReply } from 'fastify';
import { buildMerchantApiDocument, serializeMerchantApiDocument } from './merchant-api.document';

/**
 * The page's own policy: scripts and styles from this origin only (no CDN, no inline script),
 * the description fetched from here. Swagger UI sets style attributes, hence 'unsafe-inline'
 * for styles alone.
 */
export const DOCS_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Merchant payments API</title>
<link rel="stylesheet" href="/v2/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/v2/docs/swagger-ui-bundle.js"></script>
<script src="/v2/docs/init.js"></script>
</body>
</html>
`;

/** validatorUrl null: Swagger UI would otherwise send the description to an outside validator. */
const DOCS_INIT_SCRIPT = `window.ui = SwaggerUIBundle({ url: '/v2/openapi.json', dom_id: '#swagger-ui', validatorUrl: null, deepLinking: true });\n`;

/** Swagger UI's files, from the installed swagger-ui-dist (a dependency of @nestjs/swagger), served by the gateway itself. */
const SWAGGER_UI_ASSETS: Record<string, string> = { 'swagger-ui.css': 'text/css; charset=utf-8', 'swagger-ui-bundle.js': 'text/javascript; charset=utf-8' };

/**
 * The merchant contract, unauthenticated: GET /v2/openapi.json (the same document `npm run
 * openapi` writes, built from the same controllers) and a Swagger UI page at GET /v2/docs.
 * Built on first request, then kept: the gateway's boot does not wait for it.
 */
@ApiExcludeController()
@Controller('v2')
export class MerchantApiDocsController {
  private document: Promise<string> | null = null;
  private readonly assets = new Map<string, Promise<Buffer>>();

  @Get('openapi.json')
  async openApi(@Res() reply: FastifyReply): Promise<void> {
    this.document ??= buildMerchantApiDocument()
      .then(serializeMerchantApiDocument)
      .catch((error: unknown) => {
        this.document = null; // the next request tries again
        throw error;
      });
    await reply
      .status(200)
      .type('application/json; charset=utf-8')
      .send(await this.document);
  }

  @Get('docs')
  async page(@Res() reply: FastifyReply): Promise<void> {
    await reply.status(200).type('text/html; charset=utf-8').header('content-security-policy', DOCS_CONTENT_SECURITY_POLICY).send(DOCS_PAGE);
  }

  @Get('docs/init.js')
  async init(@Res() reply: FastifyReply): Promise<void> {
    await reply.status(200).type('text/javascript; charset=utf-8').send(DOCS_INIT_SCRIPT);
  }

  @Get('docs/swagger-ui.css')
  async css(@Res() reply: FastifyReply): Promise<void> {
    await this.sendAsset(reply, 'swagger-ui.css');
  }

  @Get('docs/swagger-ui-bundle.js')
  async bundle(@Res() reply: FastifyReply): Promise<void> {
    await this.sendAsset(reply, 'swagger-ui-bundle.js');
  }

  private async sendAsset(reply: FastifyReply, file: string): Promise<void> {
    let content = this.assets.get(file);
    if (!content) {
      content = readFile(join(dirname(require.resolve('swagger-ui-dist/package.json')), file));
      this.assets.set(file, content);
    }
    await reply
      .status(200)
      .type(SWAGGER_UI_ASSETS[file])
      .send(await content);
  }
}
