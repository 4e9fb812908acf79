import type { Request, Response } from 'express';
import { StatusException } from '../../http/kube-status.js';

const escape = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** A refused sign-in as a page a person can read (same status code), with the way back to the sign-in page. */
export function refusalPage(status: StatusException): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><title>Sign-in refused</title></head>',
    '<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem">',
    `<h1>Sign-in refused (${status.code})</h1>`,
    `<p>${escape(status.message)}</p>`,
    '<p><a href="/sign-in">Back to sign in</a></p>',
    '</body></html>',
  ].join('\n');
}

/**
 * Runs a browser-facing step of the sign-in; a Status it throws is answered as a page to a browser navigating
 * there (it asked for HTML) and as the Status itself to anything else (the exception filter).
 */
export async function asBrowserPage(request: Request, response: Response, step: () => Promise<void>) {
  try {
    await step();
  } catch (error) {
    if (!(error instanceof StatusException) || request.accepts(['json', 'html']) !== 'html') throw error;
    response.status(error.code).type('html').set('Cache-Control', 'no-store').send(refusalPage(error));
  }
}
