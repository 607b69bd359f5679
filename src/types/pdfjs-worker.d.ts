declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs' {
  /** What pdf.js's fake worker looks for on globalThis.pdfjsWorker. */
  export const WorkerMessageHandler: unknown;
}
