/**
 * How the verified provider hands a confirmation message to the outside world. Anything that can
 * deliver text to an address works: e-mail (emailSender), a chat bot, an SMS gateway, a test stub.
 */

/** Delivers one rendered confirmation message. */
export interface Sender {
  /**
   * Sends `text` to `address`; a rejection becomes a 502 `sender_failed` for the request. `about` says what the
   * message is, for a sender with a subject line: the password kind sends several kinds of message.
   */
  send(address: string, text: string, about?: MessageInfo): void | Promise<void>;
  /** MIME type of the text; an HTML type makes the template escape the values it inserts. Default text/plain. */
  readonly contentType?: string;
  /** False refuses an address before anything is sent (400); e.g. the email sender wants an email shape. */
  validateAddress?(address: string): boolean;
  /** Releases connections when the service closes. */
  close?(): Promise<void>;
  /**
   * Loads what sending needs (a package, a template); the provider awaits it at start-up, so a missing one fails there.
   */
  ready?(): Promise<void>;
}

/** What a message is about, beside its text. */
export interface MessageInfo {
  /** One line: the e-mail subject. */
  subject?: string;
  /** Which message it is, for a sender that picks its own wording: `confirm`, `reset`, `taken`, … */
  kind?: string;
}

/** The function form of a Sender: plain text, every address accepted. */
export type SenderFunc = (address: string, text: string, about?: MessageInfo) => void | Promise<void>;

/** Normalises the `sender` option; throws a TypeError for anything else. */
export function toSender(input: unknown): Sender {
  if (typeof input === 'function') return { send: input as SenderFunc };
  if (input && typeof input === 'object' && typeof (input as Sender).send === 'function') {
    const s = input as Sender;
    if (s.validateAddress !== undefined && typeof s.validateAddress !== 'function')
      throw new TypeError('sender.validateAddress must be a function');
    if (s.contentType !== undefined && typeof s.contentType !== 'string')
      throw new TypeError('sender.contentType must be a string');
    return s;
  }
  throw new TypeError('sender must be a function (address, text) or an object with send(address, text)');
}

/** True when a content type is HTML, so inserted values need escaping. */
export function isHTML(contentType: string | undefined): boolean {
  return /^\s*(text\/html|application\/xhtml\+xml)\b/i.test(contentType ?? '');
}

/**
 * A loggable reason for a failed send that carries no secrets and no server text: only the
 * machine-readable fields nodemailer and Node set (`code`, `responseCode`, `command`).
 */
export function describeSendError(err: unknown): string {
  if (!err || typeof err !== 'object') return 'unknown error';
  const e = err as { code?: unknown; responseCode?: unknown; command?: unknown; name?: unknown };
  const parts: string[] = [];
  if (typeof e.code === 'string' && /^[A-Z0-9_]{1,32}$/.test(e.code)) parts.push(e.code);
  if (typeof e.responseCode === 'number') parts.push(`smtp ${e.responseCode}`);
  if (typeof e.command === 'string' && /^[A-Z ]{1,16}$/.test(e.command)) parts.push(`during ${e.command}`);
  if (parts.length === 0 && typeof e.name === 'string' && /^\w{1,40}$/.test(e.name)) parts.push(e.name);
  return parts.join(', ') || 'unknown error';
}
