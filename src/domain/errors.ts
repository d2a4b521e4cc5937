// Errors of the domain, thrown by modules' repositories and services: a stable code and a message
// for the person who will read it, and no HTTP. One mapper at the edge (src/http/errors.ts) turns
// them into problem documents for every surface (API, admin API, portal, console), so a module
// never decides a status code and every surface answers the same failure the same way.

export const DOMAIN_ERRORS = {
  /** Input that breaks a rule of the domain; `fields` names what. */
  invalid: 'invalid',
  /** The thing does not exist, or is not visible to the caller (the two look the same). */
  'not-found': 'not-found',
  /** The thing exists but is in a state that does not allow this (e.g. an attempt already finished). */
  conflict: 'conflict',
  /** The caller may not do this. */
  forbidden: 'forbidden',
  /** What was given is larger than the rule allows (an upload). */
  'too-large': 'too-large',
  /** What was given is of a kind that is not accepted (an upload's type). */
  'unsupported-type': 'unsupported-type',
  /** Sooner than the rule allows after the last one (an upload that comes too often). */
  'too-soon': 'too-soon',
} as const;

export type DomainErrorCode = keyof typeof DOMAIN_ERRORS;

export interface DomainFieldError {
  /** The field, in the caller's terms (a body field, a parameter, a form field). */
  name: string;
  detail: string;
  in?: 'body' | 'query' | 'path' | 'header' | 'content';
  line?: number;
  column?: number;
}

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly fields?: DomainFieldError[],
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const notFound = (message: string) => new DomainError('not-found', message);
export const conflict = (message: string) => new DomainError('conflict', message);
export const forbidden = (message: string) => new DomainError('forbidden', message);
export const invalidInput = (fields: DomainFieldError[], message?: string) => new DomainError('invalid', message ?? fields.map((f) => `${f.name}: ${f.detail}`).join('; '), fields);
