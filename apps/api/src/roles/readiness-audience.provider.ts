import type { Provider } from '@nestjs/common';
import { Authenticator } from '../auth/authenticator.js';
import { credentialOf } from '../auth/session/session-cookies.js';
import { ReadinessAudience } from '../health/readiness-ports.js';

/** /readyz's details for callers whose token the API knows without asking anyone (a static or recent token). */
export const readinessAudience: Provider = {
  provide: ReadinessAudience,
  inject: [Authenticator],
  useFactory: (authenticator: Authenticator): ReadinessAudience => ({
    mayReadDetails: (request) => authenticator.known(credentialOf(request.headers)) !== undefined,
  }),
};
