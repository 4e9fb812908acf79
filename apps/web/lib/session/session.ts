'use client';

import type { Identity } from '@ngx/nginx-api';

import { useSyncExternalStore } from 'react';

/**
 * The signed-in token lives in sessionStorage only: it is gone when the tab closes, is never written to
 * localStorage or a cookie, and is not shared with other tabs.
 */
const TOKEN_KEY = 'ngx.token';
/** Why the last session ended (shown once on the sign-in page). */
const NOTICE_KEY = 'ngx.signed-out-notice';

export type { Identity };
export type Role = Identity['role'];

const listeners = new Set<() => void>();

function storage(): Storage | undefined {
  try {
    return typeof window === 'undefined' ? undefined : window.sessionStorage;
  } catch {
    return undefined; // storage disabled by the browser
  }
}

export function readToken(): string | null {
  return storage()?.getItem(TOKEN_KEY) ?? null;
}

export function saveToken(token: string): void {
  storage()?.setItem(TOKEN_KEY, token);
  storage()?.removeItem(NOTICE_KEY);
  listeners.forEach((listener) => listener());
}

/** Forgets the token; `notice` is shown on the sign-in page (e.g. "Your token was refused"). */
export function clearToken(notice?: string): void {
  storage()?.removeItem(TOKEN_KEY);
  if (notice) storage()?.setItem(NOTICE_KEY, notice);
  listeners.forEach((listener) => listener());
}

/** The reason the last session ended, read once. */
export function takeSignOutNotice(): string | null {
  const notice = storage()?.getItem(NOTICE_KEY) ?? null;
  storage()?.removeItem(NOTICE_KEY);
  return notice;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => event.key === TOKEN_KEY && listener();
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

/** The stored token: undefined while not yet known (server render and hydration), null when signed out. */
export function useToken(): string | null | undefined {
  return useSyncExternalStore<string | null | undefined>(subscribe, readToken, () => undefined);
}

export { canWrite } from './permissions';
