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
    files: ['shared/**'],
    // The Lambdas' library loads nothing of the media service (its SDKs would come with it); a
    // function that needs part of it is given it (functions/agent-test-runner/caller-line.ts).
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/media/src/**'], allowTypeImports: true, message: 'shared/ loads no media/src code' },
          ],
        },
      ],
    },
  },
  {
    files: ['web/console/**'],
    ignores: ['web/console/lib/mutation.ts'],
    // The package's useMutation runs a form's previous render's function until the next frame.
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@tanstack/preact-query',
              importNames: ['useMutation'],
              message: "use web/console/lib/mutation.ts's useMutation (the function of the latest render)",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**'],
    // Tests walk untyped JSON documents (OpenAPI, CloudFormation templates, API answers).
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
