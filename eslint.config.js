import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/, top to bottom. A layer imports only from the layers below it:
 * entry points → http → operations → documents → engines → platform → base (contract, errors, config).
 * documents/ opens the files operations are sent (images, PDFs) as pages, taking a PDF's text
 * layer as an OCR reading: it sits on the engines' types and OCR text rules, and is no engine.
 * Inside engines/, each engine folder is imported through its index.ts only, as documents/ is.
 */
const LAYERS = [
  { type: 'entry', pattern: ['src/main.ts', 'src/app.ts', 'src/cli/**', 'src/receiver/**'], mode: 'full' },
  { type: 'http', pattern: 'src/http/**', mode: 'full' },
  { type: 'operations', pattern: 'src/operations/**', mode: 'full' },
  { type: 'documents', pattern: 'src/documents', mode: 'folder' },
  { type: 'engine', pattern: 'src/engines/*', mode: 'folder', capture: ['engine'] },
  { type: 'engines', pattern: 'src/engines/*.ts', mode: 'full' },
  { type: 'platform', pattern: 'src/platform/**', mode: 'full' },
  { type: 'base', pattern: ['src/contract/**', 'src/config/**', 'src/config.ts', 'src/errors.ts', 'src/version.ts', 'src/types/**'], mode: 'full' },
];
const BELOW = {
  entry: ['entry', 'http', 'operations', 'documents', 'engine', 'engines', 'platform', 'base'],
  http: ['http', 'operations', 'documents', 'engine', 'engines', 'platform', 'base'],
  operations: ['operations', 'documents', 'engine', 'engines', 'platform', 'base'],
  documents: ['documents', 'engine', 'engines', 'platform', 'base'],
  engine: ['engine', 'engines', 'platform', 'base'],
  engines: ['engine', 'engines', 'platform', 'base'],
  platform: ['platform', 'base'],
  base: ['base'],
};

/**
 * An engine folder, and documents/, are imported through their index.ts only, from src/ and from
 * the tools alike ('**': the files of their sub-folders too, e.g. ocr/ppocr/).
 */
const ENGINE_ENTRY_POINT = [
  'error',
  {
    default: 'allow',
    message: 'import an engine, or documents, through its index.ts, not its internal files',
    rules: [{ target: ['engine', 'documents'], disallow: '**' }, { target: ['engine', 'documents'], allow: 'index.ts' }],
  },
];
const IMPORT_RESOLVER = { typescript: { project: './tsconfig.json' } };

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'models/', 'coverage/', '.build/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { boundaries, 'import-x': importX },
    settings: {
      'boundaries/elements': LAYERS,
      'boundaries/include': ['src/**/*.ts'],
      'import/resolver': IMPORT_RESOLVER,
      'import-x/resolver': IMPORT_RESOLVER,
    },
    rules: {
      'boundaries/no-unknown-files': 'error',
      'boundaries/element-types': [
        'error',
        {
          default: 'disallow',
          message: '${file.type} must not import ${dependency.type}: layers only point down (see eslint.config.js)',
          rules: Object.entries(BELOW).map(([from, allow]) => ({ from, allow })),
        },
      ],
      'boundaries/entry-point': ENGINE_ENTRY_POINT,
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // The operator's console runs in the browser, as plain ES modules with no build step. tsc checks
    // them against the DOM's globals (src/http/console/tsconfig.json), so eslint leaves names to it as
    // it does for TypeScript.
    files: ['src/http/console/assets/**/*.js'],
    languageOptions: { sourceType: 'module' },
    rules: tseslint.configs.eslintRecommended.rules,
  },
  {
    // The tools (benchmarks, evals, fixture generators, release) and their shared helpers in
    // scripts/lib stand above the gateway: they may use any layer of src/, engines and documents
    // through their index.ts, and nothing of test/ (tests use scripts/lib, never the other way round).
    files: ['scripts/**/*.ts'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': [...LAYERS, { type: 'tools', pattern: 'scripts/**', mode: 'full' }],
      'boundaries/include': ['src/**/*.ts', 'scripts/**/*.ts'],
      'import/resolver': IMPORT_RESOLVER,
    },
    rules: {
      'boundaries/entry-point': ENGINE_ENTRY_POINT,
      'no-restricted-imports': ['error', { patterns: [{ regex: '(^|/)test/', message: 'scripts/ must not import test/: put what both need in scripts/lib' }] }],
    },
  },
  {
    // These measure or rebuild what lies under an engine's interface, so they reach inside it:
    // bench-ocr times the PP-OCR pipeline and its models without the engine's worker threads, and
    // models-at-once replays their calls in threads of its own;
    // calibrate-ocr quantizes the recogniser's ONNX graph; the independent reader renders PDF
    // pages with pdfjs as the gateway's worker does (documents/index.ts keeps pdfjs out of the
    // main thread, so it does not export it).
    files: ['scripts/bench-ocr.ts', 'scripts/lib/models-at-once.ts', 'scripts/lib/models-at-once-worker.ts', 'scripts/calibrate-ocr.ts', 'scripts/lib/independent-reader.ts'],
    rules: { 'boundaries/entry-point': 'off' },
  },
  {
    // Commands print their results.
    files: ['scripts/**', 'src/cli/**'],
    rules: { 'no-console': 'off' },
  },
);
