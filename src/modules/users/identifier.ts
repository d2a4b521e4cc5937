// The one form of a console user's e-mail address that keys anything: the account itself (stored
// so, unique), the sign-in lockout per account, and the audit log's actor. Without it, `İ` or a
// full-width letter spelled the same account differently to the lockout than to the database's
// lower(), and each spelling had its own ten attempts.

/**
 * NFKC (full-width and compatibility letters become plain ones), then Unicode's lowercase, which
 * unlike toLocaleLowerCase does not depend on the process's locale, with the two mappings where
 * lowercasing and case folding differ in a way that matters here: a final sigma is a sigma, and the
 * dotted capital I (`İ`, lowercased as `i` plus a combining dot) is a plain `i`, as a database's
 * lower() makes it. Then NFKC again, as lowercasing can leave a decomposed form.
 */
export function normaliseIdentifier(value: string): string {
  return value
    .trim()
    .normalize('NFKC')
    .toLowerCase()
    .replace(/i\u0307/g, 'i')
    .replace(/ς/g, 'σ')
    .normalize('NFKC');
}
