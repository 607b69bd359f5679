import type { EngineName } from '../engines/types.js';
import { GatewayError } from '../errors.js';
import type { OperationHandler } from './context.js';

/**
 * An operation whose domain pipeline is not in this build yet: it still answers
 * engine_unavailable first when its engines are missing (the permanent behaviour), and
 * not_implemented if they are present. Each use is replaced by the operation's own module.
 */
export function notBuiltYet(operation: string, engines: EngineName[]): OperationHandler<unknown, never> {
  return async (_request, context) => {
    context.engines.requireReady(...engines);
    throw new GatewayError('not_implemented', `${operation} is not implemented in this gateway build`);
  };
}
