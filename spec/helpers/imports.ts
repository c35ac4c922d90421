import { join, normalize, relative } from 'node:path';

/** The package's lib/, which only its index may be imported from. */
const lib = normalize(join(import.meta.dirname, '..', '..', 'lib'));

/**
 * The import specifiers in `source` (a module in `dir`) that are not the public entry: a relative import
 * reaching anything but lib/index, or an `authkoa/…` subpath. Static imports, re-exports (type-only
 * ones included), side-effect imports, dynamic `import()`s and `declare module` augmentations all count.
 */
export function privateImports(source: string, dir: string): string[] {
  const specifiers = [
    ...source.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+['"]([^'"]+)['"]/gms),
    ...source.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
    ...source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...source.matchAll(/^\s*declare\s+module\s+['"]([^'"]+)['"]/gm),
  ].map((m) => m[1]!);
  return specifiers.filter((s) => {
    if (s.startsWith('authkoa/')) return true;
    if (!s.startsWith('.')) return false;
    const target = normalize(join(dir, s)).replace(/\.js$/, '');
    return relative(lib, target) !== 'index';
  });
}
