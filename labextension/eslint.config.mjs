// Flat config: TypeScript-aware rules for src/ (prettier owns formatting: `jlpm lint`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['lib/**', 'node_modules/**', '**/*.generated.ts', '**/*.d.ts']
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.ts'],
    languageOptions: {
      parserOptions: { ecmaVersion: 2020, sourceType: 'module' }
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'smart'],
      'no-restricted-properties': [
        'error',
        {
          property: 'innerHTML',
          message: 'Put text into the DOM with textContent (strings come from npu-smi).'
        },
        {
          property: 'outerHTML',
          message: 'Put text into the DOM with textContent.'
        },
        {
          property: 'insertAdjacentHTML',
          message: 'Put text into the DOM with textContent.'
        }
      ]
    }
  },
  {
    // hosts see the viewer through its one public surface, src/viewer/index.ts
    files: ['src/hosts/**/*.ts'],
    ignores: ['src/hosts/**/__tests__/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/viewer/*'],
              message:
                "Hosts import the viewer's public surface only: '../viewer' (src/viewer/index.ts exports what they need)."
            }
          ]
        }
      ]
    }
  }
);
