// The brand of the request being answered, for the layout of every portal page: set once the
// session is known (whose candidate, so whose instance), read by layout() when a page is drawn.
// Kept per request in an AsyncLocalStorage so that no page function has to pass it along.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Brand } from '../modules/tenants/branding.js';

const current = new AsyncLocalStorage<{ brand?: Brand }>();

/** Runs the rest of a request (from a preHandler hook) with a place for its brand. */
export function withBrandSlot(next: () => void): void {
  current.run({}, next);
}

export function setPortalBrand(brand: Brand): void {
  const slot = current.getStore();
  if (slot) slot.brand = brand;
}

/** The brand of the page being drawn; undefined before a session is known (the landing page). */
export function portalBrand(): Brand | undefined {
  return current.getStore()?.brand;
}
