// The registry of applicant-tracking systems' adapters, one folder each: its routes (the ATS's
// calls, in its shapes), its callback format (our calls back to it) and its name. Another ATS is
// one more folder and one more entry here (and its name in the integrations module's PARTNERS).
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Partner } from '../modules/integrations/repository.js';
import type { CallbackFormat } from '../modules/integrations/worker.js';
import { ashbyCallbacks } from './ashby/callbacks.js';
import { ashbyRoutes } from './ashby/routes.js';
import { greenhouseCallbacks } from './greenhouse/callbacks.js';
import { greenhouseRoutes } from './greenhouse/routes.js';
import type { PartnerApis, PartnerDeps } from './shared.js';
import { hibobCallbacks } from './hibob/callbacks.js';
import { hibobRoutes, publishHibobPackages } from './hibob/routes.js';
import { leverCallbacks } from './lever/callbacks.js';
import { leverRoutes } from './lever/routes.js';
import { smartRecruitersCallbacks } from './smartrecruiters/callbacks.js';
import { smartRecruitersRoutes } from './smartrecruiters/routes.js';
import { workableCallbacks } from './workable/callbacks.js';
import { workableRoutes } from './workable/routes.js';

export interface PartnerAdapter {
  /** How people call the ATS. */
  label: string;
  routes: FastifyPluginAsync<PartnerDeps>;
  /** How the ATS is called back, given where its API is. */
  callbacks(apis: PartnerApis): CallbackFormat;
  /** What the adapter does once an instance's settings are saved (HiBob: publish the packages); a sentence saying how it went. */
  connected?(deps: PartnerDeps, instanceId: string): Promise<string>;
}

export const ADAPTERS: Record<Partner, PartnerAdapter> = {
  greenhouse: { label: 'Greenhouse', routes: greenhouseRoutes as FastifyPluginAsync<PartnerDeps>, callbacks: () => greenhouseCallbacks },
  ashby: { label: 'Ashby', routes: ashbyRoutes as FastifyPluginAsync<PartnerDeps>, callbacks: (apis) => ashbyCallbacks(apis.ashby) },
  workable: { label: 'Workable', routes: workableRoutes as FastifyPluginAsync<PartnerDeps>, callbacks: () => workableCallbacks },
  hibob: { label: 'HiBob', routes: hibobRoutes, callbacks: (apis) => hibobCallbacks(apis.hibob), connected: publishHibobPackages },
  lever: { label: 'Lever', routes: leverRoutes, callbacks: (apis) => leverCallbacks(apis.lever) },
  smartrecruiters: {
    label: 'SmartRecruiters',
    routes: smartRecruitersRoutes as FastifyPluginAsync<PartnerDeps>,
    callbacks: (apis) => smartRecruitersCallbacks(apis.smartrecruiters),
  },
};

/** Where each adapter is served: /partners/<ats>. */
export const partnerPath = (partner: Partner): string => `/partners/${partner}`;

/** The public API addresses of the ATSs (each overridden by its *_API_URL setting). */
export const DEFAULT_PARTNER_APIS: PartnerApis = {
  ashby: 'https://api.ashbyhq.com',
  hibob: 'https://api.hibob.com/v1',
  lever: 'https://api.lever.co/v1',
  smartrecruiters: 'https://api.smartrecruiters.com',
};

/** The ATSs' API addresses of the app's settings, each defaulting to the public one. */
export const partnerApis = (config: { ashbyApiUrl?: string; hibobApiUrl?: string; leverApiUrl?: string; smartrecruitersApiUrl?: string }): PartnerApis => ({
  ashby: (config.ashbyApiUrl ?? DEFAULT_PARTNER_APIS.ashby).replace(/\/+$/, ''),
  hibob: (config.hibobApiUrl ?? DEFAULT_PARTNER_APIS.hibob).replace(/\/+$/, ''),
  lever: (config.leverApiUrl ?? DEFAULT_PARTNER_APIS.lever).replace(/\/+$/, ''),
  smartrecruiters: (config.smartrecruitersApiUrl ?? DEFAULT_PARTNER_APIS.smartrecruiters).replace(/\/+$/, ''),
});

export async function registerPartners(app: FastifyInstance, deps: PartnerDeps): Promise<void> {
  for (const [partner, adapter] of Object.entries(ADAPTERS) as [Partner, PartnerAdapter][]) await app.register(adapter.routes, { ...deps, prefix: partnerPath(partner) });
}

/** What the ATS's adapter does once an instance's settings are saved, if anything. */
export const partnerConnected = (deps: PartnerDeps, partner: Partner, instanceId: string): Promise<string | undefined> =>
  ADAPTERS[partner].connected?.(deps, instanceId) ?? Promise.resolve(undefined);

/** How each ATS is called back. */
export const callbackFormats = (apis: PartnerApis): Record<Partner, CallbackFormat> =>
  Object.fromEntries((Object.entries(ADAPTERS) as [Partner, PartnerAdapter][]).map(([partner, adapter]) => [partner, adapter.callbacks(apis)])) as Record<Partner, CallbackFormat>;
