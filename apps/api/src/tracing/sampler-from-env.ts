import { diag } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';

const DEFAULT = 'parentbased_always_on';

/** OTEL_TRACES_SAMPLER_ARG as a ratio in [0, 1]; 1 when unset, blank or out of range (reported). */
function ratio(arg: string | undefined): number {
  if (arg === undefined || arg.trim() === '') return 1;
  const value = Number(arg);
  if (Number.isFinite(value) && value >= 0 && value <= 1) return value;
  diag.error(`OTEL_TRACES_SAMPLER_ARG=${arg} is not a ratio in [0..1], using 1`);
  return 1;
}

/**
 * The sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name, as the SDK's environment variables specify
 * them: always_on, always_off, traceidratio, parentbased_always_off or parentbased_traceidratio; undefined for
 * parentbased_always_on, the default (also for an unknown value, which is reported), which the LeanTracer decides
 * without a sampler.
 */
export function samplerFromEnv(env: Record<string, string | undefined> = process.env): Sampler | undefined {
  const name = env.OTEL_TRACES_SAMPLER?.trim() || DEFAULT;
  const parentBased = (root: Sampler) => new ParentBasedSampler({ root });
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio(env.OTEL_TRACES_SAMPLER_ARG));
    case 'parentbased_always_off':
      return parentBased(new AlwaysOffSampler());
    case 'parentbased_traceidratio':
      return parentBased(new TraceIdRatioBasedSampler(ratio(env.OTEL_TRACES_SAMPLER_ARG)));
    case DEFAULT:
      return undefined;
    default:
      diag.error(`OTEL_TRACES_SAMPLER=${name} is not a sampler this app knows, using ${DEFAULT}`);
      return undefined;
  }
}
