import { readFileSync, statSync } from 'node:fs';
import { silentLogger, type RuntimeLogger } from '@ngx/kube-runtime';
import { IdentityPolicy, parsePolicy, PolicyConfigError } from './identity-policy.js';

/** How often, at most, the file is looked at for a change. */
const CHECK_EVERY_MS = 1_000;

/**
 * AUTH_POLICY_FILE as it is now: read at start (a bad file refuses the start, as any bad setting does), then
 * read again when its modification time or size changes, looked at no more than once a second as identities are
 * resolved. A file that turns bad keeps the policy it had (logged once per change), so a half-saved edit grants
 * nothing new and revokes nothing by accident. Without a file, the policy is empty: identities hold nothing.
 */
export class PolicySource {
  private policy: IdentityPolicy;
  private stamp = '';
  private checkedAt = 0;

  constructor(
    private readonly path: string | undefined,
    private readonly logger: RuntimeLogger = silentLogger,
    private readonly now: () => number = Date.now,
  ) {
    this.policy = new IdentityPolicy([]);
    if (path) this.load(true);
  }

  current(): IdentityPolicy {
    if (this.path && this.now() - this.checkedAt >= CHECK_EVERY_MS) this.load(false);
    return this.policy;
  }

  private load(first: boolean): void {
    this.checkedAt = this.now();
    let stamp: string;
    try {
      const stat = statSync(this.path!);
      stamp = `${stat.mtimeMs}:${stat.size}`;
    } catch (error) {
      if (first)
        throw new PolicyConfigError(
          `AUTH_POLICY_FILE: cannot read ${this.path}: ${(error as Error).message}`,
        );
      stamp = 'missing';
    }
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    try {
      this.policy = new IdentityPolicy(parsePolicy(readFileSync(this.path!, 'utf8'), this.path!));
      if (!first) this.logger.info('reloaded the access policy', { file: this.path });
    } catch (error) {
      if (first) throw error;
      this.logger.error('the access policy file cannot be used: keeping the policy it had', {
        file: this.path,
        error: (error as Error).message,
      });
    }
  }
}
