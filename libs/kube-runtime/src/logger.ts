/** Where the runtime reports what it does; the app passes its own (NestJS) logger. */
export interface RuntimeLogger {
  info(message: string, context?: Record<string, unknown>): void;
  warn(message: string, context?: Record<string, unknown>): void;
  error(message: string, context?: Record<string, unknown>): void;
}

export const silentLogger: RuntimeLogger = { info() {}, warn() {}, error() {} };

export const consoleLogger: RuntimeLogger = {
  info: (message, context) => console.log(JSON.stringify({ level: 'info', message, ...context })),
  warn: (message, context) => console.warn(JSON.stringify({ level: 'warn', message, ...context })),
  error: (message, context) => console.error(JSON.stringify({ level: 'error', message, ...context })),
};
