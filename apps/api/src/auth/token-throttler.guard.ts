import { Injectable, type ExecutionContext } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import type { Request } from 'express';
import { StatusError } from '../rest/kube-status.js';
import { PUBLIC } from './auth.decorators.js';
import { callerOf } from './bearer-auth.guard.js';

/**
 * Per-token rate limit (NestJS's throttler, keyed by the token's name rather than the client address): runs
 * after BearerAuthGuard, skips the open probe and metrics routes, and answers 429 as a `Status` with
 * `Retry-After` (set by the throttler before it refuses).
 */
@Injectable()
export class TokenThrottlerGuard extends ThrottlerGuard {
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true; // socket.io messages: coalesced by the gateway instead
    return Boolean(
      this.reflector.getAllAndOverride<boolean>(PUBLIC, [context.getHandler(), context.getClass()]),
    );
  }

  protected override async getTracker(req: Record<string, unknown>): Promise<string> {
    return callerOf(req as unknown as Request)?.name ?? String(req.ip);
  }

  protected override async throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const seconds = Math.max(1, detail.timeToBlockExpire);
    throw new StatusError(
      429,
      `too many requests for token ${detail.tracker}: at most ${detail.limit} per ${detail.ttl / 1000} s; retry in ${seconds} s`,
      { retryAfterSeconds: seconds },
      { 'Retry-After': String(seconds) },
    );
  }
}
