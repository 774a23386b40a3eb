import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'results/**', 'test-output/**', 'scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The pages' scripts: block-scoped names only, const unless reassigned, as in the TypeScript. They run as
    // classic scripts; the report's share one global scope (report/client/page-data.js), and each lists in its
    // `/* exported */` the top-level names the others use.
    files: ['report/client/**/*.js'],
    languageOptions: { sourceType: 'script' },
    rules: {
      'no-var': 'error',
      'prefer-const': 'error',
    },
  },
  {
    // `tsc -p report/client` checks every name the report's scripts use, against the DOM and the scripts before;
    // no-undef would have each file list the others' names again. tables.js is not in that program.
    files: ['report/client/**/*.js'],
    ignores: ['report/client/tables.js'],
    rules: { 'no-undef': 'off' },
  },
  {
    // Tests wait for a state (test/support/eventually.ts), never for a fixed time: on two busy cores the other side
    // may not have got anywhere in N ms. A wait that is itself under test (a holder keeping a lock for its TTL, a
    // deadline a test gives a process) goes through a named constant whose comment says why.
    files: ['**/*.test.ts', 'test/integration/**/*.ts', 'test/docker/**/*.ts', 'test/support/**/*.ts'],
    ignores: ['test/support/eventually.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.name='sleep'] > Literal.arguments:first-child",
          message:
            'A literal sleep in a test: wait for the state with eventually() (test/support/eventually.ts), or name the duration in a constant that says why the time itself is under test.',
        },
        {
          // setTimeout(fn, 100), and node:timers/promises' setTimeout(100) as well.
          selector:
            ":matches(CallExpression[callee.name='setTimeout'], CallExpression[callee.property.name='setTimeout']):matches([arguments.1.type='Literal'], [arguments.length=1][arguments.0.type='Literal'])",
          message:
            'A literal setTimeout in a test: wait for the state with eventually() (test/support/eventually.ts), or name the duration in a constant that says why the time itself is under test.',
        },
      ],
    },
  },
);
