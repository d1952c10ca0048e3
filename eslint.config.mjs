// Lint is part of `npm test` (tsc, then eslint, then jest). Style is left to the formatter; these rules catch
// bugs the compiler does not: floating promises, needless async, `any` leaking through, objects printed as
// "[object Object]" in messages, unbound methods, assertions that assert nothing.
// A rule is switched off for a line only with `-- reason` on the disable comment; never for a whole file.
// `npm test` lints with --cache (.eslintcache, content-keyed): a file is re-linted when it changes, not when
// a type it uses changes elsewhere, so delete .eslintcache (or run `npx eslint .`) after a wide type change.
// CI starts from a clean clone and so always lints everything.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '**/cdktf.out/**',
      '**/.secretform/**',
      'examples/platform/out/**',
      'bench/results/**',
    ],
  },
  js.configs.recommended,
  // Sources, bench, examples and scripts: the full type-checked recommended set, no exceptions. Unused
  // variables are left to tsc (noUnusedLocals/noUnusedParameters in tsconfig.json) so there is one checker.
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': 'off',
      // Construct props are public API named per construct (`MountProps extends MountBaseProps {}`), as cdktf
      // and jsii expect; an empty interface extending exactly one other is that name, not a mistake.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  // Tests read untyped JSON on purpose (synthesized specs, state files, plan output, service responses) and
  // assert on its shape; typing every such read would restate the code under test. So the no-unsafe-* family
  // (which flags every member access on `any`) is off in test/ only, and so is no-explicit-any, which flags the
  // `as any` that marks such a read; everything else still applies there.
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  // Plain JavaScript (jest config and setup, the bin shim, a bench helper) is CommonJS run by Node and is
  // not in the TypeScript project: lint it without type information, with Node's globals; `require` is how
  // CommonJS imports, so no-require-imports does not apply.
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        exports: 'writable',
        process: 'readonly',
        __dirname: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { sourceType: 'module' },
  },
);
