// Lint rules: ESLint's and typescript-eslint's recommended sets (syntax-level, no type
// information, so the run stays fast); formatting is Prettier's job, not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules', 'cdk.out', '.local-data', 'coverage', 'client/openapi.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // `_`-prefixed names document a parameter a signature requires but the body does not use.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    files: ['test/**'],
    // Tests walk untyped JSON documents (OpenAPI, CloudFormation templates, API answers).
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
