import type { ConnectionOptions } from 'node:tls';
import type { Transporter } from 'nodemailer';
import { parseDuration, type Duration } from '../../util/duration.js';
import { loadWithPackage } from '../../util/optional.js';
import type { Sender } from './sender.js';

/** Options of emailSender(): an SMTP submission account. */
export interface EmailSenderOptions {
  /** SMTP server host name. */
  host: string;
  /** SMTP port. Default 465 (implicit TLS); 587 with `startTLS`. */
  port?: number;
  /** SMTP AUTH user; no AUTH when empty. */
  smtpUserName?: string;
  /** SMTP AUTH password. */
  smtpPassword?: string;
  /** Upgrade a plain connection with STARTTLS and fail if the server cannot (not with port 465). */
  startTLS?: boolean;
  /** Implicit TLS from the first byte. Default true on port 465 only. */
  secure?: boolean;
  /** Sender address, e.g. `"My App" <login@example.com>`. */
  from: string;
  /** Subject line. Default `Login confirmation`. */
  subject?: string;
  /** `text/plain` (default) or `text/html`; with HTML the template's values are escaped. */
  contentType?: 'text/plain' | 'text/html';
  /** `utf-8` (default), `iso-8859-1` or `us-ascii`; text the charset cannot carry goes out as UTF-8. */
  charset?: string;
  /** Limit for connecting, the greeting and each wait on the socket. Default 10 seconds. */
  timeout?: Duration;
  /** Extra TLS options, e.g. `{ ca }` for a private CA or `{ servername }`. */
  tls?: ConnectionOptions;
}

/** An e-mail Sender; `validateAddress` is what makes the verified provider insist on an e-mail shape. */
export interface EmailSender extends Sender {
  readonly contentType: 'text/plain' | 'text/html';
  validateAddress(address: string): boolean;
  /** Loads nodemailer (no connection is made); rejects naming the package when it is not installed. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

const CHARSETS: Record<string, BufferEncoding> = {
  'utf-8': 'utf8',
  utf8: 'utf8',
  'iso-8859-1': 'latin1',
  latin1: 'latin1',
  'us-ascii': 'ascii',
  ascii: 'ascii',
};
// Reachable only for the encodings above: latin1 carries U+0000–U+00FF, ascii the lower half.
const FITS: Partial<Record<BufferEncoding, RegExp>> = { latin1: /^[\u0000-\u00ff]*$/, ascii: /^[\u0000-\u007f]*$/ };

/**
 * An address we can hand to SMTP as one recipient and nothing else: dot-atom local part (no quoted
 * strings, no comments, no commas or angle brackets that an address parser would split on) and a
 * dotted domain of letters, digits and hyphens (Unicode letters allowed for IDN).
 */
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^(?!-)[\p{L}\p{N}-]{1,63}(?<!-)$/u;

/** True for a plain `local@domain.tld` address of sane length. */
export function isEmailAddress(address: string): boolean {
  if (typeof address !== 'string' || address.length > 254) return false;
  const at = address.lastIndexOf('@');
  if (at < 1) return false;
  const local = address.slice(0, at);
  const labels = address.slice(at + 1).split('.');
  return local.length <= 64 && LOCAL.test(local) && labels.length >= 2 && labels.every((l) => LABEL.test(l));
}

/** emailSender's options, checked, with their defaults filled in. */
interface EmailConfig {
  host: string;
  port: number;
  /** Implicit TLS from the first byte. */
  secure: boolean;
  /** STARTTLS required on a plain connection. */
  startTLS: boolean;
  auth?: { user: string; pass: string };
  from: string;
  subject: string;
  contentType: 'text/plain' | 'text/html';
  /** The charset as configured (lower case), and the Buffer encoding that writes it. */
  charset: string;
  encoding: BufferEncoding;
  timeoutMs: number;
  tls?: ConnectionOptions;
}

/**
 * Makes a Sender that submits the confirmation message over SMTP with nodemailer. Options are
 * checked here (TypeError naming the option); the connection is opened per message, so a dead
 * server costs one failed login request (502) and nothing else.
 */
export function emailSender(opts: EmailSenderOptions): EmailSender {
  const config = parseEmailOptions(opts);
  const transport = smtpTransport(config);
  return {
    contentType: config.contentType,
    validateAddress: isEmailAddress,
    async ready() {
      await transport.load().catch((err: unknown) => {
        transport.forget(); // installed later, the next call finds it
        throw err;
      });
    },
    async send(address, text, about) {
      if (!isEmailAddress(address)) throw new TypeError('emailSender: not an e-mail address');
      const t = await transport.load();
      await t.sendMail(message(config, address, text, about?.subject));
    },
    close: () => transport.close(),
  };
}

/** Checks emailSender's options (a TypeError `emailSender: …` naming the option) and fills in their defaults. */
function parseEmailOptions(opts: EmailSenderOptions): EmailConfig {
  const fail = (msg: string): never => {
    throw new TypeError(`emailSender: ${msg}`);
  };
  if (!opts || typeof opts !== 'object') fail('requires an options object');
  if (typeof opts.host !== 'string' || !opts.host) fail('host is required');
  if (opts.startTLS !== undefined && typeof opts.startTLS !== 'boolean') fail('startTLS must be a boolean');
  const startTLS = opts.startTLS === true;
  const port = opts.port ?? (startTLS ? 587 : 465);
  if (!Number.isInteger(port) || port < 1 || port > 65535) fail('port must be an integer from 1 to 65535');
  const secure = opts.secure ?? port === 465;
  if (secure && startTLS) fail('startTLS and implicit TLS (secure, port 465) exclude each other');
  if (typeof opts.from !== 'string' || !opts.from.trim() || /[\r\n]/.test(opts.from))
    fail('from must be a sender address on one line');
  const subject = opts.subject ?? 'Login confirmation';
  if (typeof subject !== 'string' || /[\r\n]/.test(subject)) fail('subject must be a string on one line');
  const contentType = opts.contentType ?? 'text/plain';
  if (contentType !== 'text/plain' && contentType !== 'text/html')
    fail("contentType must be 'text/plain' or 'text/html'");
  const charset = (opts.charset ?? 'utf-8').toLowerCase();
  const encoding = CHARSETS[charset] ?? fail('charset must be utf-8, iso-8859-1 or us-ascii');
  let timeoutMs = 10_000;
  try {
    if (opts.timeout !== undefined) timeoutMs = parseDuration(opts.timeout, 'timeout');
  } catch (err) {
    fail((err as Error).message);
  }
  if (opts.smtpUserName !== undefined && typeof opts.smtpUserName !== 'string') fail('smtpUserName must be a string');
  if (opts.smtpPassword !== undefined && typeof opts.smtpPassword !== 'string') fail('smtpPassword must be a string');
  const auth = opts.smtpUserName ? { user: opts.smtpUserName, pass: opts.smtpPassword ?? '' } : undefined;
  return {
    host: opts.host,
    port,
    secure,
    startTLS,
    auth,
    from: opts.from,
    subject,
    contentType,
    charset,
    encoding,
    timeoutMs,
    tls: opts.tls,
  };
}

/**
 * The nodemailer transport, made on first use: nodemailer is loaded at ready() or on the first message,
 * so applications without e-mail never load it.
 */
function smtpTransport(config: EmailConfig): { load(): Promise<Transporter>; forget(): void; close(): Promise<void> } {
  let transport: Promise<Transporter> | undefined;
  const { timeoutMs } = config;
  return {
    load() {
      transport ??= loadWithPackage('nodemailer', 'emailSender', () => import('nodemailer')).then((m) =>
        m.default.createTransport({
          host: config.host,
          port: config.port,
          secure: config.secure,
          requireTLS: config.startTLS,
          auth: config.auth,
          tls: config.tls,
          connectionTimeout: timeoutMs,
          greetingTimeout: timeoutMs,
          socketTimeout: timeoutMs,
          dnsTimeout: timeoutMs,
          logger: false,
          debug: false,
        }),
      );
      return transport;
    },
    forget() {
      transport = undefined;
    },
    async close() {
      const t = transport;
      transport = undefined;
      if (t) (await t.catch(() => undefined))?.close();
    },
  };
}

/** The message to `address`, in the configured charset when the text fits it, else in UTF-8. */
function message(config: EmailConfig, address: string, text: string, subject: string | undefined) {
  const { charset, encoding } = config;
  const fits = encoding === 'utf8' || FITS[encoding]!.test(text);
  return {
    from: config.from,
    to: address,
    // A subject the message brings (an account's reset, its confirmation) on one line, else the configured one.
    subject: subject && !/[\r\n]/.test(subject) ? subject : config.subject,
    // One body part with the configured type and charset; nodemailer's text/html fields force UTF-8.
    alternatives: [
      {
        contentType: `${config.contentType}; charset=${fits ? charset : 'utf-8'}`,
        content: Buffer.from(text, fits ? encoding : 'utf8'),
      },
    ],
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}
