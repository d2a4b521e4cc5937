// A real SMTP relay for the tests: the `smtp-server` package on a free loopback port, keeping
// every message it accepted (parsed with mailparser) and able to behave badly on request:
// refuse recipients with a 5xx, or hold the DATA phase open and never answer.
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export type RelayMode = 'accept' | 'reject' | 'hang';

export interface Received {
  mail: ParsedMail;
  raw: Buffer;
  /** Who authenticated on the connection, if anyone. */
  user: string | undefined;
  /** Whether the connection was encrypted (smtps, or upgraded with STARTTLS). */
  secure: boolean;
  envelopeTo: string[];
}

export interface Relay {
  port: number;
  url: string;
  received: Received[];
  mode: RelayMode;
  /** Messages whose DATA phase was held open ('hang'), answered when the relay closes. */
  held: number;
  /** Resolves once `count` messages have been received. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface RelayOptions {
  /** smtps: TLS from the first byte. */
  secure?: boolean;
  /** Require AUTH with these credentials. */
  credentials?: { user: string; pass: string };
  /** Do not offer STARTTLS. */
  noStartTls?: boolean;
  port?: number;
}

export async function startRelay(options: RelayOptions = {}): Promise<Relay> {
  const received: Received[] = [];
  const pending: (() => void)[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const settle = () => {
    for (const w of [...waiters]) {
      if (received.length >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  const relay: Relay = {
    port: 0,
    url: '',
    received,
    mode: 'accept',
    held: 0,
    waitFor(count, timeoutMs = 10_000) {
      if (received.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`relay received ${received.length} of ${count} messages`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    close: async () => {
      for (const answer of pending.splice(0)) answer();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const serverOptions: SMTPServerOptions = {
    secure: options.secure ?? false,
    // Without a key and certificate smtp-server uses its own self-signed pair, which is why the
    // service is told `?tls=insecure` where the tests use TLS.
    hideSTARTTLS: options.noStartTls ?? false,
    authOptional: !options.credentials,
    allowInsecureAuth: false,
    disabledCommands: options.credentials ? [] : ['AUTH'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (options.credentials && auth.username === options.credentials.user && auth.password === options.credentials.pass) {
        callback(null, { user: auth.username });
      } else {
        callback(Object.assign(new Error('Authentication credentials invalid'), { responseCode: 535 }));
      }
    },
    onRcptTo(address, _session, callback) {
      if (relay.mode === 'reject') {
        callback(Object.assign(new Error(`Mailbox ${address.address} unavailable`), { responseCode: 550 }));
      } else {
        callback();
      }
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (relay.mode === 'hang') {
          // Never answer: the client is left waiting for the relay's verdict.
          relay.held++;
          pending.push(() => callback(Object.assign(new Error('closing'), { responseCode: 421 })));
          return;
        }
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (mail) => {
            received.push({
              mail,
              raw,
              user: typeof session.user === 'string' ? session.user : undefined,
              secure: session.secure,
              envelopeTo: session.envelope.rcptTo.map((r) => r.address),
            });
            callback(null, `queued as ${received.length}`);
            settle();
          },
          (error: Error) => callback(error),
        );
      });
    },
  };
  const server = new SMTPServer(serverOptions);
  server.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address() as { port: number };
  relay.port = address.port;
  relay.url = `${options.secure ? 'smtps' : 'smtp'}://${options.credentials ? `${encodeURIComponent(options.credentials.user)}:${encodeURIComponent(options.credentials.pass)}@` : ''}127.0.0.1:${address.port}${options.secure || !options.noStartTls ? '?tls=insecure' : ''}`;
  return relay;
}
