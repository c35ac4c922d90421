import { redirectDoc, SESSION_SECURITY } from '../providers/core/route-docs.js';
import { ref, type Schema, type Security } from './components.js';

/**
 * The pieces the document's operations are built of (lib/openapi/paths.ts, the features' openapi.ts): answers,
 * the common error answers, and the security requirements. Every operation says its security: `[]` for
 * a public route, the ways a session is carried for one that needs it, with `{}` among them where a
 * session is read but not needed.
 */

export type Operation = Record<string, unknown>;
export type PathItem = Record<string, Operation>;
export type Responses = Record<string, unknown>;
/** An operation's summary (a line) and description (what it does, for whom, what it answers). */
export type Text = readonly [summary: string, description: string];

export const json = (schema: Schema, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
export const redirect = redirectDoc('a redirect (Location)');
export const empty = (description: string) => ({ description });
export const STRING = { type: 'string' };

/** The error answers any route may give, beside its own. */
export const COMMON_ERRORS = {
  '4XX': json(ref('Error'), 'refused: the body says why (`code`)'),
  '5XX': json(ref('Error'), 'a backend is away or failed (`code`)'),
};

export const PUBLIC: Security = [];
export const SESSION: Security = [...SESSION_SECURITY];
/** A session is read when there is one (a logout ends it), but none is needed. */
export const SESSION_IF_ANY: Security = [{}, ...SESSION];

/** An operation: its text, tag and security, its own answers and the common errors. */
export function op(text: Text, tag: string, security: Security, responses: Responses, more: Operation = {}): Operation {
  const [summary, description] = text;
  return { summary, description, tags: [tag], security, ...more, responses: { ...responses, ...COMMON_ERRORS } };
}
