// A real OpenID provider for the single sign-on tests: the `oidc-provider` package (a certified
// implementation) listening on 127.0.0.1, with one client registered for the service and accounts
// the tests make. Its only stand-in is the login screen: a page with one button, which signs in the
// account the test names (`provider.login`); consent is given to the client (loadExistingGrant).
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import Provider from 'oidc-provider';

export interface Account {
  email?: string;
  email_verified?: unknown;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, Account>;
  /** The account the next login screen signs in. */
  login: string | undefined;
  close(): Promise<void>;
}

export async function startProvider(redirectUri: string): Promise<TestProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const accounts = new Map<string, Account>();
  const state: TestProvider = {
    issuer,
    clientId: 'assessment-connect',
    clientSecret: 'a-client-secret-for-the-tests-0123456789',
    accounts,
    login: undefined,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: state.clientId,
        client_secret: state.clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test-key', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: ['test-cookie-key-0123456789'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx: unknown, id: string) {
      const account = accounts.get(id);
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...account }) };
    },
    // Consent is given: the tests are about the service's side.
    async loadExistingGrant(ctx: { oidc: { provider: Provider; client: { clientId: string }; session: { accountId: string }; params: { scope?: string } } }) {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope(ctx.oidc.params.scope ?? 'openid');
      await grant.save();
      return grant;
    },
  });
  // The provider would refuse http://127.0.0.1 behind a proxy; it is reached directly here.
  provider.on('server_error', () => {});
  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      void (async () => {
        try {
          await provider.interactionDetails(req, res);
          // The login screen: a page of the provider's site whose button the person presses, so
          // that the way back to the service starts on another site, as it does in production.
          if (req.method === 'GET') {
            res.setHeader('content-type', 'text/html; charset=utf-8');
            res.end(`<!doctype html><title>Provider</title><form method="post" action="${req.url}"><button>Continue at the provider</button></form>`);
            return;
          }
          req.resume();
          await provider.interactionFinished(req, res, { login: { accountId: state.login ?? 'nobody' } }, { mergeWithLastSubmission: false });
        } catch (error) {
          res.statusCode = 500;
          res.end(String(error));
        }
      })();
      return;
    }
    callback(req, res);
  });
  return state;
}

/** Cookies of one browser at the provider. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * Follows the provider's redirects from the authorization URL (login, consent) to the redirect
 * back to the service; returns that URL.
 */
export async function throughProvider(authorizationUrl: string, jar = new CookieJar()): Promise<URL> {
  let url = new URL(authorizationUrl);
  for (let hop = 0; hop < 10; hop++) {
    let response = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.take(response);
    if (response.status === 200 && url.pathname.startsWith('/interaction/')) {
      // The login screen's button.
      await response.body?.cancel();
      response = await fetch(url, { method: 'POST', redirect: 'manual', headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
      jar.take(response);
    }
    const location = response.headers.get('location');
    if (!location) throw new Error(`the provider answered ${response.status} at ${url.pathname}: ${(await response.text()).slice(0, 500)}`);
    await response.body?.cancel();
    const next = new URL(location, url);
    if (next.origin !== url.origin) return next;
    url = next;
  }
  throw new Error('too many redirects at the provider');
}
