/** A setting the app cannot run with: it refuses to start, saying which and why. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
