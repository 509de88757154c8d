// Lint rules, including the layer rule (docs/ARCHITECTURE.md, "Layers"): a wrong import between layers is a lint error.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const electronOnly = {
  name: 'electron',
  message: 'Only src-main/app, src-main/host/electron* and src-preload may import electron.',
};

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src-shared/**'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [electronOnly],
        patterns: [{ group: ['**/src-main/**', '**/src-renderer/**', '**/src-preload/**', 'node:*'], message: 'src-shared holds pure types and zod schemas only.' }],
      }],
    },
  },
  {
    files: ['src-main/core/**', 'src-main/sandbox/**', 'src-main/cli/**'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [electronOnly],
        patterns: [{ group: ['**/src-renderer/**', '**/app/**'], message: 'The core runs in plain Node and never reaches up into the app or the renderer.' }],
      }],
    },
  },
  {
    files: ['src-main/core/**', 'src-main/sandbox/**'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [electronOnly],
        patterns: [{ group: ['**/src-renderer/**', '**/app/**', '**/host/**', '**/cli/**'], message: 'src-main/core is the bottom of the main side: it imports only src-shared and libraries.' }],
      }],
    },
  },
  {
    files: ['src-main/host/**'],
    ignores: ['src-main/host/electron*'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [electronOnly],
        patterns: [{ group: ['**/src-renderer/**', '**/app/**'], message: 'Hosts serve the core; they never import the app or the renderer.' }],
      }],
    },
  },
  {
    files: ['src-renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      // Each store slice adds itself to AppState by declaration merging: `interface AppState extends TasksSlice {}`.
      // The renderer's own layers (app → features → ui → store → lib → api) are checked by test/unit/renderer/layers.test.ts.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      'no-restricted-imports': ['error', {
        paths: [electronOnly],
        patterns: [{ group: ['**/src-main/**', 'node:*'], message: 'The renderer talks to the core only through the typed bridge (src-shared + the preload API).' }],
      }],
    },
  },
);
