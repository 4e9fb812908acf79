import type { Metadata } from 'next';
import { Suspense } from 'react';
import { SignInForm } from '../../components/shell/sign-in-form';
import { Skeleton } from '../../components/ui/skeleton';

export const metadata: Metadata = { title: 'Sign in' };

export default function SignInPage() {
  return (
    <Suspense fallback={<Skeleton rows={4} />}>
      <SignInForm />
    </Suspense>
  );
}
