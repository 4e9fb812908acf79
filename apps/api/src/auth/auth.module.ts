import { Global, Logger, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { BearerAuthGuard } from './bearer-auth.guard.js';
import { RateLimitGuard } from './rate-limit.guard.js';
import { RequestBudget } from './request-budget.js';
import { SelfReviewController } from './self-review.controller.js';
import { TokenStore, bootstrapAdminToken, configuredTokens } from './token-store.js';

/**
 * Bearer-token authentication and one request budget per token (or, without a valid token, per client address)
 * across every route and the live gateway. Tokens come from AUTH_TOKENS_FILE and/or AUTH_TOKENS; with neither,
 * an admin token is generated once into .data/admin-token (mode 0600). The guards run in the order listed: how
 * often (so a flood of bad tokens is bounded too), then who is calling.
 */
@Global()
@Module({
  controllers: [SelfReviewController],
  providers: [
    RequestBudget,
    {
      provide: TokenStore,
      inject: [appConfig.KEY],
      useFactory: (config: AppConfig) => {
        const logger = new Logger('Auth');
        const { adminTokenPath } = config.auth;
        const entries = configuredTokens(config.auth);
        if (entries.length === 0) {
          const { entry, created } = bootstrapAdminToken(adminTokenPath);
          entries.push(entry);
          logger.log(
            `${created ? 'generated an admin token' : 'using the admin token'} in ${adminTokenPath}: ` +
              `sign in with it, or call the API with "Authorization: Bearer $(cat ${adminTokenPath})"`,
          );
        }
        return new TokenStore(entries);
      },
    },
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: BearerAuthGuard },
  ],
  exports: [TokenStore, RequestBudget],
})
export class AuthModule {}
