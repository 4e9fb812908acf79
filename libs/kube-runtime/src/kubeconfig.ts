/**
 * client-node's kubeconfig loader (`loadFromDefault`, `loadFromFile`, `applyToHTTPSOptions` with every
 * authenticator it supports: token files, client certificates, exec plugins, OIDC, cloud providers), imported
 * from its own module rather than the package's index.
 *
 * The package's index, and `dist/config.js` through it, loads every generated API client and model: 27 MB of
 * heap and about 60 MB of RSS in a controller that uses none of them. The build (bundle-kubeconfig.mjs) turns
 * this module into one file holding `KubeConfig` and only what it reaches, so the running app never loads the
 * generated code. Types stay client-node's own.
 */
export { KubeConfig } from '@kubernetes/client-node/dist/config.js';
