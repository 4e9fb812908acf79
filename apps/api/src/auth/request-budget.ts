import { Inject, Injectable } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { appConfig, type AppConfig } from '../config/app-config.js';

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
 * floods and the public /readyz are bounded too). Counted over 10 s windows in NestJS's throttler storage; a
 * spender past its budget is refused until the window's end.
 */
@Injectable()
export class RequestBudget {
  constructor(
    @Inject(ThrottlerStorage) private readonly storage: ThrottlerStorage,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {}

  async take(spender: Spender): Promise<BudgetAnswer> {
    const [key, rps] =
      'token' in spender
        ? [`token:${spender.token}`, this.config.auth.rateLimitPerSecond]
        : [`address:${spender.address}`, this.config.auth.anonymousRateLimitPerSecond];
    const limit = Math.max(1, Math.round((rps * BUDGET_WINDOW_MS) / 1000));
    const record = await this.storage.increment(key, BUDGET_WINDOW_MS, limit, BUDGET_WINDOW_MS, 'budget');
    if (!record.isBlocked) return { allowed: true };
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil(record.timeToBlockExpire)),
      limit,
      windowSeconds: BUDGET_WINDOW_MS / 1000,
      spender: key,
    };
  }
}
