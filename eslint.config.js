// typescript-eslint's type-checked recommended rules over the package's own code: lib/, bin/, browser/,
// example/ and scripts/. The tests and the bench are type-checked by tsc (npm run typecheck) and
// formatted by Prettier, not linted: they poke at internals on purpose.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      '.tmp/**',
      'node_modules/**',
      'spec/**',
      'bench/**',
      'browser/client/schema.ts',
      'example/public/**',
      '*.config.js',
      'eslint.config.js',
      '**/*.mjs',
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },
);
