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
  return {
    /** The JSON `body` answered with `status` to `method` on the document's `path` (a template such as `/auth/sessions/{sid}`). */
    check(method: string, path: string, status: number, body: unknown): Checked {
      const op = paths[path]?.[method.toLowerCase()];
      if (!op) return { ok: false, errors: `no operation ${method} ${path} in the document` };
      const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => op.responses[k]);
      if (!key) return { ok: false, errors: `${method} ${path} does not answer ${status}` };
      if (!op.responses[key]!.content?.['application/json']) return { ok: body === undefined, errors: `${method} ${path} ${status} has no JSON body in the document` };
      const validate = ajv.getSchema(`doc#/${pointer(['paths', path, method.toLowerCase(), 'responses', key, 'content', 'application/json', 'schema'])}`)!;
      const ok = validate(body) as boolean;
      return { ok, errors: ok ? '' : ajv.errorsText(validate.errors) };
    },
  };
}
