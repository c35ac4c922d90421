import type { AuthEvent } from '../events/types.js';
import { CAEP, CREDENTIAL_CHANGE, KEPT_SID, PERSONAL_TOKEN, SESSION_REVOKED } from '../verify/caep.js';

/**
 * What the transmitter sends for which event (docs/ssf.md#what-is-sent-when): the instance's events mapped to CAEP
 * 1.0 events, and each one's Security Event Token claims (RFC 8417 as SSF 1.0 profiles it: no `sub`, no `exp`, the
 * subject in `sub_id`, one event in `events`).
 */

export { CAEP, CREDENTIAL_CHANGE, KEPT_SID, PERSONAL_TOKEN, SESSION_REVOKED };

/** The events every stream supports, requests and is delivered. */
export const EVENTS_SUPPORTED: readonly string[] = [SESSION_REVOKED, CREDENTIAL_CHANGE];

/** One thing a receiver is told: its CAEP event, its subject, when, and the event's own claims. */
export interface Signal {
  /** The CAEP event type's last segment. */
  event: 'session-revoked' | 'credential-change';
  userId: string;
  /** The session; the subject is then that session of the user, else the user (every session). */
  sid?: string;
  /** ms since the epoch. */
  time: number;
  /** The event's own claims (credential-change: `credential_type`, `change_type`), `initiating_entity`. */
  claims: Record<string, string>;
}

type Change = { credential_type: string; change_type: 'create' | 'revoke' | 'update' | 'delete' };

const MFA_CHANGES: Record<string, Change | undefined> = {
  totp_enabled: { credential_type: 'app', change_type: 'create' },
  totp_disabled: { credential_type: 'app', change_type: 'delete' },
};

/** The signal an event of the instance is, or undefined for one that is neither a session's end nor a credential's. */
export function signalOf(e: AuthEvent): Signal | undefined {
  const base = { time: e.time };
  switch (e.type) {
    case 'logout':
      return { ...base, event: 'session-revoked', userId: e.userId, sid: e.sid, claims: { initiating_entity: 'user' } };
    case 'session_revoked':
      // "Everyone else": the session kept is named (an extension claim), so a receiver refuses what the app refuses.
      return {
        ...base,
        event: 'session-revoked',
        userId: e.userId,
        ...(e.sid && { sid: e.sid }),
        claims: !e.sid && e.keptSid ? { [KEPT_SID]: e.keptSid } : {},
      };
    case 'password_changed':
      return credential(e.time, e.userId, { credential_type: 'password', change_type: 'update' }, e.by);
    case 'password_reset':
      return credential(e.time, e.userId, { credential_type: 'password', change_type: 'update' }, 'user');
    case 'account_deleted':
      return credential(e.time, e.userId, { credential_type: 'password', change_type: 'delete' }, e.by);
    case 'mfa_changed':
      return credential(e.time, e.userId, MFA_CHANGES[e.change], 'user');
    case 'passkey_added':
      return credential(e.time, e.userId, { credential_type: 'fido2-platform', change_type: 'create' }, 'user');
    case 'passkey_removed':
      return credential(e.time, e.userId, { credential_type: 'fido2-platform', change_type: 'delete' }, 'user');
    case 'token_revoked':
      return credential(e.time, e.userId, { credential_type: PERSONAL_TOKEN, change_type: 'revoke' }, by(e.by));
    case 'grant_revoked':
      // A grant of the authorization server: its access tokens carry the family as `sid`, so its end is that
      // session's end at every receiver.
      return {
        ...base,
        event: 'session-revoked',
        userId: e.userId,
        sid: e.sid,
        claims: { initiating_entity: e.reason === 'revoked' ? 'user' : 'system' },
      };
    default:
      return undefined;
  }
}

function by(who: string): string {
  return who === 'user' ? 'user' : who === 'admin' ? 'admin' : 'system';
}

/** A credential change of a known user; an operator's change names no session user (its sessions' end is sent). */
function credential(time: number, userId: string | undefined, change: Change | undefined, who: string) {
  if (userId === undefined || change === undefined) return undefined;
  return { time, event: 'credential-change' as const, userId, claims: { ...change, initiating_entity: by(who) } };
}

/**
 * The claims of the SET telling `signal` to the receiver `aud`: `sub_id` in SSF's complex format (RFC 9493 opaque
 * members: the session and its user, or the user alone), `txn` shared by every receiver's SET of one event.
 */
export function setClaims(
  signal: Signal,
  p: { iss: string; aud: string; jti: string; txn: string },
): Record<string, unknown> {
  const seconds = Math.floor(signal.time / 1000);
  const user = { format: 'opaque', id: signal.userId };
  const subject = signal.sid ? { session: { format: 'opaque', id: signal.sid }, user } : { user };
  return {
    iss: p.iss,
    jti: p.jti,
    iat: seconds,
    aud: p.aud,
    txn: p.txn,
    sub_id: { format: 'complex', ...subject },
    // To the millisecond (a JSON number may have a fraction): a token issued in the same second, before the event,
    // is told from one issued after it.
    events: { [CAEP + signal.event]: { ...signal.claims, event_timestamp: signal.time / 1000 } },
  };
}
