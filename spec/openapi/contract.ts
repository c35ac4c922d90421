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

export function contractChecker(doc: Record<string, unknown>) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema(doc, 'doc');
  const pointer = (parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
  const paths = doc.paths as Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
  /** The document's path template a concrete path matches: itself, else one whose `{param}` segments take its segments. */
  const template = (path: string): string | undefined => {
    if (paths[path]) return path;
    const parts = path.split('/');
    return Object.keys(paths).find((t) => {
      const tp = t.split('/');
      return tp.length === parts.length && tp.every((seg, k) => seg === parts[k] || (/^\{[^}]+\}$/.test(seg) && parts[k] !== ''));
    });
  };
  return {
    template,
    /**
     * The `body` answered with `status` and media `type` (JSON by default) to `method` on the document's
     * `path`. JSON is checked against its schema; another media type only has to be one the document lists;
     * no body, only that the document gives it none.
     */
    check(method: string, path: string, status: number, body: unknown, type = body === undefined ? '' : 'application/json'): Checked {
      const op = paths[path]?.[method.toLowerCase()];
      if (!op) return { ok: false, errors: `no operation ${method} ${path} in the document` };
      const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => op.responses[k]);
      if (!key) return { ok: false, errors: `${method} ${path} does not answer ${status}` };
      const content = op.responses[key]!.content;
      if (type === '') return { ok: true, errors: '' };
      if (type !== 'application/json') {
        const listed = Object.keys(content ?? {}).some((m) => m === type || (m.endsWith('/*') && type.startsWith(m.slice(0, -1))));
        return { ok: listed, errors: listed ? '' : `${method} ${path} ${status}: ${type} is not an answer the document lists` };
      }
      if (!content?.['application/json']) return { ok: false, errors: `${method} ${path} ${status} has no JSON body in the document` };
      const validate = ajv.getSchema(`doc#/${pointer(['paths', path, method.toLowerCase(), 'responses', key, 'content', 'application/json', 'schema'])}`)!;
      const ok = validate(body) as boolean;
      return { ok, errors: ok ? '' : ajv.errorsText(validate.errors) };
    },
  };
}
