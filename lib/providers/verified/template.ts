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
export interface Template {
  render(data: TemplateData, html: boolean): string;
}

/** Parses `text`; an action other than the known fields throws a TypeError naming it. */
export function compileTemplate(text: unknown): Template {
  if (typeof text !== 'string' || text.trim() === '') throw new TypeError('template must be a non-empty string');
  for (const m of text.matchAll(ACTION)) {
    const field = /^\.(\w+)$/.exec(m[1])?.[1];
    if (!field || !FIELDS.has(field as keyof TemplateData)) {
      throw new TypeError(
        `template: unknown action "${m[0]}" (known: {{.User}}, {{.Address}}, {{.Token}}, {{.Site}}, {{.URL}})`,
      );
    }
  }
  return {
    render(data, html) {
      return text.replace(ACTION, (_all, action: string) => {
        const value = data[action.slice(1) as keyof TemplateData];
        return html ? escapeHTML(value) : value;
      });
    },
  };
}

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHTML(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
