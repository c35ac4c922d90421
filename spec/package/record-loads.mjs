// Registered with `node --import`: records every module URL the ESM loader resolves into $RECORD_LOADS,
// so a test can tell which packages a bare `import('authkoa')` pulls in.
import { register } from 'node:module';

const hooks = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(process.env.RECORD_LOADS ?? '/dev/null')}, result.url + '\\n');
  return result;
}`;
register('data:text/javascript,' + encodeURIComponent(hooks));
