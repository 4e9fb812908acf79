import { Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Registry } from 'prom-client';
import { Public, Unmetered } from '../auth/auth.decorators.js';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { StatusException } from '../http/kube-status.js';
import { BODY_TYPES, mediaType, parseBody, readRawBody } from '../http/request-body.js';
import {
  admissionMetrics,
  reviewOperation,
  reviewOutcome,
  type AdmissionMetrics,
  type ReviewOutcome,
} from './admission-metrics.js';
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
 * Every answer is counted in nginx_admission_reviews_total and timed (admission-metrics.ts).
 */
@Public()
@Unmetered()
@Controller(ADMISSION_PATH.replace(/\/nginxes$/, ''))
export class AdmissionController {
  private inFlight = 0;
  private readonly metrics: AdmissionMetrics;

  constructor(
    @Inject(appConfig.KEY) private readonly config: AppConfig,
    @Inject(Registry) registry: Registry,
  ) {
    this.metrics = admissionMetrics(registry);
  }

  @Post('nginxes')
  @HttpCode(200)
  async review(@Req() req: Request, @Res() res: Response): Promise<void> {
    const started = performance.now();
    let operation = 'unknown';
    let outcome: ReviewOutcome = 'error';
    try {
      if (this.inFlight >= MAX_REVIEWS_IN_FLIGHT)
        throw new StatusException(429, 'too many admission reviews at once', { retryAfterSeconds: 1 });
      this.inFlight++;
      try {
        const body = parseBody(await readRawBody(req, MAX_REVIEW_BYTES), mediaType(req), [BODY_TYPES.json]);
        operation = reviewOperation(body);
        const judged = admissionResponse(body, { imageAllowlist: this.config.imageAllowlist });
        outcome = reviewOutcome(judged);
        if (!judged.ok)
          throw new StatusException(400, `not an admission.k8s.io/v1 AdmissionReview: ${judged.problem}`);
        res.status(200).json(judged.review);
      } finally {
        this.inFlight--;
      }
    } finally {
      this.metrics.observe(operation, outcome, (performance.now() - started) / 1000);
    }
  }
}
