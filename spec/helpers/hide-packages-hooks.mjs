/** The module hooks hide-packages.mjs registers: a bare import of a hidden package fails as a missing one does. */
let hidden = [];

export function initialize(data) {
  hidden = data.hidden;
}

/** The package a bare specifier names: `pg`, `pg/lib/x` → `pg`; `@scope/name/x` → `@scope/name`. */
function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

export async function resolve(specifier, context, next) {
  if (hidden.includes(packageOf(specifier))) {
    const err = new Error(`Cannot find package '${packageOf(specifier)}' imported from ${context.parentURL}`);
    err.code = 'ERR_MODULE_NOT_FOUND';
    throw err;
  }
  return next(specifier, context);
}
