import type { INestApplication } from '@nestjs/common';
import { SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { openApiDocument } from './openapi-document.js';

/**
 * Serves the REST surface's OpenAPI document at /openapi.json (and /openapi.yaml) and an interactive page for
 * it at /openapi/docs, with NestJS's Swagger module (it ships the Swagger UI assets, so nothing is fetched).
 * Both are open without a token: they describe the API, they do not reach it.
 */
export function serveOpenApi(app: INestApplication): void {
  SwaggerModule.setup('openapi/docs', app, openApiDocument() as unknown as OpenAPIObject, {
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
    customSiteTitle: 'Nginx control plane API',
    swaggerOptions: { persistAuthorization: false },
  });
}
