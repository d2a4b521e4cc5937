// The form of the service's ids: a UUID (candidates, attempts, users, snapshots) in any letter
// case. An id of another form names nothing, and is answered as unknown before any query.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether the text has the form of a UUID (any version, either letter case). */
export const isUuid = (text: string): boolean => UUID.test(text);
