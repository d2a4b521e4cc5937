// The OpenAPI document (/openapi.json) that the routes' schemas make, and Swagger UI (/docs) over it.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { documentLimitHeaders } from './openapi.js';

// Swagger UI applies a style element of its own at run time: styles may be inline (scripts may
// not; a hash would break with each Swagger UI release).
export const DOCS_CSP =
  "default-src 'none'; base-uri 'none'; connect-src 'self'; font-src 'self' data:; form-action 'none'; frame-ancestors 'none'; img-src 'self' data:; object-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self' 'unsafe-inline'";

export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Assessment Connect',
        license: { name: 'MIT', identifier: 'MIT' },
        version: '1.0',
        description:
          'Invite candidates to pre-employment assessments and read their scores. This document as JSON, for code generators and other tools: [/openapi.json](/openapi.json). Every error is an RFC 9457 problem document (`application/problem+json`) carrying the request id, which is also sent as `X-Request-Id`. See docs/integration.md ("Decisions the interface leaves open") in the repository for what this service decides where the published interface is silent.',
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'API key issued by the operator (`ack_…`). Missing, unknown, revoked or expired: 401.' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'The operator token (ADMIN_TOKEN)' },
        },
      },
      tags: [
        { name: 'assessments', description: 'The assessment catalogue' },
        { name: 'invitations', description: 'Inviting candidates' },
        { name: 'scores', description: 'Reading results' },
        { name: 'candidates', description: 'A candidate and the life of their invitations: cancel, extend, remind' },
        { name: 'admin', description: 'Operator API (Authorization: Bearer ADMIN_TOKEN)' },
        { name: 'health', description: 'Probes for load balancers and orchestrators' },
      ],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (documents) => documentLimitHeaders('openapiObject' in documents ? documents.openapiObject : documents.swaggerObject),
  });
  // /docs under a Content-Security-Policy of its own: Swagger UI's files and the document come from
  // here, nothing inline runs, nothing frames it; its validator badge (an image from
  // validator.swagger.io) is off, so no request leaves for another site.
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: DOCS_CSP, uiConfig: { validatorUrl: null } });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
