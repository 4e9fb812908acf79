import { Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public, Unmetered } from '../auth/auth.decorators.js';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { StatusException } from '../http/kube-status.js';
import { BODY_TYPES, mediaType, parseBody, readRawBody } from '../http/request-body.js';
import { admissionResponse } from './admission-review.js';
import { ADMISSION_PATH } from './webhook-configuration.js';

/**
 * Largest AdmissionReview read: an UPDATE carries the object and the old one, each at most kube-apiserver's
 * 3 MiB request limit, plus the request's metadata.
 */
export const MAX_REVIEW_BYTES = 8 * 1024 * 1024;
/**
 * Reviews read at once; more are answered 429 unread (kube-apiserver applies `failurePolicy: Ignore` and the
 * controller's check remains), so a flood holds at most this many bodies in memory.
 */
export const MAX_REVIEWS_IN_FLIGHT = 32;

/**
 * `POST /controlplane/v1/admission/nginxes`: kube-apiserver's validating admission webhook for Nginxes. No token
 * is taken (kube-apiserver sends none) and no request budget spent: the route only judges the object it is given
 * (admission-review.ts), reads and changes nothing, and answers a body that is no AdmissionReview with 400.
 */
@Public()
@Unmetered()
@Controller(ADMISSION_PATH.replace(/\/nginxes$/, ''))
export class AdmissionController {
  private inFlight = 0;

  constructor(@Inject(appConfig.KEY) private readonly config: AppConfig) {}

  @Post('nginxes')
  @HttpCode(200)
  async review(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (this.inFlight >= MAX_REVIEWS_IN_FLIGHT)
      throw new StatusException(429, 'too many admission reviews at once', { retryAfterSeconds: 1 });
    this.inFlight++;
    try {
      const body = parseBody(await readRawBody(req, MAX_REVIEW_BYTES), mediaType(req), [BODY_TYPES.json]);
      const outcome = admissionResponse(body, { imageAllowlist: this.config.imageAllowlist });
      if (!outcome.ok)
        throw new StatusException(400, `not an admission.k8s.io/v1 AdmissionReview: ${outcome.problem}`);
      res.status(200).json(outcome.review);
    } finally {
      this.inFlight--;
    }
  }
}
