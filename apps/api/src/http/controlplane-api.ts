/** The version of the control plane's own API: its path prefix (`/controlplane/v1/...`) and its objects' `apiVersion`. */
export const CONTROLPLANE_API_VERSION = 'controlplane/v1';
