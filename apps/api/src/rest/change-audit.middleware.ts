import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { callerOf } from '../auth/bearer-auth.guard.js';
import { answeredStatus, kubeStatus } from '../http/kube-status.js';
import { attachAttempt, attemptOf, WriteAttempt, type WriteOutcome } from './write-attempt.js';

/**
 * Gives every write request to an Nginx its WriteAttempt before any guard runs, and records it in the change
 * audit exactly once, when the response is over and the handler (if it got the request) is done: so a write
 * refused by the namespace guard or the rate limit, a bad path, a bad body, the API server, or cut off by the
 * client is recorded with its true outcome. Only authenticated callers' writes are recorded (a 401 names no
 * actor), and dry runs are not (they change nothing).
 */
@Injectable()
export class ChangeAuditMiddleware implements NestMiddleware {
  constructor(@Inject(AuditTrail) private readonly audit: AuditTrail) {}

  use(request: Request, response: Response, next: NextFunction): void {
    // Nest applies the middleware once per route that matches, and an `@All` route overlaps the others.
    if (attemptOf(request)) return next();
    const attempt = WriteAttempt.of(request);
    if (attempt) {
      attachAttempt(request, attempt);
      response.once('close', () => void this.recordWhenDone(attempt, request, response));
    }
    next();
  }

  private async recordWhenDone(attempt: WriteAttempt, request: Request, response: Response): Promise<void> {
    await attempt.handling?.catch(() => {});
    const caller = callerOf(request);
    if (!caller || attempt.dryRun) return;
    const outcome = attempt.outcome ?? answered(response);
    for (const record of attempt.records(caller, outcome, request.headers['user-agent']))
      this.audit.change(record);
  }
}

/** What the control plane answered a write its handler never took up (or failed without an answer). */
function answered(response: Response): WriteOutcome {
  if (!response.headersSent)
    return { code: 499, answer: kubeStatus(499, 'the client closed the request before it was answered') };
  return { code: response.statusCode, answer: answeredStatus(response.locals) };
}
