import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { errorMessage, isApiError } from '@ngx/kube-runtime';
import type { Response } from 'express';
import { kubeStatus, rememberAnswered, StatusException } from './kube-status.js';

/**
 * Answers every error as a Kubernetes `Status`: the API server's own Status passed through unchanged (code,
 * reason, causes), the control plane's StatusExceptions as built, Nest's HTTP exceptions (body parser, 404 routes)
 * translated, and anything else as a 500 without internals.
 */
@Catch()
export class StatusExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Rest');

  catch(error: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) {
      response.end();
      return;
    }
    const [code, body, headers] = statusAnswer(error, this.logger);
    // The change audit records what a refused write was answered (see ChangeAuditMiddleware).
    rememberAnswered(response.locals, body);
    response.set(headers).status(code).json(body);
  }
}

/**
 * The `Status` answer to an error: code, body and extra headers. What the control plane did not expect is logged
 * and answered as a 500 without internals. Shared by the filter and the handlers that answer outside Nest
 * (RelayedReadLane).
 */
export function statusAnswer(error: unknown, logger: Logger): [number, object, Record<string, string>] {
  if (isApiError(error))
    return [
      error.code,
      error.status.kind === 'Status' ? error.status : kubeStatus(error.code, error.message),
      {},
    ];
  if (error instanceof StatusException) return [error.code, error.body, error.headers];
  if (error instanceof HttpException) {
    const code = error.getStatus();
    return [code, kubeStatus(code, httpMessage(error)), {}];
  }
  logger.error({
    message: 'request failed',
    error: errorMessage(error),
  });
  return [500, kubeStatus(500, 'internal error'), {}];
}

function httpMessage(error: HttpException): string {
  const body = error.getResponse();
  if (typeof body === 'string') return body;
  const message = (body as { message?: unknown }).message;
  return Array.isArray(message) ? message.join('; ') : typeof message === 'string' ? message : error.message;
}
