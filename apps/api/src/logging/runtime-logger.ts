import type { Logger } from '@nestjs/common';
import type { RuntimeLogger } from '@ngx/kube-runtime';

/** kube-runtime's logger interface on a Nest logger: fields travel as one object, printed by AppLogger. */
export function nestRuntimeLogger(logger: Logger): RuntimeLogger {
  const entry = (message: string, fields?: Record<string, unknown>) =>
    fields ? { message, ...fields } : message;
  return {
    info: (message, fields) => logger.log(entry(message, fields)),
    warn: (message, fields) => logger.warn(entry(message, fields)),
    error: (message, fields) => logger.error(entry(message, fields)),
  };
}
