import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT, type JWK, type JWTPayload } from 'jose';
import { APPLE_ISSUER } from '../../lib/providers/apple.js';

/**
 * A local stand-in for Apple's authorize, token and keys endpoints. The authorize page is a form that
 * posts `state`, `code` and (at the first sign-up) `user` to the redirect URI, as Apple's form_post
 * does; the token endpoint checks the client secret JWT with the team key's public half and answers an
 * id_token signed with a test RSA key published at /auth/keys.
 */

export const CLIENT_ID = 'com.example.web';
export const TEAM_ID = 'TEAM123456';
export const KEY_ID = 'KEY7654321';

/** The team's Sign in with Apple key (EC P-256), as a .p8 would hold it. */
export function teamKey(): { pem: string; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { pem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, publicKey };
}

/** How the next sign-in goes; tests change fields between logins. */
export interface AppleScript {
  /** Apple's stable user id. */
  sub: string;
  /** The `user` form field (first sign-up only), or undefined. */
  user?: { name?: { firstName?: string; lastName?: string }; email?: string };
  /** Claims changed in (or, with undefined, removed from) the next id_tokens. */
  claims: Partial<Record<string, unknown>>;
  /** Sign id_tokens with a key the JWKS does not hold (but under a published kid). */
  forgeSignature: boolean;
  /** Token endpoint status (200 normally). */
  tokenStatus: number;
}

export interface ClientSecretSeen {
  jwt: string;
  header: Record<string, unknown>;
  payload: JWTPayload;
  verified: boolean;
}

export interface AppleStandin {
  /** Base URL the app calls (token, keys). */
  url: string;
  /** Base URL for the browser's authorize page (another site when given a different host). */
  browserURL: string;
  script: AppleScript;
  secrets: ClientSecretSeen[];
  keyFetches: number;
  /** Replaces the signing key with a new one under a new kid (key rotation). */
  rotate(): Promise<void>;
  endpoint(): { authURL: string; tokenURL: string; keysURL: string };
  close(): Promise<void>;
}

interface Code {
  nonce?: string;
  redirectURI: string;
  clientId: string;
}

export async function startAppleStandin(
  teamPublicKey: KeyObject,
  opts: { browserHost?: string } = {},
): Promise<AppleStandin> {
  // RSA key generation is slow on a loaded machine: every stand-in of a test file shares the first two.
  shared ??= Promise.all([rsaKey('kid-1'), rsaKey('kid-1')]);
  const [first, stranger] = await shared;
  let signing = first!;
  const codes = new Map<string, Code>();
  let n = 0;
  const state: AppleStandin = {
    url: '',
    browserURL: '',
    script: { sub: '001234.abcdef.0042', user: undefined, claims: {}, forgeSignature: false, tokenStatus: 200 },
    secrets: [],
    keyFetches: 0,
    async rotate() {
      signing = await rsaKey(`kid-${++n + 1}`);
    },
    endpoint: () => ({
      authURL: `${state.browserURL}/auth/authorize`,
      tokenURL: `${state.url}/auth/token`,
      keysURL: `${state.url}/auth/keys`,
    }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const handler: http.RequestListener = async (req, res) => {
    const url = new URL(req.url!, 'http://x');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = new URLSearchParams(Buffer.concat(chunks).toString());
    const json = (status: number, value: unknown) =>
      void res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(value));
    if (url.pathname === '/auth/authorize') {
      const q = url.searchParams;
      const code = `code-${codes.size + 1}-${Math.random().toString(36).slice(2)}`;
      codes.set(code, {
        nonce: q.get('nonce') ?? undefined,
        redirectURI: q.get('redirect_uri')!,
        clientId: q.get('client_id')!,
      });
      const fields: Record<string, string> = { state: q.get('state') ?? '', code };
      if (state.script.user) fields.user = JSON.stringify(state.script.user);
      const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
      const inputs = Object.entries(fields)
        .map(([k, v]) => `<input type="hidden" name="${k}" value="${esc(v)}">`)
        .join('');
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      return void res.end(
        `<!doctype html><title>Apple stand-in</title><form method="post" action="${esc(q.get('redirect_uri')!)}">${inputs}<button id="continue">Continue</button></form>`,
      );
    }
    if (url.pathname === '/auth/keys') {
      state.keyFetches++;
      return json(200, { keys: [signing.jwk] });
    }
    if (url.pathname === '/auth/token') {
      const secret = body.get('client_secret') ?? '';
      const seen: ClientSecretSeen = { jwt: secret, header: {}, payload: {}, verified: false };
      try {
        const v = await jwtVerify(secret, teamPublicKey, {
          issuer: TEAM_ID,
          subject: CLIENT_ID,
          audience: APPLE_ISSUER,
          algorithms: ['ES256'],
        });
        Object.assign(seen, { header: v.protectedHeader, payload: v.payload, verified: true });
      } catch {}
      state.secrets.push(seen);
      if (state.script.tokenStatus !== 200) return json(state.script.tokenStatus, { error: 'invalid_client' });
      const grant = codes.get(body.get('code') ?? '');
      codes.delete(body.get('code') ?? '');
      if (
        !seen.verified ||
        body.get('client_id') !== CLIENT_ID ||
        !grant ||
        grant.redirectURI !== body.get('redirect_uri')
      )
        return json(400, { error: 'invalid_grant' });
      const now = Math.floor(Date.now() / 1000);
      const claims: Record<string, unknown> = {
        iss: APPLE_ISSUER,
        aud: CLIENT_ID,
        sub: state.script.sub,
        iat: now,
        exp: now + 600,
        nonce: grant.nonce,
        email: 'jane@privaterelay.appleid.com',
        email_verified: 'true',
        ...state.script.claims,
      };
      for (const [k, v] of Object.entries(claims)) if (v === undefined) delete claims[k];
      const key = state.script.forgeSignature ? stranger! : signing;
      const idToken = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: signing.jwk.kid! })
        .sign(key.privateKey);
      return json(200, {
        access_token: 'apple-access',
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: 'apple-refresh',
        id_token: idToken,
      });
    }
    res.writeHead(404).end();
  };

  const server = http.createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${port}`;
  state.browserURL = `http://${opts.browserHost ?? '127.0.0.1'}:${port}`;
  return state;
}

let shared: Promise<Array<{ privateKey: CryptoKey | KeyObject; jwk: JWK }>> | undefined;

async function rsaKey(kid: string): Promise<{ privateKey: CryptoKey | KeyObject; jwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}
