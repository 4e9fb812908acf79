import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { StatusException } from '../http/kube-status.js';
import { UNMETERED } from './auth.decorators.js';
import { Authenticator } from './authenticator.js';
import { RequestBudget, type BudgetAnswer } from './request-budget.js';
import { credentialOf } from './session/session-cookies.js';

/**
 * The first guard: every HTTP request spends from its caller's budget (RequestBudget) before anything else
 * runs — the token's when it carries a valid one, else its client address's — and past it is answered 429 with
 * `Retry-After`, as a `Status`. Only routes marked @Unmetered (the liveness probe) are free.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(Authenticator) private readonly authenticator: Authenticator,
    @Inject(RequestBudget) private readonly budget: RequestBudget,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true; // the live gateway spends from the same budget itself
    if (this.reflector.getAllAndOverride<boolean>(UNMETERED, [context.getHandler(), context.getClass()]))
      return true;
    const request = context.switchToHttp().getRequest<Request>();
    const spender = this.authenticator.spender(credentialOf(request.headers));
    const answer = this.budget.take(
      spender ? { token: spender } : { address: request.ip ?? request.socket.remoteAddress ?? 'unknown' },
    );
    if (!answer.allowed) throw tooManyRequests(answer);
    return true;
  }
}

export function tooManyRequests(answer: Exclude<BudgetAnswer, { allowed: true }>): StatusException {
  const seconds = answer.retryAfterSeconds;
  return new StatusException(
    429,
    `too many requests for ${answer.spender}: at most ${answer.limit} per ${answer.windowSeconds} s; retry in ${seconds} s`,
    { retryAfterSeconds: seconds },
    { 'Retry-After': String(seconds) },
  );
}
