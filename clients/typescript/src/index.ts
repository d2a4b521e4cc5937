// A typed client of the Assessment Connect API, generated from its OpenAPI document
// (`npm run client:generate` rewrites schema.d.ts and openapi.json beside it). Every path,
// parameter, body and answer is typed; the API key travels in X-API-Key on every request.
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

export interface ClientOptions {
  /** Where the service runs, e.g. https://assessments.example.com */
  baseUrl: string;
  /** An API key (ack_…) for the public API, or the admin token for /admin/v1 (sent as a bearer token). */
  apiKey?: string;
  adminToken?: string;
  /** A fetch of your own (tests, proxies); default the global fetch. */
  fetch?: typeof globalThis.fetch;
}

export type AssessmentConnectClient = Client<paths>;

export function createAssessmentConnectClient(options: ClientOptions): AssessmentConnectClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), fetch: options.fetch });
  const credentials: Middleware = {
    onRequest({ request }) {
      if (options.apiKey) request.headers.set('x-api-key', options.apiKey);
      if (options.adminToken) request.headers.set('authorization', `Bearer ${options.adminToken}`);
      return request;
    },
  };
  client.use(credentials);
  return client;
}
