import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { Authenticator } from '../auth/authenticator.js';
import { Authorization } from '../auth/authorization.js';
import { RequestBudget } from '../auth/request-budget.js';
import { credentialOf } from '../auth/session/session-cookies.js';
import { accessRefusal, roleNeeded } from '../auth/roles.js';
import type { FirstHandler } from '../transport/first-handler.js';
import { statusAnswer } from '../http/status-exception.filter.js';
import { ApiServerRelay } from './api-server-relay.js';
import { nginxPath } from './nginx-paths.js';
import { relayedReadOf } from './relayed-read.js';

/**
 * Relayed reads of Nginxes (relayedReadOf: a GET of one, or of a namespace's list, without query) answered
 * ahead of Express and Nest, whose routing, guards and middleware were most of what a relayed GET cost the
 * control plane beyond the hop itself (bench:api). The same checks as the guards, with the same effect: the
 * caller's token is known, may read, and may read that namespace (with AUTHORIZATION=kubernetes: a kept
 * SubjectAccessReview answer allows exactly this read), and then the request spends one from its
 * budget. A request that fails any of them is declined before it spends anything, and Express's routes answer
 * it with their Status (401, 403, 429) as they answer every other route; a request refused by the budget was
 * not counted, so declining it spends nothing twice. The answer is the relay's, as on Express's route.
 */
@Injectable()
export class RelayedReadLane {
  private readonly logger = new Logger('Rest');

  constructor(
    @Inject(Authenticator) private readonly authenticator: Authenticator,
    @Inject(RequestBudget) private readonly budget: RequestBudget,
    @Inject(ApiServerRelay) private readonly relay: ApiServerRelay,
    @Inject(Authorization) private readonly authorization: Authorization,
  ) {}

  readonly handle: FirstHandler = (request, response) => {
    const read = relayedReadOf(request);
    if (!read) return false;
    const caller = this.authenticator.known(credentialOf(request.headers));
    if (!caller) return false;
    const verb = read.name === undefined ? 'list' : 'get';
    const kubernetes = this.authorization.kubernetes;
    // The cluster's RBAC: only an answer still kept that allows it; anything else is asked on Express's route.
    const allowed = kubernetes
      ? kubernetes.knownAllowed(caller, {
          verb,
          namespace: read.namespace,
          ...(read.name !== undefined ? { name: read.name } : {}),
        })
      : accessRefusal(caller, roleNeeded(verb, undefined)!, { namespace: read.namespace }) === undefined;
    if (!allowed) return false;
    if (!this.budget.take({ token: caller.name }).allowed) return false;
    this.relay
      .pipe({ path: nginxPath(read.namespace, read.name), accept: request.headers.accept }, response)
      .catch((error: unknown) => this.answerError(error, response));
    return true;
  };

  /**
   * What StatusExceptionFilter answers on Express's route. It never throws: it runs in a promise's `catch`, where
   * a throw would be an unhandled rejection; a response it cannot write is cut instead.
   */
  private answerError(error: unknown, response: ServerResponse): void {
    try {
      if (response.headersSent) {
        response.end();
        return;
      }
      const [code, body, headers] = statusAnswer(error, this.logger);
      const text = JSON.stringify(body);
      response
        .writeHead(code, {
          ...headers,
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Length': Buffer.byteLength(text),
        })
        .end(text);
    } catch {
      response.destroy();
    }
  }
}
