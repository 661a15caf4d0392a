/**
 * Comment bodies come from anonymous visitors. They are stored exactly as written, and every
 * response carries them as text: `&`, `<` and `>` escaped, so a page that inserts the value as
 * HTML shows the characters and never runs markup. Quotes are left alone (bodies are element
 * content, not attribute values), so ordinary prose reads the same.
 */
export function commentBodyAsText(body: string): string {
  return body.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
