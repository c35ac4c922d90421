/**
 * The confirmation message template. It keeps the original's Go-template field syntax
 * (`{{.User}}`, `{{.Address}}`, `{{.Token}}`, `{{.Site}}`) so existing templates carry over, but
 * only substitutes those fields: no logic, so a template cannot do anything surprising.
 */

/** Values a template can show. `URL` (an authkoa addition) is the ready confirmation link. */
export interface TemplateData {
  User: string;
  Address: string;
  Token: string;
  Site: string;
  URL: string;
}

const FIELDS = new Set<keyof TemplateData>(['User', 'Address', 'Token', 'Site', 'URL']);
const ACTION = /\{\{\s*([^}]*?)\s*\}\}/g;

/** The default message: who asked, for which site, and the token. */
export const DEFAULT_TEMPLATE = 'Confirmation for {{.User}} {{.Address}}, site {{.Site}}\n\nToken: {{.Token}}\n';

/** A template checked once at start-up; render() fills it. */
export interface Template<D = TemplateData> {
  render(data: D, html: boolean): string;
}

/** Parses `text`; an action other than the known fields throws a TypeError naming it. */
export function compileTemplate(text: unknown): Template {
  return compileFields(text, [...FIELDS], 'template');
}

/**
 * A template over the fields `fields` (`{{.Name}}` for `Name`), for a message with its own set (the password
 * kind's): a TypeError naming `option` for an empty text or an unknown action.
 */
export function compileFields<K extends string>(
  text: unknown,
  fields: readonly K[],
  option: string,
): Template<Record<K, string>> {
  if (typeof text !== 'string' || text.trim() === '') throw new TypeError(`${option} must be a non-empty string`);
  const known = new Set<string>(fields);
  for (const m of text.matchAll(ACTION)) {
    const field = /^\.(\w+)$/.exec(m[1])?.[1];
    if (!field || !known.has(field)) {
      const list = fields.map((f) => `{{.${f}}}`).join(', ');
      throw new TypeError(`${option}: unknown action "${m[0]}" (known: ${list})`);
    }
  }
  return {
    render(data, html) {
      return text.replace(ACTION, (_all, action: string) => {
        const value = data[action.slice(1) as K];
        return html ? escapeHTML(value) : value;
      });
    },
  };
}

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHTML(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
