import { trace, type Tracer } from '@opentelemetry/api';

/** The instrumentation scope of every span this app makes. */
export const TRACER_NAME = 'nginx-control-plane';

/** The app's tracer from the registered provider (a no-op one when tracing is off). */
export function appTracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}
