// The constant is shared with the UI, which builds its request paths from it.
export { CONTROLPLANE_API_VERSION } from '@ngx/nginx-api';
