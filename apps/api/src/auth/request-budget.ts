import { Inject, Injectable } from '@nestjs/common';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { SlidingWindowBudget } from './sliding-window-budget.js';

/** Whose budget a request spends: a token's (by its name), or — without a valid token — its client address's. */
export type Spender = { token: string } | { address: string };

export type BudgetAnswer =
  | { allowed: true }
  | { allowed: false; retryAfterSeconds: number; limit: number; windowSeconds: number; spender: string };

/** The window requests are counted in (a budget is `rps × window` requests per window). */
export const BUDGET_WINDOW_MS = 10_000;

/**
 * One request budget per spender, shared by every HTTP route and the live gateway's handshakes and messages:
 * a token gets `RATE_LIMIT_RPS` on average, an address without a valid token `ANON_RATE_LIMIT_RPS` (so 401
 * floods and the public /readyz are bounded too). At most `rps × 10` requests in any 10 s (SlidingWindowBudget); a
 * spender past its budget is refused for the next 10 s.
 */
@Injectable()
export class RequestBudget {
  private readonly window = new SlidingWindowBudget(BUDGET_WINDOW_MS);

  constructor(@Inject(appConfig.KEY) private readonly config: AppConfig) {}

  take(spender: Spender): BudgetAnswer {
    const [key, rps] =
      'token' in spender
        ? [`token:${spender.token}`, this.config.auth.rateLimitPerSecond]
        : [`address:${spender.address}`, this.config.auth.anonymousRateLimitPerSecond];
    const limit = Math.max(1, Math.round((rps * BUDGET_WINDOW_MS) / 1000));
    const answer = this.window.take(key, limit, Date.now());
    if (answer.allowed) return answer;
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil(answer.retryAfterMs / 1000)),
      limit,
      windowSeconds: BUDGET_WINDOW_MS / 1000,
      spender: key,
    };
  }
}
