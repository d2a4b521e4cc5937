// The events of invitations and attempts, as other modules emit them inside their transactions:
// the body is the type, the time, and the score record exactly as GET /v1/score gives it. Never a
// sign-in link or other secret. The client's own reference of the invitation (externalReference)
// rides beside the record when it has one.
import type { Queryable } from '../../db/database.js';
import { recordsOf, type InstanceRecord } from '../scores/repository.js';
import { emitEvents, type EventType } from './repository.js';

/** One event per invitation, each carrying that invitation's record as it stands in `tx`. */
export async function emitInvitationEvents(tx: Queryable, type: EventType, invitationIds: string[], now: Date): Promise<void> {
  await emitRecordEvents(tx, type, await recordsOf(tx, invitationIds), now);
}

/** One event per record, for records already read in `tx` (as an update left them), in one statement. */
export async function emitRecordEvents(tx: Queryable, type: EventType, records: InstanceRecord[], now: Date): Promise<void> {
  await emitEvents(
    tx,
    records.map(({ instance, instanceId, invitationId, externalReference, ...score }) => ({
      instanceId,
      type,
      now,
      invitationId,
      data: { instance, candidateId: score.candidateId, assessmentId: score.assessmentId, ...(externalReference ? { externalReference } : {}), score },
    })),
  );
}
