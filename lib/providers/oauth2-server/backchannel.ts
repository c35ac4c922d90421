import { addressPolicy } from '../../http/address-policy.js';
import { FetchError, safePost } from '../../http/safe-request.js';
import type { Logger } from '../../logger.js';
import { randomId } from '../../session/claims.js';
import type { OAuth2ServerClient } from './clients.js';
import type { IdTokenKeys } from './id-token.js';
import { Expiring } from './store.js';

/**
 * OpenID Connect Back-Channel Logout 1.0, the provider's side: which clients got an id_token in each
 * sign-in session (by its `sid`), and, when that session ends, a logout token POSTed to each of them that
 * registered a `backchannelLogoutURI`. The first try of each is made at once (the logout waits for them, in
 * parallel, each within its time limit); a failed one is tried again after 5 s, 30 s and 2 min by the
 * server's clock, then given up (logged). Nothing here throws: a receiver that is down never fails a logout.
 */

/** The `events` member that makes a JWT a logout token. */
export const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** A logout token is good for two minutes: a retry signs a new one. */
const TOKEN_LIFE_S = 120;
/** The waits before the second, third and fourth tries. */
export const BACKCHANNEL_RETRIES_MS: readonly number[] = [5_000, 30_000, 120_000];
const TIMEOUT_MS = 5_000;
/** A receiver's answer is read up to this much, and thrown away. */
const ANSWER_CAP = 16 * 1024;
/** Due retries are looked for at least this often (real time), so a clock moved by a test is noticed. */
const LOOK_MS = 1_000;

/** What the back channel works with: the registered clients, the id_token keys, where the server is. */
export interface BackChannelParts {
  clients: ReadonlyMap<string, OAuth2ServerClient>;
  keys: IdTokenKeys;
  /** The server's public URL: the tokens' `iss` (known once it listens). */
  issuer: () => string;
  /** How long a sign-in is remembered: its clients are kept as long. */
  sessionTTL: number;
  clock: () => number;
  logger: Logger;
}

/** The clients told when one sign-in session ends, and its user. */
interface SessionClients {
  sub: string;
  clients: string[];
}

/** One logout token to deliver: to whom, for which session, how many tries so far, when the next is due. */
interface Delivery {
  client: OAuth2ServerClient;
  sid: string;
  sub: string;
  tries: number;
  dueAt: number;
}

export class BackChannelLogout {
  private readonly sessions: Expiring<SessionClients>;
  private readonly queue: Delivery[] = [];
  private readonly allowed = addressPolicy(true);
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly p: BackChannelParts) {
    this.sessions = new Expiring(p.sessionTTL, p.clock);
  }

  /** An id_token for `clientId` was issued in the sign-in session `sid`: told when it ends, if it has an endpoint. */
  issued(sid: string | undefined, clientId: string, sub: string): void {
    if (sid === undefined || !this.p.clients.get(clientId)?.backchannelLogoutURI) return;
    const known = this.sessions.get(sid)?.clients ?? [];
    this.sessions.set(sid, { sub, clients: known.includes(clientId) ? known : [...known, clientId] });
  }

  /** The sign-in session `sid` ended: each of its clients is told; resolves once every first try is over. */
  async ended(sid: string | undefined): Promise<void> {
    const session = sid === undefined ? undefined : this.sessions.take(sid);
    if (!session || this.closed) return;
    const now = this.p.clock();
    await Promise.all(
      session.clients.map((id) => {
        const client = this.p.clients.get(id)!;
        return this.attempt({ client, sid: sid!, sub: session.sub, tries: 0, dueAt: now });
      }),
    );
  }

  /** Stops: the retries still waiting are dropped. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.queue.length = 0;
  }

  /** One try; a failure is queued for the next, or given up after the last. Never rejects. */
  private async attempt(d: Delivery): Promise<void> {
    d.tries++;
    let failure: string;
    try {
      const status = await this.send(d);
      if (status >= 200 && status < 300) return;
      failure = `status ${status}`;
    } catch (err) {
      failure = err instanceof FetchError ? err.reason : String((err as Error)?.message ?? err);
    }
    const delay = BACKCHANNEL_RETRIES_MS[d.tries - 1];
    const what = `oauth2 server: back-channel logout of client ${JSON.stringify(d.client.id)} failed (${failure})`;
    const fields = { provider: 'server', code: 'backchannel_logout_failed', userId: d.sub };
    if (delay === undefined || this.closed) {
      this.p.logger.error(`${what}; given up after ${d.tries} tries`, fields);
      return;
    }
    this.p.logger.warn(`${what}; trying again in ${delay / 1000} s`, fields);
    d.dueAt = this.p.clock() + delay;
    this.queue.push(d);
    this.arm();
  }

  /** POSTs a fresh logout token (form-encoded) to the client's endpoint; resolves to the answer's status. */
  private async send(d: Delivery): Promise<number> {
    const token = await logoutToken(this.p, d, this.p.clock());
    return safePost(
      d.client.backchannelLogoutURI!,
      new URLSearchParams({ logout_token: token }).toString(),
      { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'authkoa-backchannel-logout' },
      // The endpoints are the server's own registrations, often on a private network: any address is allowed.
      { timeoutMs: TIMEOUT_MS, maxBytes: ANSWER_CAP, allowed: this.allowed },
    );
  }

  /** Looks for due retries when the first is due, or within LOOK_MS. */
  private arm(): void {
    if (this.closed || this.timer || this.queue.length === 0) return;
    const next = Math.min(...this.queue.map((d) => d.dueAt));
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.runDue();
      },
      Math.max(0, Math.min(next - this.p.clock(), LOOK_MS)),
    );
    this.timer.unref();
  }

  private async runDue(): Promise<void> {
    const now = this.p.clock();
    const due = this.queue.filter((d) => d.dueAt <= now);
    for (const d of due) this.queue.splice(this.queue.indexOf(d), 1);
    await Promise.all(due.map((d) => this.attempt(d)));
    this.arm();
  }
}

/**
 * A logout token (Back-Channel Logout §2.4): iss, aud (the client), iat, exp, jti, sub, sid and the
 * back-channel event, no nonce; header `typ: logout+jwt`; signed as the client's id_tokens are.
 */
function logoutToken(p: BackChannelParts, d: Delivery, now: number): Promise<string> {
  const iat = Math.floor(now / 1000);
  const claims = {
    iss: p.issuer(),
    aud: d.client.id,
    iat,
    exp: iat + TOKEN_LIFE_S,
    jti: randomId(),
    sub: d.sub,
    sid: d.sid,
    events: { [BACKCHANNEL_EVENT]: {} },
  };
  return p.keys.sign(d.client.idTokenSignedResponseAlg, claims, 'logout+jwt');
}
