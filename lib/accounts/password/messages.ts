import { compileFields, type Template } from '../../providers/verified/template.js';

/**
 * The password kind's messages: what each says by default, and the application's own wording (`templates`).
 * Each is a subject and a text over four fields; no message carries the password, and only the message whose
 * purpose needs it carries a link.
 */

/** The fields every message template may use; `passwordChanged` has `{{.Identities}}` besides. */
const FIELDS = ['URL', 'Address', 'Name', 'Site'] as const;
const NOTICE_FIELDS = [...FIELDS, 'Identities'] as const;
type Field = (typeof NOTICE_FIELDS)[number];
export type MessageData = Record<Field, string>;

/** The messages, by what they are for. */
export const MESSAGE_KINDS = ['confirm', 'taken', 'reset', 'emailChange', 'emailNotice', 'passwordChanged'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

/** One message's wording; a missing part keeps its default. */
export interface MessageTemplate {
  subject?: string;
  text?: string;
}

/**
 * The `templates` option: `confirm` (the sign-up link), `taken` (a sign-up or new address that has an account
 * already, to its owner), `reset` (the reset link), `emailChange` (the link to a new address), `emailNotice`
 * (to the old address when a change is asked for), `passwordChanged` (to the owner after a reset or a new
 * password: the identities linked to the account, and where to review them).
 */
export type MessageTemplates = Partial<Record<MessageKind, MessageTemplate>>;

const DEFAULTS: Record<MessageKind, Required<MessageTemplate>> = {
  confirm: {
    subject: 'Confirm your address',
    text: [
      'Welcome to {{.Site}}.\n',
      '\n',
      'To confirm your address and log in, open this link:\n',
      '{{.URL}}\n',
      '\n',
      'If you did not sign up, ignore this message.\n',
    ].join(''),
  },
  taken: {
    subject: 'Your account',
    text: [
      'Someone asked to sign up at {{.Site}} with {{.Address}}, which has an account already.\n',
      '\n',
      'If it was you, log in, or reset your password at {{.URL}}.\n',
      'If it was not, ignore this message: nothing has changed.\n',
    ].join(''),
  },
  reset: {
    subject: 'Reset your password',
    text: [
      'To choose a new password for {{.Address}} at {{.Site}}, open this link:\n',
      '{{.URL}}\n',
      '\n',
      'If you did not ask for it, ignore this message: your password has not changed.\n',
    ].join(''),
  },
  emailChange: {
    subject: 'Confirm your new address',
    text: [
      'To use {{.Address}} for your account at {{.Site}}, open this link:\n',
      '{{.URL}}\n',
      '\n',
      'If you did not ask for it, ignore this message.\n',
    ].join(''),
  },
  emailNotice: {
    subject: 'Your address is being changed',
    text: [
      'Someone logged in to your account at {{.Site}} asked to use another address for it.\n',
      'The change happens only when the new address is confirmed.\n',
      '\n',
      'If it was not you, change your password now at {{.URL}}.\n',
    ].join(''),
  },
  passwordChanged: {
    subject: 'Your password was changed',
    text: [
      'The password of your account {{.Address}} at {{.Site}} was changed.\n',
      '\n',
      '{{.Identities}}\n',
      '\n',
      'Whoever links another login to an account can log in as it without the password. If a login listed is not\n',
      'yours, or you did not change the password, review them now at {{.URL}}\n',
    ].join(''),
  },
};

/** A message ready to send: its subject and its text for the data. */
export interface Message {
  subject: string;
  text: Template<MessageData>;
}

export type Messages = Readonly<Record<MessageKind, Message>>;

/** Checks `templates` (a TypeError naming `templates.<kind>.<part>`) and compiles every message. */
export function compileMessages(input: MessageTemplates | undefined): Messages {
  if (input !== undefined && (typeof input !== 'object' || input === null))
    throw new TypeError(`templates must be an object of ${MESSAGE_KINDS.join(', ')}`);
  for (const key of Object.keys(input ?? {}))
    if (!(MESSAGE_KINDS as readonly string[]).includes(key))
      throw new TypeError(`templates.${key} is not a message (known: ${MESSAGE_KINDS.join(', ')})`);
  const out = {} as Record<MessageKind, Message>;
  for (const kind of MESSAGE_KINDS) {
    const own = input?.[kind] ?? {};
    const subject = own.subject ?? DEFAULTS[kind].subject;
    if (typeof subject !== 'string' || subject === '' || /[\r\n]/.test(subject))
      throw new TypeError(`templates.${kind}.subject must be a string on one line`);
    const fields = kind === 'passwordChanged' ? NOTICE_FIELDS : FIELDS;
    out[kind] = { subject, text: compileFields(own.text ?? DEFAULTS[kind].text, fields, `templates.${kind}.text`) };
  }
  return out;
}
