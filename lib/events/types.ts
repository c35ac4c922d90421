/**
 * The events an authKoa instance reports (`auth.on(type, listener)`), one type per thing that happens.
 * What they never carry: a password, a token or its `jti` (it doubles as the XSRF value), a code, a
 * secret. Sessions are named by their `sid`, users by their id. docs/events.md lists every field.
 */

/** Fields every event has. */
export interface AuthEventBase {
  /** When it happened, in ms since the epoch, by the instance's clock. */
  time: number;
}

/** Where a request came from, as the app sees it (`ctx.ip`, so behind a proxy only with `app.proxy`). */
export interface ClientFields {
  /** The client address (`ctx.ip`). */
  ip: string;
  /** The User-Agent header as sent, cut to 256 characters; empty when there was none. */
  userAgent: string;
}

/** A session began: a login finished (after its second step, when there is one). */
export interface LoginEvent extends AuthEventBase, ClientFields {
  type: 'login';
  provider: string;
  /** The provider's kind (`oauth2`, `direct`, `verified`, `passkey`, …). */
  kind: string;
  /** How the user proved who they are (`pwd`, `fed`, `hwk`, `otp`, `mfa`, …), as the session's `amr` claim. */
  amr: readonly string[];
  userId: string;
  sid: string;
}

/** A login was refused. */
export interface LoginFailedEvent extends AuthEventBase, ClientFields {
  type: 'login_failed';
  provider: string;
  kind: string;
  /** The error code the client was answered with (`bad_credentials`, `too_many_attempts`, …). */
  reason: string;
  /** The HTTP status answered. */
  status: number;
  /** The user name as typed, when the login took one (never the password). */
  userName?: string;
}

/** Failed attempts reached a limit: a user name, a client, or the pair, is locked out. */
export interface LockoutEvent extends AuthEventBase {
  type: 'lockout';
  /** Whose attempts were counted: the provider's name, `basic`, `mfa`. */
  scope: string;
  /** What is locked out: `user:<name>`, `ip:<address>` or `pair:<name>@<address>`. */
  key: string;
  /** When the lock-out ends, ms since the epoch. */
  until: number;
}

/** A session ended by its user (`/auth/logout`, a provider's logout). */
export interface LogoutEvent extends AuthEventBase {
  type: 'logout';
  userId: string;
  provider: string;
  sid: string;
}

/** A session's token was renewed. */
export interface RefreshEvent extends AuthEventBase {
  type: 'refresh';
  userId: string;
  provider: string;
  sid: string;
}

/** Sessions were ended from elsewhere: from the device list, by the app or an operator, or after a factor changed. */
export interface SessionRevokedEvent extends AuthEventBase {
  type: 'session_revoked';
  userId: string;
  /** The session ended; absent when every session of the user ended (but `keptSid`, when one was kept). */
  sid?: string;
  /** The session that was kept when the others ended. */
  keptSid?: string;
}

/** A passkey was registered. */
export interface PasskeyAddedEvent extends AuthEventBase {
  type: 'passkey_added';
  userId: string;
  provider: string;
  /** The session that registered it. */
  sid?: string;
}

/** A passkey was removed by its user. */
export interface PasskeyRemovedEvent extends AuthEventBase {
  type: 'passkey_removed';
  userId: string;
  provider: string;
  sid?: string;
}

/**
 * Every event, by its type: authkoa's core ones here; a feature adds its own by declaration merging
 * (the second factor's in lib/mfa/events.ts, an application's feature in its own module: docs/features.md).
 */
export interface AuthEventMap {
  login: LoginEvent;
  login_failed: LoginFailedEvent;
  lockout: LockoutEvent;
  logout: LogoutEvent;
  refresh: RefreshEvent;
  session_revoked: SessionRevokedEvent;
  passkey_added: PasskeyAddedEvent;
  passkey_removed: PasskeyRemovedEvent;
}

export type AuthEventType = keyof AuthEventMap;
export type AuthEvent = AuthEventMap[AuthEventType];

/** A listener of one type; what it returns is ignored, a rejection is reported like a throw. */
export type AuthEventListener<T extends AuthEventType> = (event: AuthEventMap[T]) => unknown;

/** A listener of every type (`auth.on('*', listener)`): the event's `type` says which it is. */
export type AnyAuthEventListener = (event: AuthEvent) => unknown;

/**
 * The core types in the order docs/events.md lists them; a configured feature's (`mfa_changed`, …) come
 * from its `events`, and the instance's bus takes both. Every type one instance can emit, the features' too:
 * `auth.eventTypes`.
 */
export const AUTH_EVENT_TYPES: readonly AuthEventType[] = [
  'login',
  'login_failed',
  'lockout',
  'logout',
  'refresh',
  'session_revoked',
  'passkey_added',
  'passkey_removed',
];
