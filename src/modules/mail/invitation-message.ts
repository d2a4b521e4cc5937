// The invitation e-mail: plain-text and HTML parts built from the same facts, every value
// escaped for HTML. Pure: no I/O.

export interface InvitationMessage {
  to: { name: string; address: string };
  firstName: string;
  assessments: { name: string; durationMinutes: number }[];
  link: string;
  expiresAt: Date;
}

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const minutes = (n: number) => `${n} minute${n === 1 ? '' : 's'}`;
const day = (date: Date) => date.toISOString().slice(0, 10);

export function renderInvitation(message: InvitationMessage) {
  const list = message.assessments.map((a) => `${a.name} (${minutes(a.durationMinutes)})`);
  const text = [
    `Hello ${message.firstName},`,
    '',
    `You are invited to take the following assessment${list.length === 1 ? '' : 's'}:`,
    ...list.map((line) => `  - ${line}`),
    '',
    'Open this link in a browser to start. Each assessment is timed from the moment you start it:',
    message.link,
    '',
    `The link is personal and valid until ${day(message.expiresAt)} (UTC).`,
  ].join('\n');
  const html = `<!doctype html>
<html lang="en"><body>
<p>Hello ${escapeHtml(message.firstName)},</p>
<p>You are invited to take the following assessment${list.length === 1 ? '' : 's'}:</p>
<ul>${list.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>
<p>Open this link in a browser to start. Each assessment is timed from the moment you start it:</p>
<p><a href="${escapeHtml(message.link)}">${escapeHtml(message.link)}</a></p>
<p>The link is personal and valid until ${day(message.expiresAt)} (UTC).</p>
</body></html>`;
  return {
    to: { name: message.to.name, address: message.to.address },
    subject: list.length === 1 ? `Your assessment: ${message.assessments[0]!.name}` : `Your ${list.length} assessments`,
    text,
    html,
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}
