// The development mailbox: with no SMTP relay, invitation e-mails are .eml files; this page lists
// them and shows each one, so that a newcomer can open the invite link from the e-mail. Served
// only without SMTP_URL (the local mailbox), only to requests from this machine, and only to
// requests that bear no forwarding header: behind a reverse proxy on the same machine every
// request comes from this machine, and the page would show every sign-in link to the world.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { simpleParser, type ParsedMail } from 'mailparser';
import { Problem } from '../../http/problem.js';
import { html, join, type SafeHtml } from '../../html/html.js';

const LOCAL = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
/** Headers a proxy adds; any of them means the request did not start on this machine. */
export const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-real-ip', 'via'] as const;

/** Whether /dev/mail may answer this request: from this machine, directly, not through a proxy. */
export function isDirectLocalRequest(request: FastifyRequest): boolean {
  return LOCAL.has(request.socket.remoteAddress ?? '') && LOCAL.has(request.ip) && FORWARDING_HEADERS.every((name) => request.headers[name] === undefined);
}

const page = (title: string, body: SafeHtml) =>
  html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head>
<body><main><h1>${title}</h1>${body}</main></body></html>`.toString();

const recipients = (mail: ParsedMail) => (mail.to ? (Array.isArray(mail.to) ? mail.to.map((t) => t.text).join(', ') : mail.to.text) : '');

/** Plain text with its web addresses as links (the invite link, above all), everything escaped. */
function linked(text: string): SafeHtml {
  return join(text.split(/(https?:\/\/[^\s<]+)/g).map((part, i) => (i % 2 === 1 ? html`<a href="${part}">${part}</a>` : part)));
}

export async function devMailbox(app: FastifyInstance, { mailDir }: { mailDir: string }) {
  app.addHook('onRequest', async (request: FastifyRequest) => {
    // Answered as an unknown path: the page's existence is not told to anyone else.
    if (!isDirectLocalRequest(request)) throw new Problem('not-found', `No route ${request.method} ${request.url.split('?')[0]}`);
  });
  app.addHook('onSend', async (_request, reply) => {
    // The e-mails' own HTML is shown in a sandboxed frame: no script, no form, no navigation of this page.
    reply.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'; frame-ancestors 'self'");
    reply.header('cache-control', 'no-store');
  });

  const files = async () => {
    try {
      return (await readdir(mailDir))
        .filter((f) => f.endsWith('.eml'))
        .sort()
        .reverse();
    } catch {
      return [];
    }
  };

  app.get('/dev/mail', { schema: { hide: true } }, async (_request, reply) => {
    const rows = [];
    for (const file of (await files()).slice(0, 200)) {
      const mail = await simpleParser(await readFile(path.join(mailDir, file)));
      rows.push(
        html`<tr><td>${mail.date?.toISOString() ?? ''}</td><td>${recipients(mail)}</td><td><a href="/dev/mail/${encodeURIComponent(file)}">${mail.subject ?? '(no subject)'}</a></td></tr>`,
      );
    }
    const body = rows.length
      ? html`<p>E-mails written to ${mailDir}, newest first.</p><table><thead><tr><th>Date</th><th>To</th><th>Subject</th></tr></thead><tbody>${rows}</tbody></table>`
      : html`<p>No e-mails yet. Invite someone with <code>sendInvite=true</code>.</p>`;
    return reply.type('text/html; charset=utf-8').send(page('Development mailbox', body));
  });

  app.get<{ Params: { file: string }; Querystring: { part?: string } }>('/dev/mail/:file', { schema: { hide: true } }, async (request, reply) => {
    const file = request.params.file;
    if (!/^[A-Za-z0-9.@_-]+\.eml$/.test(file) || !(await files()).includes(file)) throw new Problem('not-found', 'No such e-mail');
    const mail = await simpleParser(await readFile(path.join(mailDir, file)));
    if (request.query.part === 'html') return reply.type('text/html; charset=utf-8').send(mail.html || '<p>(no HTML part)</p>');
    const body = html`<p><a href="/dev/mail">All e-mails</a></p>
<dl><dt>From</dt><dd>${mail.from?.text ?? ''}</dd><dt>To</dt><dd>${recipients(mail)}</dd><dt>Subject</dt><dd>${mail.subject ?? ''}</dd></dl>
<h2>Plain text</h2><pre>${linked(mail.text ?? '')}</pre>
<h2>HTML</h2><iframe title="HTML part" sandbox="allow-popups allow-popups-to-escape-sandbox" src="/dev/mail/${encodeURIComponent(file)}?part=html" style="width:100%;height:32rem;border:1px solid #ccc"></iframe>`;
    return reply.type('text/html; charset=utf-8').send(page(mail.subject ?? 'E-mail', body));
  });
}
