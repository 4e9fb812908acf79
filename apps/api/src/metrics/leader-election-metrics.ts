import { Gauge, type Registry } from 'prom-client';

const gauges = new WeakMap<Registry, Gauge>();

/**
 * client-go's leader_election_master_status{name}: 1 while this process holds the Lease `name`, 0 while it stands
 * by. Returns the setter for that Lease.
 */
export function leaderElectionStatus(registry: Registry, name: string): (leading: boolean) => void {
  let gauge = gauges.get(registry);
  if (!gauge) {
    gauge = new Gauge({
      name: 'leader_election_master_status',
      help: '1 while this process holds the Lease `name`, 0 while it stands by.',
      labelNames: ['name'],
      registers: [registry],
    });
    gauges.set(registry, gauge);
  }
  const status = gauge;
  status.set({ name }, 0);
  return (leading) => status.set({ name }, leading ? 1 : 0);
}
