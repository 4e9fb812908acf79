import { Global, Logger, Module } from '@nestjs/common';
import { KubeClient } from '@ngx/kube-runtime';
import { APP_GUARD } from '@nestjs/core';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { Authenticator } from './authenticator.js';
import { Authorization } from './authorization.js';
import { AccessDecisions } from './kubernetes/access-decisions.js';
import { KubernetesAuthorizer } from './kubernetes/kubernetes-authorizer.js';
import { SubjectAccessReviews } from './kubernetes/subject-access-reviews.js';
import { BearerAuthGuard } from './bearer-auth.guard.js';
import { OidcTokenVerifier } from './oidc/oidc-token-verifier.js';
import { PolicySource } from './policy-source.js';
import { OidcSignIn } from './session/oidc-sign-in.js';
import { PendingSignIns } from './session/pending-sign-ins.js';
import { SessionController } from './session/session.controller.js';
import { SessionStore } from './session/session-store.js';
import { PendingSignInRecords, SessionRecords } from './session/session-records.js';
import { ServiceAccountTokens } from './service-account-tokens.js';
import { nestRuntimeLogger } from '../logging/runtime-logger.js';
import { RateLimitGuard } from './rate-limit.guard.js';
import { RequestBudget } from './request-budget.js';
import { SelfReviewController } from './self-review.controller.js';
import { TokenStore, bootstrapAdminToken, configuredTokens } from './token-store.js';

/**
 * Bearer-token authentication and one request budget per token (or, without a valid token, per client address)
 * across every route and the live gateway. Static tokens come from AUTH_TOKENS_FILE and/or AUTH_TOKENS; with
 * neither, an admin token is generated once into .data/admin-token (mode 0600). ID tokens of the OpenID provider
 * (OIDC_*) and ServiceAccount tokens for TOKEN_AUDIENCE are taken too, with the roles AUTH_POLICY_FILE grants
 * their users and groups (Authenticator), or with AUTHORIZATION=kubernetes whatever the cluster's RBAC allows them
 * (Authorization: SubjectAccessReviews). Browser sessions and sign-ins under way are kept where every replica
 * reads them (SessionRecords and PendingSignInRecords, provided over the audit database). The guards run in the
 * order listed: how
 * often (so a flood of bad tokens is bounded too), then who is calling.
 */
@Global()
@Module({
  controllers: [SelfReviewController, SessionController],
  providers: [
    RequestBudget,
    {
      provide: PendingSignIns,
      inject: [PendingSignInRecords],
      useFactory: (records: PendingSignInRecords) => new PendingSignIns(records),
    },
    {
      provide: OidcTokenVerifier,
      inject: [appConfig.KEY],
      useFactory: (config: AppConfig) => (config.auth.oidc ? new OidcTokenVerifier(config.auth.oidc) : null),
    },
    {
      provide: OidcSignIn,
      inject: [appConfig.KEY, OidcTokenVerifier],
      useFactory: (config: AppConfig, verifier: OidcTokenVerifier | null) =>
        config.auth.oidc && verifier
          ? new OidcSignIn(config.auth.oidc, (idToken) => verifier.verify(idToken))
          : null,
    },
    {
      provide: SessionStore,
      inject: [appConfig.KEY, OidcSignIn, SessionRecords],
      useFactory: (config: AppConfig, signIn: OidcSignIn | null, records: SessionRecords) =>
        new SessionStore(records, {
          maxAgeMs: (config.auth.oidc?.sessionMaxAgeSeconds ?? 0) * 1000,
          ...(signIn ? { renew: signIn.renew } : {}),
        }),
    },
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
    {
      provide: Authenticator,
      inject: [TokenStore, KubeClient, appConfig.KEY, OidcTokenVerifier, SessionStore],
      useFactory: (
        tokens: TokenStore,
        client: KubeClient,
        config: AppConfig,
        verifier: OidcTokenVerifier | null,
        sessions: SessionStore,
      ) => {
        const logger = nestRuntimeLogger(new Logger('Auth'));
        const { oidc, policyFile, tokenAudience, authorization } = config.auth;
        const rbac = authorization.mode === 'kubernetes';
        return new Authenticator(tokens, new PolicySource(policyFile, logger), {
          ...(oidc && verifier ? { oidc: { verifier, issuer: oidc.issuerUrl } } : {}),
          sessions,
          ...(tokenAudience ? { serviceAccounts: new ServiceAccountTokens(client, tokenAudience) } : {}),
          rbac,
          logger,
        });
      },
    },
    {
      provide: Authorization,
      inject: [KubeClient, appConfig.KEY],
      useFactory: (client: KubeClient, config: AppConfig) => {
        const settings = config.auth.authorization;
        if (settings.mode === 'roles') return new Authorization();
        const reviews = new SubjectAccessReviews(client);
        const decisions = new AccessDecisions(reviews.review, { ttlMs: settings.cacheMs });
        return new Authorization(new KubernetesAuthorizer(decisions));
      },
    },
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: BearerAuthGuard },
  ],
  exports: [TokenStore, Authenticator, Authorization, RequestBudget, SessionStore],
})
export class AuthModule {}
