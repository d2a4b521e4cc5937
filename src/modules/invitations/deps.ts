// What inviting needs and gives: the types shared by the invite command (service.ts), its links
// (links.ts), its e-mail (invitation-mail.ts) and the surfaces that call them.
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/database.js';
import type { Mailer } from '../mail/mailer.js';
import type { IssuedLink } from './links.js';
import type { AttemptsOfInvitation } from './machine.js';

export interface InviteRequest {
  email: string;
  firstName: string;
  lastName: string;
  assessments: string[];
  /** Extra time on every assessment of the invite, percent of its time limit (0-200); absent: unchanged (0 for new ones). */
  extraTimePercent?: number;
  /** The candidate's language (BCP 47); absent: unchanged. */
  language?: string;
  /** The client's own reference for these invitations (an application id), 1-200 characters; absent: unchanged. */
  externalReference?: string;
}

/** Where an invitation was first made: the v1 API, the console, or an applicant-tracking system's adapter. */
export type InvitationSource = 'api' | 'console' | 'greenhouse' | 'ashby' | 'workable' | 'hibob' | 'lever' | 'smartrecruiters';

/** An assessment of an invite that was left as it was, and why (inviting again cannot reopen it). */
export interface SkippedAssessment {
  assessmentId: string;
  status: 'COMPLETED' | 'CANCELLED';
  detail: string;
}

export interface InviteResult {
  link: string;
  candidateId: string;
  invitationStatus?: 'SENT' | 'FAILED';
  /** Assessments of the invite that nothing was done for; absent when there are none. */
  skipped?: SkippedAssessment[];
}

export interface InviteDeps {
  db: Database;
  mailer: Mailer;
  publicUrl: string;
  /** The sender when the instance has none of its own. */
  mailFrom: string;
  /** Per-instance template overrides live in <templatesDir>/<instance>/. */
  templatesDir?: string;
  log?: FastifyBaseLogger;
  /** The app's clock: the time of deliveries and their events. */
  now: () => Date;
  /** The attempts module's part in cancel and retake. */
  attempts: AttemptsOfInvitation;
}

/** What inviting, issuing links and e-mailing need (all of InviteDeps but the attempts' part). */
export type LinkDeps = Omit<InviteDeps, 'attempts'>;

/** What the invite command and a link need: no mailer, no clock (the command's context has its time). */
export type InviteCommandDeps = Pick<LinkDeps, 'db' | 'publicUrl'>;

/** What the invite command made, to be e-mailed after commit. */
export interface PreparedInvite extends IssuedLink {
  candidateId: string;
  /** The assessments the link opens and the e-mail names, in the order asked for. */
  open: { id: string; slug: string; name: string; durationMinutes: number }[];
  skipped: SkippedAssessment[];
}
