// The adapters of applicant-tracking systems, one folder each: its routes (the ATS's calls, in its
// shapes) and its callback format (our calls back to it). A third ATS is one more folder and one
// more line in each list below.
import type { FastifyInstance } from 'fastify';
import type { Partner } from '../modules/integrations/repository.js';
import type { CallbackFormat } from '../modules/integrations/worker.js';
import { ashbyCallbacks } from './ashby/callbacks.js';
import { ashbyRoutes } from './ashby/routes.js';
import { greenhouseCallbacks } from './greenhouse/callbacks.js';
import { greenhouseRoutes } from './greenhouse/routes.js';
import type { PartnerDeps } from './shared.js';

/** Where each adapter is served. */
export const PARTNER_PATHS: Record<Partner, string> = { greenhouse: '/partners/greenhouse', ashby: '/partners/ashby' };

export async function registerPartners(app: FastifyInstance, deps: PartnerDeps): Promise<void> {
  await app.register(greenhouseRoutes, { ...deps, prefix: PARTNER_PATHS.greenhouse });
  await app.register(ashbyRoutes, { ...deps, prefix: PARTNER_PATHS.ashby });
}

/** How each ATS is called back; `ashbyApiUrl` is ASHBY_API_URL. */
export const callbackFormats = (ashbyApiUrl: string): Record<Partner, CallbackFormat> => ({ greenhouse: greenhouseCallbacks, ashby: ashbyCallbacks(ashbyApiUrl) });
