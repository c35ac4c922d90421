import { AUTH_EVENT_TYPES, type AuthEvent, type AuthKoa } from '../lib/index.js';

/** How many events the demo keeps: enough for the page to show what just happened, bounded in memory. */
export const RECENT_EVENTS = 20;

/**
 * The demo's view of the event stream (auth.on): the last RECENT_EVENTS events of every type, kept in
 * memory for the page's "Recent auth events", and a terminal line for each login, refusal, logout and
 * lock-out, the lines `npm start` prints.
 */
export class RecentEvents {
  /** Newest first, in the order the instance told them (events of one millisecond keep that order). */
  readonly #events: AuthEvent[] = [];
  readonly #listener = (event: AuthEvent): void => this.#add(event);

  constructor(
    private readonly auth: AuthKoa,
    private readonly log: (line: string) => void,
  ) {
    for (const type of AUTH_EVENT_TYPES) auth.on(type, this.#listener);
  }

  /**
   * What one user may see: the events that name them, and the refused logins and lock-outs, which name
   * no user id (a refusal's typed name is not an account yet). Another user's events stay hidden.
   */
  visibleTo(userId: string): AuthEvent[] {
    return this.#events.filter(
      (e) => e.type === 'login_failed' || e.type === 'lockout' || ('userId' in e && e.userId === userId),
    );
  }

  close(): void {
    for (const type of AUTH_EVENT_TYPES) this.auth.off(type, this.#listener);
  }

  #add(event: AuthEvent): void {
    this.#events.unshift(event);
    this.#events.length = Math.min(this.#events.length, RECENT_EVENTS);
    const line = logLine(event);
    if (line !== undefined) this.log(line);
  }
}

/**
 * The terminal line of an event worth a line, e.g. `event: login <user id> via local (pwd) from 127.0.0.1`.
 * A typed user name is quoted, and control characters anywhere are escaped: a name typed with a newline
 * or a terminal escape sequence must not forge a line or drive the operator's terminal.
 */
export function logLine(event: AuthEvent): string | undefined {
  let line: string;
  switch (event.type) {
    case 'login':
      line = `login ${event.userId} via ${event.provider} (${event.amr.join('+')}) from ${event.ip}`;
      break;
    case 'login_failed':
      line = `login_failed ${event.userName === undefined ? '(no user name)' : JSON.stringify(event.userName)} via ${event.provider}: ${event.reason} (${event.status}) from ${event.ip}`;
      break;
    case 'logout':
      line = `logout ${event.userId} via ${event.provider}`;
      break;
    case 'lockout':
      line = `lockout ${event.key} (${event.scope}) until ${new Date(event.until).toISOString()}`;
      break;
    default:
      return undefined;
  }
  return `event: ${line}`.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
