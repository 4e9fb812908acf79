import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The folders of apps/api, bottom first: each may import only the folders before it, so arrows point one way
 * and no two folders import each other. A new folder must be placed here (an unlisted one may not be imported
 * by, nor import, a listed one).
 */
const API_LAYERS = [
  'cache',
  'logging',
  'metrics',
  'transport',
  'http',
  'config',
  'tracing',
  'auth',
  'audit',
  'kube',
  'web',
  'analysis',
  'traffic-routing',
  'controller',
  'controlplane',
  'rest',
  'openapi',
  'health',
  'live',
  'admission',
];

const apiLayerZones = API_LAYERS.flatMap((folder, index) => [
  {
    target: `./apps/api/src/${folder}`,
    from: `./apps/api/src`,
    except: [...API_LAYERS.slice(0, index + 1).map((lower) => `./${lower}`)],
    message: `apps/api/src/${folder} may import only ${API_LAYERS.slice(0, index).join(', ') || 'libraries'} (the layers below it, see API_LAYERS in eslint.config.js)`,
  },
]);

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/.next/**',
      '.nx/**',
      '.cluster/**',
      '.data/**',
      '**/generated/**',
      'test-results/**',
      'apps/web/next-env.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
    },
  },
  {
    files: ['apps/**/*.{ts,tsx}', 'libs/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': importX.flatConfigs.typescript.settings['import-x/extensions'],
      'import-x/parsers': importX.flatConfigs.typescript.settings['import-x/parsers'],
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: [
            'apps/api/tsconfig.json',
            'apps/web/tsconfig.json',
            'apps/kubectl-ngx/tsconfig.json',
            'libs/*/tsconfig.json',
          ],
          noWarnOnMultipleProjects: true,
        }),
      ],
    },
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            { target: './libs', from: './apps', message: 'libraries never import the apps' },
            ...apiLayerZones,
          ],
        },
      ],
    },
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
