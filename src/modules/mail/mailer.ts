// The mail port: the invitation service hands a message to a Mailer and learns SENT or FAILED,
// with what the relay said. Over SMTP when SMTP_URL is set (a pooled connection), otherwise as
// .eml files under $DATA_DIR/mail. Either way the time a request waits is bounded.
import { mkdir, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { RenderedMessage } from './invitation-message.js';
import { monotonicMs, wallMs } from '../../domain/clock.js';
import { Slots } from '../../domain/slots.js';

export type DeliveryOutcome = { status: 'SENT'; messageId: string; detail: string } | { status: 'FAILED'; messageId?: string; detail: string };

export interface Sender {
  name?: string;
  address: string;
}

export interface Mailer {
  readonly description: string;
  /** Delivers within the mailer's bound; never throws. */
  send(from: Sender | string, message: RenderedMessage): Promise<DeliveryOutcome>;
  close(): void;
}

export interface MailerOptions {
  /** smtp:// or smtps:// with optional credentials; undefined writes .eml files. */
  smtpUrl?: string;
  /** Directory the .eml files go to. */
  mailDir: string;
  /** The longest a send may take, in ms. */
  timeoutMs: number;
}

// Messages are automatic: say so, so that auto-responders stay quiet (RFC 3834).
const HEADERS = { 'Auto-Submitted': 'auto-generated' };

export function createMailer(options: MailerOptions): Mailer {
  return options.smtpUrl ? createSmtpMailer(options.smtpUrl, options.timeoutMs) : createFileMailer(options);
}

export function createFileMailer(options: { mailDir: string; timeoutMs: number; from?: string }): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    description: `e-mails are written as .eml files to ${options.mailDir}`,
    send(from, message) {
      return withTimeout(options.timeoutMs, async () => {
        const info = await transport.sendMail({ from, ...message, headers: HEADERS });
        await mkdir(options.mailDir, { recursive: true, mode: 0o700 });
        const stamp = new Date(wallMs()).toISOString().replace(/[:.]/g, '-');
        const file = path.join(options.mailDir, `${stamp}-${info.messageId.replace(/[^A-Za-z0-9.@-]/g, '')}.eml`);
        await writeFile(file, info.message as Buffer, { mode: 0o600 });
        // What the console shows as the relay's answer: the local mailbox, not a path on the server.
        return { status: 'SENT', messageId: info.messageId, detail: `kept in the local mailbox (no SMTP relay set), as ${path.basename(file)}` };
      });
    },
    close() {
      transport.close();
    },
  };
}

/** Connections the pool keeps open to the relay, and so the messages in flight at once. */
const POOL_SIZE = 5;

function createSmtpMailer(smtpUrl: string, timeoutMs: number): Mailer {
  const url = new URL(smtpUrl);
  const transport = nodemailer.createTransport({
    host: url.hostname,
    port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
    secure: url.protocol === 'smtps:',
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    // A pool of a few connections reused across invites; STARTTLS is used when the relay offers it.
    pool: true,
    maxConnections: POOL_SIZE,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    // SNI carries host names only (RFC 6066); a relay given by IP address is verified without it.
    tls: { servername: isIP(url.hostname) ? undefined : url.hostname, rejectUnauthorized: url.searchParams.get('tls') !== 'insecure' },
  });
  // Messages wait for a free connection here, not in Nodemailer's pool queue: one whose request
  // has given up (the bound passed) is then dropped before it reaches the relay, so that an
  // invitation reported FAILED is not delivered later behind the caller's back.
  const slots = new Slots(POOL_SIZE);
  const where = `${url.protocol}//${url.hostname}${url.port ? `:${url.port}` : ''}`;
  return {
    description: `e-mails are delivered through ${where}`,
    send(from, message) {
      const deadline = monotonicMs() + timeoutMs;
      return withTimeout(timeoutMs, async (abandoned) => {
        const release = await slots.acquire(deadline);
        if (!release || abandoned()) {
          release?.();
          return { status: 'FAILED', detail: `no connection to the relay became free within ${timeoutMs} ms` };
        }
        try {
          const info = await transport.sendMail({ from, ...message, headers: HEADERS });
          if (info.rejected.length > 0) return { status: 'FAILED', messageId: info.messageId, detail: `rejected: ${info.response}` };
          return { status: 'SENT', messageId: info.messageId, detail: info.response };
        } finally {
          // Freed when the relay has answered or the socket timed out, never earlier: the
          // connection is busy until then.
          release();
        }
      });
    },
    close() {
      transport.close();
    },
  };
}

/** Runs work for at most ms; `abandoned()` tells the work that its caller has stopped waiting. */
async function withTimeout(ms: number, work: (abandoned: () => boolean) => Promise<DeliveryOutcome>): Promise<DeliveryOutcome> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const timeout = new Promise<DeliveryOutcome>((resolve) => {
    timer = setTimeout(() => {
      timedOut = true;
      resolve({ status: 'FAILED', detail: `no answer within ${ms} ms` });
    }, ms);
  });
  try {
    return await Promise.race([work(() => timedOut).catch((error: Error): DeliveryOutcome => ({ status: 'FAILED', detail: error.message.slice(0, 500) })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
