/**
 * TypeScript declarations of an OpenAPI document's component schemas, so a client's types come from the
 * same description the routes are checked against (browser/client/schema.ts is written by it, and a test
 * keeps that file equal to what this makes of `auth.openapi()`).
 *
 * It reads the JSON Schema the document uses: objects with `properties`/`required` (an open object gets
 * an index signature), arrays, `oneOf`/`anyOf`, `enum`, `const`, the scalar types and `$ref`s to other
 * components. A property schema with a `title` becomes a type of that name of its own (the error `code`
 * is `ErrorCode`), so programs can name it.
 */
type Schema = Record<string, unknown>;

const REF = '#/components/schemas/';

/** How a component's name is written as a type. */
interface Names {
  rename(component: string): string;
}

/**
 * The declarations of `schemas`, one exported type per component, in the document's order. `rename`
 * gives a component another type name (`Error` would hide the global `Error` in the importing module).
 */
export function typeScriptOf(
  schemas: Record<string, Schema>,
  header = '',
  rename: Record<string, string> = {},
): string {
  const named = new Map<string, string>();
  const names = { rename: (name: string) => rename[name] ?? name };
  const body = Object.entries(schemas).map(([name, schema]) => declaration(names.rename(name), schema, named, names));
  return [header, ...named.values(), ...body].filter(Boolean).join('\n\n') + '\n';
}

/** `export interface Name {…}` for an object with properties, else `export type Name = …`. */
function declaration(name: string, schema: Schema, named: Map<string, string>, names: Names): string {
  const doc = comment(schema.description, '');
  if (schema.type === 'object' && schema.properties)
    return `${doc}export interface ${name} ${objectType(schema, named, '', names)}`;
  return `${doc}export type ${name} = ${typeOf(schema, named, '', names)};`;
}

function typeOf(schema: Schema, named: Map<string, string>, indent: string, names: Names): string {
  if (typeof schema.$ref === 'string') {
    if (!schema.$ref.startsWith(REF))
      throw new TypeError(`typeScriptOf: only component references are supported, not ${schema.$ref}`);
    return names.rename(schema.$ref.slice(REF.length));
  }
  if (typeof schema.title === 'string' && !named.has(schema.title)) {
    const { title, ...rest } = schema;
    named.set(title, declaration(title, rest, named, names));
  }
  if (typeof schema.title === 'string') return schema.title;
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  const union = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (union) return union.map((s) => typeOf(s, named, indent, names)).join(' | ');
  // OpenAPI 3.1's `type: ['string', 'null']`: one type each.
  if (Array.isArray(schema.type))
    return schema.type.map((type) => typeOf({ ...schema, type }, named, indent, names)).join(' | ');
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
    case 'integer':
      return 'number';
    case 'null':
      return 'null';
    case 'array': {
      const items = typeOf((schema.items ?? {}) as Schema, named, indent, names);
      return /[ |]/.test(items) ? `Array<${items}>` : `${items}[]`;
    }
    case 'object':
      return schema.properties ? objectType(schema, named, indent, names) : 'Record<string, unknown>';
    default:
      return 'unknown';
  }
}

/** `{ name: T; optional?: T }`, with `[key: string]: unknown` unless `additionalProperties` is false. */
function objectType(schema: Schema, named: Map<string, string>, indent: string, names: Names): string {
  const required = new Set((schema.required ?? []) as string[]);
  const inner = indent + '  ';
  const members = Object.entries(schema.properties as Record<string, Schema>).map(
    ([key, value]) =>
      `${comment(value.description, inner)}${inner}` +
      `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)}${required.has(key) ? '' : '?'}: ` +
      `${typeOf(value, named, inner, names)};`,
  );
  if (schema.additionalProperties !== false) members.push(`${inner}[key: string]: unknown;`);
  return `{\n${members.join('\n')}\n${indent}}`;
}

function comment(description: unknown, indent: string): string {
  return typeof description === 'string' ? `${indent}/** ${description.replace(/\*\//g, '*\\/')} */\n` : '';
}
