// Prisma CLI configuration for commands run from the repository's root (npx prisma …, tools/db/*.sh): the API's,
// next to the code that opens the same databases.
export { default } from './apps/api/src/config/prisma-config.js';
