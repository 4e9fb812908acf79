import { NGINX_GROUP } from '@ngx/nginx-api';

/** Where a command writes: standard output and standard error, a line at a time. */
export interface Output {
  out(line: string): void;
  err(line: string): void;
}

/** How kubectl names one object in what it prints: `nginx.mycompany.com/web`. */
export const nginxRef = (name: string) => `nginx.${NGINX_GROUP}/${name}`;
