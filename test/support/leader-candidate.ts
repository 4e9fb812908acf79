// A leader-election candidate process for the integration tests: prints "CANDIDATE <id>" as it starts competing,
// "LEADER <id>" when it starts leading and "STOPPED <id>" when it stops. Usage: tsx leader-candidate.ts <lease-name> <identity>
import { LeaderElector } from '../../libs/kube-runtime/src/index.js';
import { runtimeClient } from './runtime.js';

const [leaseName, identity] = process.argv.slice(2);
const client = runtimeClient();
const abort = new AbortController();
process.on('SIGTERM', () => abort.abort());

const elector = new LeaderElector({
  client,
  namespace: 'default',
  name: leaseName!,
  identity: identity!,
  leaseDurationMs: 4000,
  renewDeadlineMs: 3000,
  retryPeriodMs: 500,
  // Leads until the term ends, as a controller would (work that returns early steps down).
  onStartedLeading: ({ signal }) => {
    console.log(`LEADER ${identity}`);
    return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  },
  onStoppedLeading: () => console.log(`STOPPED ${identity}`),
});
// Said before the first attempt, so a test knows this candidate is competing from now on.
console.log(`CANDIDATE ${identity}`);
await elector.run(abort.signal);
client.close();
