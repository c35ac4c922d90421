/**
 * Checks answers against an OpenAPI document: the schema of the operation's response for the answer's
 * status (its own, else `4XX`/`5XX`, else `default`), compiled by Ajv for JSON Schema 2020-12 (OpenAPI
 * 3.1's dialect) with the whole document loaded, so `$ref`s resolve as they do for any client.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export interface Checked {
  ok: boolean;
  errors: string;
}

type Operation = { responses: Record<string, { content?: Record<string, unknown> }> };

export function contractChecker(doc: Record<string, unknown>) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema(doc, 'doc');
  const pointer = (parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  /** The document's path template a concrete path matches: itself, else one whose `{param}` segments take its segments. */
  const template = (path: string): string | undefined => {
    if (paths[path]) return path;
    const parts = path.split('/');
    return Object.keys(paths).find((t) => {
      const tp = t.split('/');
      return (
        tp.length === parts.length &&
        tp.every((seg, k) => seg === parts[k] || (/^\{[^}]+\}$/.test(seg) && parts[k] !== ''))
      );
    });
  };
  /** The response key that describes `status`: its own, else its class (`4XX`), else `default`. */
  const responseKey = (op: Operation, status: number) =>
    [String(status), `${String(status)[0]}XX`, 'default'].find((k) => op.responses[k]);
  /** `body` against the schema at `parts` in the document (none there: anything). */
  const validated = (parts: string[], body: unknown): Checked => {
    const validate = ajv.getSchema(`doc#/${pointer(parts)}`);
    if (!validate) return { ok: true, errors: '' };
    const ok = validate(body) as boolean;
    return { ok, errors: ok ? '' : ajv.errorsText(validate.errors) };
  };
  const errorBody = ajv.getSchema('doc#/components/schemas/Error')!;

  /**
   * The `body` answered with `status` and media `type` (JSON by default) to `method` on the document's
   * `path`. JSON is checked against its schema, a text body (a page, an empty body) against the schema
   * of its media type; a buffer or stream only has to be of a type the document lists; no body, only
   * that the document gives that answer none.
   */
  const check = (
    method: string,
    path: string,
    status: number,
    body: unknown,
    type = body === undefined ? '' : 'application/json',
  ): Checked => {
    const op = paths[path]?.[method.toLowerCase()];
    if (!op) return { ok: false, errors: `no operation ${method} ${path} in the document` };
    const key = responseKey(op, status);
    if (!key) return { ok: false, errors: `${method} ${path} does not answer ${status}` };
    const content = Object.keys(op.responses[key]!.content ?? {});
    const at = (media: string) => ['paths', path, method.toLowerCase(), 'responses', key, 'content', media, 'schema'];
    if (type === '') {
      const ok = content.length === 0;
      return {
        ok,
        errors: ok ? '' : `${method} ${path} ${status} answered no body where the document lists ${content.join(', ')}`,
      };
    }
    const listed = content.find((m) => m === type || (m.endsWith('/*') && type.startsWith(m.slice(0, -1))));
    if (!listed)
      return { ok: false, errors: `${method} ${path} ${status}: ${type} is not an answer the document lists` };
    if (type !== 'application/json' && typeof body !== 'string') return { ok: true, errors: '' };
    return validated(at(listed), body);
  };

  /**
   * An answer as a server sent it, to a concrete `path`. HEAD is GET without the body (RFC 9110 §9.3.2;
   * Koa answers it from the GET route), so it is checked for GET's statuses and no more. A method or
   * path the document does not have is no route of it: the only answer it may get is a refusal (4xx)
   * with the Error body, as the router writes it (400 for an unknown provider, 404 for an unknown
   * action, 405 for another method, 403 for a cross-site POST it stopped first).
   */
  const checkAnswer = (method: string, path: string, status: number, body: unknown, type: string): Checked => {
    const at = template(path);
    const head = method === 'HEAD' && at !== undefined && !paths[at]!.head && paths[at]!.get !== undefined;
    if (at === undefined || (!head && !paths[at]![method.toLowerCase()])) {
      if (status >= 400 && status < 500 && type === 'application/json') {
        const ok = errorBody(body) as boolean;
        return { ok, errors: ok ? '' : ajv.errorsText(errorBody.errors) };
      }
      return {
        ok: false,
        errors:
          at === undefined ? `no path in the document matches ${path}` : `no operation ${method} ${at} in the document`,
      };
    }
    if (!head) return check(method, at, status, body, type);
    const ok = responseKey(paths[at]!.get!, status) !== undefined;
    return { ok, errors: ok ? '' : `HEAD (as GET) ${at} does not answer ${status}` };
  };

  return { template, check, checkAnswer };
}
