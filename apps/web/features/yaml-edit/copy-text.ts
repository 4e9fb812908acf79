/** Puts `text` on the clipboard; rejects when the browser refuses (no clipboard API outside a secure context). */
export async function copyText(text: string): Promise<void> {
  if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
  await navigator.clipboard.writeText(text);
}
