/**
 * Errors of the plugin. Every message starts with the plugin's name and a colon
 * (`jquery.rest: ...`), and every error carries a stable `code` to branch on.
 */

/** The plugin's name, the prefix of every error message. */
export const PLUGIN = 'jquery.rest';

/** Stable codes of the errors the plugin throws. */
export type RestClientErrorCode =
  | 'invalid_id_count'
  | 'invalid_argument'
  | 'unknown_option'
  | 'invalid_option'
  | 'invalid_name'
  | 'invalid_method'
  | 'invalid_url'
  | 'name_taken'
  | 'no_jquery';

/** Thrown synchronously by the plugin; nothing has been sent when it is thrown. */
export class RestClientError extends Error {
  /** Stable code naming the kind of error. */
  readonly code: RestClientErrorCode;

  constructor(code: RestClientErrorCode, text: string) {
    super(`${PLUGIN}: ${text}`);
    this.name = 'RestClientError';
    this.code = code;
  }
}

/** A `$.type`-like name of a value's type, used in "Invalid argument" messages. */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Date) return 'date';
  if (value instanceof RegExp) return 'regexp';
  if (value instanceof Error) return 'error';
  return typeof value;
}

/** `Invalid number of ID arguments, required <min> or <max>, provided <count>`. */
export function idCountError(min: number, max: number, count: number): RestClientError {
  return new RestClientError(
    'invalid_id_count',
    `Invalid number of ID arguments, required ${min} or ${max}, provided ${count}`,
  );
}

/** `Invalid argument: <value> (<type>). Must be ...`. */
export function argumentError(value: unknown): RestClientError {
  let shown: string;
  try {
    shown = String(value);
  } catch {
    shown = Object.prototype.toString.call(value);
  }
  return new RestClientError(
    'invalid_argument',
    `Invalid argument: ${shown} (${typeName(value)}). ` +
      'Must be strings or ints (IDs) followed by one optional object and one optional query params object.',
  );
}
