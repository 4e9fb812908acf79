import { Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { StatusException } from '../http/kube-status.js';
import { BODY_TYPES, mediaType, parseBody, readRawBody } from '../http/request-body.js';
import { RequiresRole } from './auth.decorators.js';
import { Authorization } from './authorization.js';
import { callerOf } from './bearer-auth.guard.js';
import { unavailable } from './kubernetes/access-decisions.js';
import { decodeReview, PROTOBUF } from './review-protobuf.js';
import { clusterQuestion, reviewAccess, userInfo, type ResourceAttributes } from './self-review.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The body of a review: JSON, YAML, or Kubernetes protobuf (what kubectl sends for built-in kinds), parsed and
 * checked to be the kind it must be (400 otherwise).
 */
async function reviewBody(
  request: Request,
  apiVersion: string,
  kind: string,
): Promise<Record<string, unknown>> {
  const raw = await readRawBody(request);
  const type = mediaType(request);
  let body: unknown;
  if (type === PROTOBUF) {
    try {
      body = decodeReview(raw);
    } catch (error) {
      throw new StatusException(
        400,
        `the request body is not a valid protobuf ${kind}: ${(error as Error).message}`,
      );
    }
  } else body = parseBody(raw, type, [BODY_TYPES.json, BODY_TYPES.yaml, PROTOBUF]);
  if (!isObject(body) || body.apiVersion !== apiVersion || body.kind !== kind)
    throw new StatusException(400, `the body must be a ${apiVersion} ${kind}`);
  return body;
}

/**
 * `kubectl auth can-i` and `kubectl auth whoami` against the control plane: SelfSubjectAccessReview and
 * SelfSubjectReview answered from our own tokens and roles (the rules the REST layer enforces), not the app's
 * service account's; with AUTHORIZATION=kubernetes, from the same SubjectAccessReviews (and their kept answers)
 * that authorize the caller's requests. Any signed-in caller may ask about itself.
 */
@Controller('apis')
export class SelfReviewController {
  constructor(@Inject(Authorization) private readonly authorization: Authorization) {}

  @Post('authorization.k8s.io/v1/selfsubjectaccessreviews')
  @RequiresRole('viewer')
  @HttpCode(201)
  async accessReview(@Req() request: Request) {
    const body = await reviewBody(request, 'authorization.k8s.io/v1', 'SelfSubjectAccessReview');
    const spec = isObject(body.spec) ? body.spec : {};
    if (!isObject(spec.resourceAttributes))
      return { ...body, status: { allowed: false, reason: 'this control plane answers only for resources' } };
    const raw = spec.resourceAttributes;
    const attributes: ResourceAttributes = {};
    for (const field of ['namespace', 'verb', 'group', 'resource', 'subresource', 'name'] as const)
      if (Object.hasOwn(raw, field) && typeof raw[field] === 'string') attributes[field] = raw[field];
    const caller = callerOf(request)!;
    const kubernetes = this.authorization.kubernetes;
    if (!kubernetes) return { ...body, status: reviewAccess(caller, attributes) };
    const question = clusterQuestion(attributes);
    if ('allowed' in question) return { ...body, status: question };
    try {
      return { ...body, status: await kubernetes.answer(caller, question) };
    } catch (error) {
      throw new StatusException(503, unavailable(error).message);
    }
  }

  @Post('authentication.k8s.io/v1/selfsubjectreviews')
  @RequiresRole('viewer')
  @HttpCode(201)
  async selfReview(@Req() request: Request) {
    const body = await reviewBody(request, 'authentication.k8s.io/v1', 'SelfSubjectReview');
    return { ...body, status: { userInfo: userInfo(callerOf(request)!) } };
  }
}
