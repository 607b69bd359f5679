/**
 * Every setting of the gateway, written once: its environment variable, type, default and
 * meaning. `Config` (index.ts), its TypeScript type and the configuration reference of the
 * operator's guide (§5, `npm run docs:generate`) are derived from this table.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { oneOf, section, setting, types } from './define.js';

const MIB = 1024 * 1024;
const cores = () => availableParallelism();
/** Where `npm run setup:whisper` puts whisper-cli (this file sits in src/config/ or dist/config/, two below the root). */
const BUILT_WHISPER_CLI = fileURLToPath(new URL('../../.build/whisper/bin/whisper-cli', import.meta.url));
/** Where `npm install` (`mdt-gateway models prepare-ocr`) prepares the PP-OCR models, and where the release carries them. */
const PREPARED_PPOCR_DIR = fileURLToPath(new URL('../../.build/ppocr', import.meta.url));
/** The manifest of recommended models shipped with the gateway. */
const SHIPPED_MANIFEST = fileURLToPath(new URL('../../models/manifest.json', import.meta.url));

// The settings other defaults are derived from, declared before the table so that a derived
// default names its source by the setting itself (`from`), which the compiler checks.
const port = setting({
  env: 'PORT',
  type: types.port,
  default: 8080,
  doc: 'listen port (`0` picks a free port: tests only)',
});
const llmParallel = setting({
  env: 'LLM_PARALLEL',
  type: types.positiveInt,
  default: 2,
  doc: 'context sequences of the loaded model: LLM calls served at once. Each holds a KV cache of `LLM_CONTEXT_SIZE` tokens',
});
const llmMaxRunning = setting({
  env: 'LLM_MAX_RUNNING',
  type: types.positiveInt,
  default: { from: llmParallel, value: (parallel) => parallel, doc: (source) => `\`${source}\`` },
  doc: 'LLM limiter: calls running at once',
});
const fetchMaxBytes = setting({
  env: 'FETCH_MAX_BYTES',
  type: types.positiveInt,
  default: 50 * MIB,
  doc: 'largest fetched file (counted while streaming), and largest console upload of an image or PDF; recordings use `ASR_MAX_BYTES`',
});
const ocrWorkers = setting({
  env: 'OCR_WORKERS',
  type: types.positiveInt,
  default: { value: cores, doc: 'cores' },
  doc: 'OCR workers: pages read at once (PP-OCR worker threads, or tesseract.js WASM instances)',
});
const asrMaxRunning = setting({
  env: 'ASR_MAX_RUNNING',
  formerly: 'ASR_CONCURRENCY',
  type: types.positiveInt,
  default: 1,
  doc: 'ASR limiter: recordings transcribed at once',
});

export const SETTINGS = {
  server: section('Server and storage', {
    host: setting({
      env: 'HOST',
      type: types.text,
      default: '127.0.0.1',
      doc: 'listen address. The default serves this machine only; `0.0.0.0` (the images set it) serves the network, and then `API_TOKENS` is required (section 10.1). `0.0.0.0` was the default before 0.2',
    }),
    port,
    publicBaseUrl: setting({
      env: 'PUBLIC_BASE_URL',
      type: types.url,
      default: { from: port, value: (value) => `http://localhost:${value}`, doc: (source) => `\`http://localhost:$${source}\`` },
      doc: 'base of the links the gateway hands out (`/files/...`); set it to the URL clients reach through the proxy',
    }),
    dataDir: setting({
      env: 'DATA_DIR',
      type: types.path,
      default: './data',
      doc: '`gateway.sqlite` (artifact cache, AI-3 jobs, blob index), `blobs/` (produced files), `file-signing.key`; kept 0700, its files 0600 (section 1). One gateway process per `DATA_DIR`. Unused by the stores when `DATABASE_URL` is set',
    }),
    databaseUrl: setting({
      env: 'DATABASE_URL',
      type: types.postgresUrl,
      defaultDoc: 'none (SQLite in `DATA_DIR`)',
      doc: 'PostgreSQL shared by several gateway replicas: AI-3 jobs, the artifact cache, produced files (as `bytea`) and the file-link key live there instead of `DATA_DIR`; migrations run once under an advisory lock',
    }),
    databasePoolSize: setting({
      env: 'DATABASE_POOL_SIZE',
      type: types.positiveInt,
      default: 8,
      doc: 'PostgreSQL connections per replica (with `DATABASE_URL`)',
    }),
    artifactRetentionDays: setting({
      env: 'ARTIFACT_RETENTION_DAYS',
      type: types.positiveInt,
      default: 7,
      doc: 'AI-1&2 results cached in `gateway.sqlite` (they hold patient text) are deleted this long after they were made; the same request after that is computed again',
    }),
    auditRetentionDays: setting({
      env: 'AUDIT_RETENTION_DAYS',
      type: types.positiveInt,
      default: 180,
      doc: 'the audit trail (one record per request to `/ai/` and `/console/api/`: time, token name, operation, request_id, upload_file_ids, status, error kind, duration; no patient data) keeps each record this long; older ones are deleted every 10 minutes',
    }),
    bodyLimitBytes: setting({
      env: 'BODY_LIMIT_BYTES',
      type: types.positiveInt,
      default: 2 * MIB,
      doc: 'largest JSON request body (`413 payload_too_large` above it)',
    }),
    requestTimeoutMs: setting({
      env: 'REQUEST_TIMEOUT_MS',
      type: types.positiveInt,
      default: 120_000,
      doc: 'longest a client may take to send one whole request, head and body (a console upload included), from its first byte; then `408 request_timeout` and the connection is closed. Only receiving counts: the time the gateway then takes to answer (a long transcription) does not',
    }),
    headersTimeoutMs: setting({
      env: 'HEADERS_TIMEOUT_MS',
      type: types.positiveInt,
      default: 30_000,
      doc: 'a connection that has not sent a whole request head this long after it opened (or after its next request began) is answered `408 request_timeout` and closed; at most `REQUEST_TIMEOUT_MS`',
    }),
    keepAliveTimeoutMs: setting({
      env: 'KEEP_ALIVE_TIMEOUT_MS',
      type: types.positiveInt,
      default: 72_000,
      doc: "an idle kept-alive connection is closed after this long; keep it longer than the idle timeout of a proxy in front (e.g. 60 s), so the proxy never reuses a connection the gateway is closing",
    }),
    maxConnections: setting({
      env: 'MAX_CONNECTIONS',
      type: types.positiveInt,
      default: 1024,
      doc: 'open client connections at most; a connection beyond it is closed as soon as it opens (logged as a warning at most once a minute). A proxy in front pools its connections, so this bounds what clients reaching the gateway directly can hold',
    }),
    logLevel: setting({
      env: 'LOG_LEVEL',
      type: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
      default: 'info',
      doc: 'pino log level',
    }),
    shutdownTimeoutMs: setting({
      env: 'SHUTDOWN_TIMEOUT_MS',
      type: types.positiveInt,
      default: 30_000,
      doc: 'how long SIGTERM/SIGINT waits for in-flight requests before exiting 1',
    }),
  }),

  models: section('Models', {
    dir: setting({
      env: 'MODELS_DIR',
      type: types.path,
      default: './models',
      doc: 'where model file names in `LLM_MODEL`, `WHISPER_MODEL`, `WHISPER_VAD_MODEL` are looked up',
    }),
    verify: setting({
      env: 'MODELS_VERIFY',
      type: types.bool,
      default: true,
      doc: "`true`: a model whose sha256 differs from the manifest's or `SHA256SUMS`' is refused (engine `failed`); `false`: loaded anyway",
    }),
    manifestPath: setting({
      env: 'MODELS_MANIFEST',
      type: types.path,
      default: SHIPPED_MANIFEST,
      defaultDoc: '`models/manifest.json` of the install',
      doc: 'the manifest of recommended models and their hashes',
    }),
  }),

  security: section('Security', {
    apiTokens: setting({
      env: 'API_TOKENS',
      type: types.namedTokens('client', true),
      default: [],
      defaultDoc: 'none',
      doc: 'client tokens, `name=token` each (the name is what the audit trail and the logs show; a token is ≥ 16 characters): `/ai/v1` requires `Authorization: Bearer <token>` with one of them or an operator token. Required when `HOST` is not loopback, unless `ALLOW_OPEN_ACCESS=true`. A bare token without a name (the form before 0.2) is read until 0.3, named `token <position>`, with a warning at start',
    }),
    operatorTokens: setting({
      env: 'OPERATOR_TOKENS',
      type: types.namedTokens('operator', false),
      default: [],
      defaultDoc: 'none',
      doc: 'operator tokens, `name=token` each: the console API (`/console/api`), AI-3 job views and redelivery, `/metrics` and the detailed `/readyz` require one of them; they also work on `/ai/v1`. Unset while `API_TOKENS` is set: those routes are closed (a warning at start)',
    }),
    allowOpenAccess: setting({
      env: 'ALLOW_OPEN_ACCESS',
      type: types.bool,
      default: false,
      doc: '`true` lets a gateway with no tokens at all start on a non-loopback `HOST`: every route is then open to whoever reaches it (warned at every start). For a closed test network only',
    }),
    fileSigningSecret: setting({
      env: 'FILE_SIGNING_SECRET',
      type: types.secret(32),
      defaultDoc: 'generated',
      doc: 'HMAC key of `/files/` links. Unset: a random 32-byte key is created once in `DATA_DIR/file-signing.key` (mode 0600), or in PostgreSQL with `DATABASE_URL` (shared by the replicas), and reused',
    }),
    fileUrlTtlSeconds: setting({
      env: 'FILE_URL_TTL_SECONDS',
      type: types.positiveInt,
      default: 24 * 3600,
      doc: 'lifetime of a produced file and its link; expired files are swept every 10 minutes',
    }),
  }),

  fetch: section('Fetching files (file_url, voice_url)', {
    allowHosts: setting({
      env: 'FETCH_ALLOW_HOSTS',
      type: types.hostList,
      default: [],
      defaultDoc: 'none (any host)',
      doc: 'when set, `file_url` / `voice_url` (and every redirect hop) may point only at these hosts; `host` without a port allows any port. Set it in production: left unset with `NODE_ENV=production` or a non-loopback `HOST`, it is warned about at start',
    }),
    allowLoopback: setting({
      env: 'FETCH_ALLOW_LOOPBACK',
      type: types.bool,
      default: false,
      doc: 'allow fetching from 127.0.0.0/8 and ::1 (test setups only; warned at start)',
    }),
    maxBytes: fetchMaxBytes,
    maxInFlightBytes: setting({
      env: 'FETCH_MAX_IN_FLIGHT_BYTES',
      type: types.positiveInt,
      default: { from: fetchMaxBytes, value: (maxBytes) => 4 * maxBytes, doc: (source) => `4 × \`${source}\`` },
      doc: 'bytes all files and recordings being downloaded may hold at once, in memory or in `TMPDIR`: each reserves its declared `Content-Length` (its byte limit when none is declared) until it is read whole; the others wait. One larger than this waits to be downloaded alone',
    }),
    queueTimeoutMs: setting({
      env: 'FETCH_QUEUE_TIMEOUT_MS',
      type: types.positiveInt,
      default: 30_000,
      doc: 'longest a download waits for room in `FETCH_MAX_IN_FLIGHT_BYTES` (then `503 overloaded` with `Retry-After`); counted in `FETCH_TIMEOUT_MS`',
    }),
    connectTimeoutMs: setting({ env: 'FETCH_CONNECT_TIMEOUT_MS', type: types.positiveInt, default: 5_000, doc: 'connect timeout per hop' }),
    totalTimeoutMs: setting({
      env: 'FETCH_TIMEOUT_MS',
      type: types.positiveInt,
      default: 60_000,
      doc: 'whole fetch, redirects and body included',
    }),
  }),

  callback: section('AI-3 callbacks', {
    baseUrl: setting({
      env: 'CALLBACK_BASE_URL',
      type: types.url,
      defaultDoc: 'none',
      doc: 'the platform; AI-3 results are POSTed to `$CALLBACK_BASE_URL/internal/ai/callback`. Without it AI-3 answers `503 engine_unavailable`',
    }),
    secret: setting({
      env: 'CALLBACK_SECRET',
      type: types.webhookSecret,
      defaultDoc: 'none',
      doc: 'Standard Webhooks signing secret, `whsec_` + the base64 of ≥ 24 random bytes (`echo "whsec_$(openssl rand -base64 32)"`); the HMAC key is the decoded bytes. Required with `CALLBACK_BASE_URL`, unless `CALLBACK_ALLOW_UNSIGNED=true`',
    }),
    previousSecret: setting({
      env: 'CALLBACK_SECRET_PREVIOUS',
      type: types.webhookSecret,
      defaultDoc: 'none',
      doc: "while rotating `CALLBACK_SECRET`: the old secret, in the same form; callbacks carry a signature made with each until it is removed (the operator's guide, §10.4)",
    }),
    allowUnsigned: setting({
      env: 'CALLBACK_ALLOW_UNSIGNED',
      type: types.bool,
      default: false,
      doc: '`true` lets the gateway start with `CALLBACK_BASE_URL` and no `CALLBACK_SECRET`: callbacks then go unsigned, and anyone who can reach the platform can forge one (warned at every start). Test setups only',
    }),
    timeoutMs: setting({ env: 'CALLBACK_TIMEOUT_MS', type: types.positiveInt, default: 10_000, doc: 'time limit of one callback POST' }),
    retryBaseMs: setting({
      env: 'CALLBACK_RETRY_BASE_MS',
      type: types.positiveInt,
      default: 1_000,
      doc: 'first retry delay; doubles per attempt, each delay jittered to ½–1×',
    }),
    retryMaxDelayMs: setting({
      env: 'CALLBACK_RETRY_MAX_DELAY_MS',
      type: types.positiveInt,
      default: 60 * 60 * 1000,
      doc: 'longest delay between two attempts',
    }),
    retryHorizonMs: setting({
      env: 'CALLBACK_RETRY_HORIZON_MS',
      type: types.positiveInt,
      default: 24 * 60 * 60 * 1000,
      doc: 'after this long since the first attempt (with a last attempt at the horizon) the job is `dead`',
    }),
  }),

  advice: section('AI-3 jobs', {
    maxRunning: setting({
      env: 'ADVICE_MAX_RUNNING',
      formerly: 'ADVICE_CONCURRENCY',
      type: types.positiveInt,
      default: {
        from: llmMaxRunning,
        value: (llmSlots) => Math.max(1, Math.floor(llmSlots / 2)),
        doc: (source) => `\`max(1, floor(${source} ÷ 2))\``,
      },
      doc: 'AI-3 drafts generated at once; the rest of the LLM slots stay free for interactive requests',
    }),
    draftAttempts: setting({
      env: 'ADVICE_DRAFT_ATTEMPTS',
      type: types.positiveInt,
      default: 3,
      doc: 'attempts for a draft that fails in a retryable way before a `failed` callback',
    }),
    timeoutMs: setting({
      env: 'ADVICE_TIMEOUT_MS',
      type: types.positiveInt,
      default: 10 * 60 * 1000,
      doc: 'longest one draft attempt may take (used instead of `LLM_TIMEOUT_MS`)',
    }),
    leaseMs: setting({
      env: 'ADVICE_LEASE_MS',
      type: types.intAtLeast(1000),
      default: 30_000,
      doc: 'a gateway holds a draft it works on for this long, renewed every third of it; with `DATABASE_URL`, another replica takes the job once a dead replica\'s lease ends. Also the margin of a delivery\'s lease beyond `CALLBACK_TIMEOUT_MS`',
    }),
    retentionDays: setting({
      env: 'ADVICE_RETENTION_DAYS',
      type: types.positiveInt,
      default: 7,
      doc: 'delivered and dead jobs are purged this long after their last update',
    }),
  }),

  llm: section('LLM', {
    backend: setting({
      env: 'LLM_BACKEND',
      type: oneOf('local', 'openai'),
      default: 'local',
      doc: "`local`: node-llama-cpp runs `LLM_MODEL` in a child process; `openai`: an OpenAI-compatible model server (vLLM, llama-server, Ollama) at `LLM_BASE_URL` serves `LLM_MODEL_NAME` (operator's guide §6.6)",
    }),
    model: setting({
      env: 'LLM_MODEL',
      type: types.modelFile,
      defaultDoc: 'none (engine unavailable)',
      doc: 'GGUF chat model (`LLM_BACKEND=local`)',
    }),
    baseUrl: setting({
      env: 'LLM_BASE_URL',
      type: types.url,
      defaultDoc: 'none',
      doc: '`LLM_BACKEND=openai`: the API base as OpenAI clients take it, `/v1` included (e.g. `http://10.0.0.5:8000/v1`). A trusted address: the `FETCH_*` rules do not apply to it',
    }),
    apiKey: setting({
      env: 'LLM_API_KEY',
      type: types.text,
      defaultDoc: 'none',
      doc: '`LLM_BACKEND=openai`: sent as `Authorization: Bearer <key>` when set',
    }),
    modelName: setting({
      env: 'LLM_MODEL_NAME',
      type: types.text,
      defaultDoc: 'none (engine unavailable)',
      doc: "`LLM_BACKEND=openai`: the model as the server's `GET /v1/models` lists it; the engine is ready only while it is listed",
    }),
    parallel: llmParallel,
    contextSize: setting({
      env: 'LLM_CONTEXT_SIZE',
      type: types.intAtLeast(512),
      default: 4096,
      doc: 'tokens per sequence (prompt + answer); longer speech is judged in windows, longer AI-3 cases are condensed. With `LLM_BACKEND=openai`, used only when the server does not say (llama-server and vLLM do)',
    }),
    threads: setting({
      env: 'LLM_THREADS',
      type: types.positiveInt,
      default: { value: cores, doc: 'cores' },
      doc: 'CPU threads for generation. llama.cpp threads spin-wait: more threads than free cores slows generation by an order of magnitude. Set it on any shared machine',
    }),
    gpu: setting({
      env: 'LLM_GPU',
      type: oneOf('auto', 'cuda', 'vulkan', 'off'),
      default: 'auto',
      doc: '`auto` uses a GPU when one works, else the CPU. The GPU image sets `cuda`, the CPU image `off`',
    }),
    gpuLayers: setting({
      env: 'LLM_GPU_LAYERS',
      type: types.gpuLayers,
      default: 'auto',
      doc: 'layers offloaded to the GPU; `/readyz` shows `(n of m layers)` when not all are',
    }),
    timeoutMs: setting({
      env: 'LLM_TIMEOUT_MS',
      type: types.positiveInt,
      default: 120_000,
      doc: 'longest one generation may run (then `504 timeout`)',
    }),
    maxRunning: llmMaxRunning,
    maxQueued: setting({
      env: 'LLM_MAX_QUEUED',
      type: types.nonNegativeInt,
      default: 32,
      doc: 'LLM limiter: calls waiting; beyond it `503 overloaded` with `Retry-After`',
    }),
    queueTimeoutMs: setting({
      env: 'LLM_QUEUE_TIMEOUT_MS',
      type: types.positiveInt,
      default: 120_000,
      doc: 'LLM limiter: longest wait in the queue (then `504 timeout`)',
    }),
  }),

  ocr: section('OCR', {
    engine: setting({
      env: 'OCR_ENGINE',
      type: oneOf('ppocr', 'tesseract', 'off'),
      default: 'ppocr',
      doc: '`ppocr`: PP-OCRv4 (detector, direction classifier, recogniser) on onnxruntime-node; `tesseract`: tesseract.js; `off` leaves OCR unavailable. De-identification audits every page with tesseract.js as a second, independent reader whichever reads first',
    }),
    workers: ocrWorkers,
    threads: setting({
      env: 'OCR_THREADS',
      type: types.positiveInt,
      default: 1,
      doc: "PP-OCR: onnxruntime's intra-op threads per worker. Keep `OCR_WORKERS × OCR_THREADS` within the cores OCR may use",
    }),
    device: setting({
      env: 'OCR_DEVICE',
      type: oneOf('cpu', 'cuda'),
      default: 'cpu',
      doc: "PP-OCR: where its models run. `cuda` needs onnxruntime's CUDA execution provider, which the GPU image installs at build; without it the engine is `failed` with the reason. The GPU image sets `cuda`",
    }),
    ppocrDir: setting({
      env: 'OCR_PPOCR_DIR',
      type: types.path,
      default: PREPARED_PPOCR_DIR,
      defaultDoc: '`<install dir>/.build/ppocr`',
      doc: 'PP-OCR: the folder of its prepared models (each file checked against `prepared.json` at start); `mdt-gateway models prepare-ocr --out <dir>` writes one. The default (resolved from the installation folder) is what `npm install` prepares and where the release carries them',
    }),
    precision: setting({
      env: 'OCR_PRECISION',
      type: oneOf('int8', 'fp32'),
      default: 'int8',
      doc: "PP-OCR: `int8` runs the recogniser's dense convolutions in 8-bit integers on the CPU (calibrated on real lines: faster, and as accurate), `fp32` as exported. A GPU, or a recogniser prepared from a file other than the calibrated one, runs `fp32` whatever this says",
    }),
    batch: setting({
      env: 'OCR_BATCH',
      type: types.intBetween(1, 64),
      default: 1,
      doc: 'PP-OCR: lines per classifier and recogniser call, batched with lines of similar width. On CPU one line per call reads fastest (a batch is padded to its widest line and adds no parallelism there); raise it for a GPU',
    }),
    detectionMaxSide: setting({
      env: 'OCR_DET_MAX_SIDE',
      type: types.intBetween(320, 4096),
      default: 960,
      doc: "PP-OCR: a page is scaled so its longest side is at most this for text detection (rounded to a multiple of 32); a page whose print is too small there (small print on a full A4 page) is detected enlarged until its lines are thick enough, up to its own size and twice this side: at once when its pixels show how small its print is (crisp print on light paper), else once more after it was detected at this side. Smaller is faster",
    }),
    langs: setting({
      env: 'OCR_LANGS',
      type: types.tesseractLangs,
      default: ['chi_sim', 'eng'],
      defaultDoc: '`chi_sim+eng`',
      doc: 'traineddata to load',
    }),
    tessdataDir: setting({
      env: 'OCR_TESSDATA_DIR',
      type: types.path,
      defaultDoc: 'none (npm packages)',
      doc: 'folder with `<lang>.traineddata` or `.traineddata.gz` (LSTM models); default: the `@tesseract.js-data` npm packages',
    }),
    workerMaxJobs: setting({
      env: 'OCR_WORKER_MAX_JOBS',
      type: types.positiveInt,
      default: 200,
      doc: "tesseract.js: pages a worker reads before it is replaced (bounds its WASM heap, which only grows). PP-OCR workers are kept: onnxruntime's memory stops growing at the largest page, and a new worker leaves the old one's freed memory in the process",
    }),
    startTimeoutMs: setting({
      env: 'OCR_START_TIMEOUT_MS',
      type: types.positiveInt,
      default: 60_000,
      doc: 'longest the workers may take to load (then the engine is `failed`)',
    }),
    maxPages: setting({ env: 'OCR_MAX_PAGES', type: types.positiveInt, default: 100, doc: 'pages per file (`413` above)' }),
    maxPagePixels: setting({
      env: 'OCR_MAX_PAGE_PIXELS',
      type: types.positiveInt,
      default: 50_000_000,
      doc: 'decoded pixels per page, images and rendered PDF pages, and per image inside a PDF (`413` above)',
    }),
    pdfHeapMb: setting({
      env: 'OCR_PDF_HEAP_MB',
      type: types.positiveInt,
      default: 512,
      doc: 'JavaScript heap of the process that reads one PDF; with `OCR_MAX_PAGE_PIXELS` it sets the memory that process may add to its loaded code (this heap and 16 bytes per pixel of one page), and a PDF that needs more is refused (`413`) and only its process ends',
    }),
    pdfPageTimeoutMs: setting({
      env: 'OCR_PDF_PAGE_TIMEOUT_MS',
      type: types.positiveInt,
      default: 20_000,
      doc: 'longest the process that reads one PDF may spend opening it or reading one page; a PDF that takes longer is refused (`413`) and only its process ends',
    }),
    maxRunning: setting({
      env: 'OCR_MAX_RUNNING',
      type: types.positiveInt,
      default: { from: ocrWorkers, value: (workers) => workers, doc: (source) => `\`${source}\`` },
      doc: 'OCR limiter: pages read at once',
    }),
    maxQueued: setting({ env: 'OCR_MAX_QUEUED', type: types.nonNegativeInt, default: 64, doc: 'OCR limiter: pages waiting' }),
    queueTimeoutMs: setting({ env: 'OCR_QUEUE_TIMEOUT_MS', type: types.positiveInt, default: 120_000, doc: 'OCR limiter: longest wait' }),
  }),

  deid: section('De-identification (AI-4)', {
    minConfidence: setting({
      env: 'DEID_MIN_CONFIDENCE',
      type: types.intBetween(0, 100),
      default: 70,
      doc: 'AI-4 withholds (`422 deidentification_failed`) a page whose text OCR found but read with a lower mean confidence (lines found but too poorly read to keep count too); lower it only knowing that names OCR could not read stay visible',
    }),
    auditMinReadPercent: setting({
      env: 'DEID_AUDIT_MIN_READ',
      type: types.intBetween(0, 100),
      default: 50,
      doc: "AI-4's self-audit counts a reading as clean only when it read again at least this percentage of the characters the first reading read outside the paint; a reader that reads less is blind to the page, which is withheld (`422`, \"the audit could not read this page\"). Lower it only knowing that a reader that cannot see a page finds no names on it",
    }),
  }),

  asr: section('ASR (whisper.cpp)', {
    model: setting({ env: 'WHISPER_MODEL', type: types.modelFile, defaultDoc: 'none (engine unavailable)', doc: 'whisper.cpp GGML model' }),
    vadModel: setting({
      env: 'WHISPER_VAD_MODEL',
      type: types.modelFile,
      defaultDoc: 'none',
      doc: 'optional Silero VAD GGML model; whisper then skips non-speech',
    }),
    whisperBin: setting({
      env: 'WHISPER_BIN',
      type: types.path,
      default: BUILT_WHISPER_CLI,
      defaultDoc: '`<install dir>/.build/whisper/bin/whisper-cli`',
      doc: 'whisper-cli; the default (resolved from the installation folder, not the working directory) is what `npm install` / `npm run setup:whisper` builds, and where the release carries the one built for its target',
    }),
    ffmpegBin: setting({ env: 'FFMPEG_BIN', type: types.command, default: 'ffmpeg', doc: 'ffmpeg' }),
    language: setting({
      env: 'ASR_LANGUAGE',
      type: types.whisperLanguage,
      default: 'zh',
      doc: '`zh` also adds a prompt that keeps output in Simplified characters',
    }),
    maxRunning: asrMaxRunning,
    threads: setting({
      env: 'ASR_THREADS',
      type: types.positiveInt,
      default: {
        from: asrMaxRunning,
        // Jobs at once share the cores; more threads than cores only makes whisper slower.
        value: (jobs) => Math.max(1, Math.floor(cores() / jobs)),
        doc: (source) => `\`max(1, floor(cores ÷ ${source}))\``,
      },
      doc: 'CPU threads of one whisper-cli job',
    }),
    beamSize: setting({
      env: 'ASR_BEAM_SIZE',
      type: types.intBetween(1, 16),
      default: 5,
      doc: 'beam size; `1` is greedy decoding, faster on CPU',
    }),
    temperatureFallback: setting({
      env: 'ASR_TEMPERATURE_FALLBACK',
      type: types.bool,
      default: true,
      doc: 're-decode a failed window at higher temperature (more robust, slower)',
    }),
    maxAudioSeconds: setting({ env: 'ASR_MAX_AUDIO_SECONDS', type: types.positiveInt, default: 7200, doc: 'longest recording (`413` above)' }),
    maxBytes: setting({ env: 'ASR_MAX_BYTES', type: types.positiveInt, default: 200 * MIB, doc: 'largest recording fetched or uploaded in the console' }),
    timeoutFactor: setting({
      env: 'ASR_TIMEOUT_FACTOR',
      type: types.positiveNumber,
      default: 2,
      doc: "a job is killed after 60 s + this × the audio's duration (`504 timeout`)",
    }),
    maxQueued: setting({ env: 'ASR_MAX_QUEUED', type: types.nonNegativeInt, default: 16, doc: 'ASR limiter: recordings waiting' }),
    queueTimeoutMs: setting({ env: 'ASR_QUEUE_TIMEOUT_MS', type: types.positiveInt, default: 300_000, doc: 'ASR limiter: longest wait' }),
  }),
} as const;
