// The mailer's figures in /metrics: e-mails on their way to the relay (or the mail folder) and how
// long each took, by outcome. The app wraps its mailer with this when metrics are on.
import { Gauge, Histogram, type Registry } from 'prom-client';
import type { Mailer } from './mailer.js';

/** The mailer, its sends counted and timed in `registry`. */
export function observedMailer(mailer: Mailer, registry: Registry): Mailer {
  const sending = new Gauge({
    name: 'mail_sends_in_progress',
    help: 'E-mails handed to the relay (or the mail folder) by this node and not yet answered: waiting for one of its connections or being sent',
    registers: [registry],
  });
  const sent = new Histogram({
    name: 'mail_send_duration_seconds',
    help: "From handing an e-mail over to the relay's answer, the wait for a connection included, by outcome (sent, failed)",
    labelNames: ['outcome'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  for (const outcome of ['sent', 'failed']) sent.zero({ outcome });
  return {
    description: mailer.description,
    async send(from, message) {
      sending.inc();
      const end = sent.startTimer();
      let outcome = 'failed';
      try {
        const delivery = await mailer.send(from, message);
        outcome = delivery.status === 'SENT' ? 'sent' : 'failed';
        return delivery;
      } finally {
        end({ outcome });
        sending.dec();
      }
    },
    close: () => mailer.close(),
  };
}
