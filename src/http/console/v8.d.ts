// The contract's error types load src/errors.ts, which sets Error.stackTraceLimit: V8's, declared by
// Node's types and not by the DOM's (chromium has it too).
interface ErrorConstructor {
  stackTraceLimit: number;
}
