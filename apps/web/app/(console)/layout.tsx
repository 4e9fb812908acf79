import type { ReactNode } from 'react';
import { RequireSession } from '../../components/shell/require-session';

/** Every page but sign-in needs a session. */
export default function ConsoleLayout({ children }: { children: ReactNode }) {
  return <RequireSession>{children}</RequireSession>;
}
