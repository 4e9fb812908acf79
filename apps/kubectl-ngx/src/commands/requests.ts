import type { Nginx } from '@ngx/nginx-api';
import { CliError } from '../cli-error.js';
import type { Connection } from '../connection.js';
import type { NginxDoor } from '../nginx-door.js';
import { patchNginx, readNginx } from '../nginx-client.js';
import { nginxRef, type Output } from '../output.js';

/** `promote NAME [--full]`. */
export async function promote(
  { namespace }: Connection,
  door: NginxDoor,
  [name]: string[],
  flags: { full?: boolean },
  output: Output,
): Promise<number> {
  await door.promote(namespace, name!, flags.full === true);
  output.out(`${nginxRef(name!)} promoted${flags.full ? ' (full)' : ''}`);
  return 0;
}

/** `abort NAME`. */
export async function abort(
  { namespace }: Connection,
  door: NginxDoor,
  [name]: string[],
  _flags: object,
  output: Output,
): Promise<number> {
  await door.abort(namespace, name!);
  output.out(`${nginxRef(name!)} aborted`);
  return 0;
}

/** `pause NAME` / `resume NAME`: spec.paused, refused as kubectl refuses pausing a paused Deployment. */
export function pauseOrResume(paused: boolean) {
  return async (
    { client, namespace }: Connection,
    _door: NginxDoor,
    [name]: string[],
    _flags: object,
    output: Output,
  ) => {
    const nginx: Nginx = await readNginx(client, namespace, name!);
    if ((nginx.spec.paused === true) === paused)
      throw new CliError(`nginxes.mycompany.com "${name}" is ${paused ? 'already' : 'not'} paused`);
    await patchNginx(client, namespace, name!, {
      metadata: { resourceVersion: nginx.metadata.resourceVersion },
      spec: { paused: paused ? true : null },
    });
    output.out(`${nginxRef(name!)} ${paused ? 'paused' : 'resumed'}`);
    return 0;
  };
}

/** `set image NAME IMAGE` (or `nginx=IMAGE`, the container's name, as kubectl set image takes it). */
export async function setImage(
  { client, namespace }: Connection,
  _door: NginxDoor,
  [, name, image]: string[],
  _flags: object,
  output: Output,
): Promise<number> {
  const value = image!.startsWith('nginx=') ? image!.slice('nginx='.length) : image!;
  if (value === '' || /=/.test(value))
    throw new CliError(`"${image}" is not an image: give IMAGE or nginx=IMAGE`);
  await patchNginx(client, namespace, name!, { spec: { image: value } });
  output.out(`${nginxRef(name!)} image updated`);
  return 0;
}

/** `restart NAME`: spec.restartedAt to now, which rolls every pod by the strategy. */
export async function restart(
  { client, namespace }: Connection,
  _door: NginxDoor,
  [name]: string[],
  _flags: object,
  output: Output,
): Promise<number> {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  await patchNginx(client, namespace, name!, { spec: { restartedAt: now } });
  output.out(`${nginxRef(name!)} restarted`);
  return 0;
}
