// The mail port: the invitation service hands a message to a Mailer and learns SENT or FAILED.
// Today's transport writes .eml files under $DATA_DIR/mail; an SMTP transport plugs in behind the
// same interface. Either way the time a request waits is bounded.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { renderInvitation, type InvitationMessage } from './invitation-message.js';

export type DeliveryOutcome = { status: 'SENT'; messageId: string; detail: string } | { status: 'FAILED'; detail: string };

export interface Mailer {
  readonly description: string;
  sendInvitation(message: InvitationMessage): Promise<DeliveryOutcome>;
  close(): void;
}

export interface MailerOptions {
  from: string;
  timeoutMs: number;
  /** Directory the .eml files go to. */
  mailDir: string;
}

export function createFileMailer(options: MailerOptions): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    description: `e-mails are written as .eml files to ${options.mailDir}`,
    async sendInvitation(message) {
      return withTimeout(options.timeoutMs, async () => {
        const info = await transport.sendMail({ from: options.from, ...renderInvitation(message) });
        await mkdir(options.mailDir, { recursive: true, mode: 0o700 });
        const stamp = new Date().toISOString().replace(/[:.]/g, '-');
        const file = path.join(options.mailDir, `${stamp}-${info.messageId.replace(/[^A-Za-z0-9.@-]/g, '')}.eml`);
        await writeFile(file, info.message as Buffer, { mode: 0o600 });
        return { status: 'SENT', messageId: info.messageId, detail: `written to ${file}` };
      });
    },
    close() {
      transport.close();
    },
  };
}

async function withTimeout(ms: number, work: () => Promise<DeliveryOutcome>): Promise<DeliveryOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<DeliveryOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ status: 'FAILED', detail: `no answer within ${ms} ms` }), ms);
  });
  try {
    return await Promise.race([
      work().catch((error: Error): DeliveryOutcome => ({ status: 'FAILED', detail: error.message })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
