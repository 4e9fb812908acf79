import { describe, expect, it } from 'vitest';
import { StatusException } from '../../http/kube-status.js';
import { refusalPage } from './refusal-page.js';

describe('refusalPage', () => {
  it('says why with the code, escaped, and links back to the sign-in page', () => {
    const page = refusalPage(new StatusException(401, 'Unauthorized: <script>alert("x")</script> & more'));
    expect(page).toContain('Sign-in refused (401)');
    expect(page).toContain('Unauthorized: &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more');
    expect(page).not.toContain('<script>');
    expect(page).toContain('<a href="/sign-in">Back to sign in</a>');
  });
});
