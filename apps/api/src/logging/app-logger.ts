import { ConsoleLogger, type LogLevel } from '@nestjs/common';

export type LogFormat = 'json' | 'text';

/** A log line with fields: what the runtime logger hands to Nest (`{ message, key, ... }`). */
type FieldsMessage = { message: string } & Record<string, unknown>;

function isFieldsMessage(message: unknown): message is FieldsMessage {
  return (
    typeof message === 'object' &&
    message !== null &&
    Object.getPrototypeOf(message) === Object.prototype &&
    typeof (message as { message?: unknown }).message === 'string'
  );
}

/**
 * Nest's console logger with fields at the top level: in JSON mode `{"level","timestamp","context","message","key",…}`
 * one object per line (for log collectors); in text mode the message followed by its fields as compact JSON
 * (Nest alone would print an object message as an indented multi-line block).
 */
export class AppLogger extends ConsoleLogger {
  constructor(format: LogFormat) {
    super({ json: format === 'json', colors: format === 'text' && Boolean(process.stdout.isTTY) });
  }

  protected override getJsonLogObject(
    message: unknown,
    options: Parameters<ConsoleLogger['getJsonLogObject']>[1],
  ): ReturnType<ConsoleLogger['getJsonLogObject']> {
    const fields = isFieldsMessage(message) ? message : { message };
    return {
      level: options.logLevel,
      timestamp: Date.now(),
      pid: process.pid,
      ...(options.context ? { context: options.context } : {}),
      ...fields,
      ...(options.errorStack ? { stack: options.errorStack } : {}),
    };
  }

  protected override stringifyMessage(message: unknown, logLevel: LogLevel): string {
    if (!isFieldsMessage(message)) return super.stringifyMessage(message, logLevel) as string;
    const { message: text, ...fields } = message;
    return super.stringifyMessage(`${text} ${JSON.stringify(fields)}`, logLevel) as string;
  }
}
