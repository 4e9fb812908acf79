import { Global, Logger, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { BearerAuthGuard } from './bearer-auth.guard.js';
import { TokenThrottlerGuard } from './token-throttler.guard.js';
import { TokenStore, bootstrapAdminToken, configuredTokens } from './token-store.js';

/** The window the per-token limit counts requests in. */
const RATE_WINDOW_MS = 10_000;

/**
 * Bearer-token authentication and a per-token rate limit for every route but the open ones. Tokens come from
 * AUTH_TOKENS_FILE and/or AUTH_TOKENS; with neither, an admin token is generated once into .data/admin-token
 * (mode 0600). The guards run in the order listed: who is calling, then how often.
 */
@Global()
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [appConfig.KEY],
      useFactory: (config: AppConfig) => [
        {
          ttl: RATE_WINDOW_MS,
          limit: Math.max(1, Math.round((config.auth.rateLimitPerSecond * RATE_WINDOW_MS) / 1000)),
        },
      ],
    }),
  ],
  providers: [
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
    { provide: APP_GUARD, useClass: BearerAuthGuard },
    { provide: APP_GUARD, useClass: TokenThrottlerGuard },
  ],
  exports: [TokenStore],
})
export class AuthModule {}
