import { escapeHtml } from '../../infra/text/html.js';

/** `[3]`, or a list such as `[1, 2]` that some models write. */
const MARKER = /\[(\d+(?:\s*,\s*\d+)*)\]/g;

export interface RenderedAnswer {
  html: string;
  /** Evidence numbers in the order their markers first appear. */
  cited: number[];
}

function citationLink(n: number): string {
  return `<sup><a href="#chatbot-source-${n}" class="chatbot-citation">${n}</a></sup>`;
}

/**
 * Turns the answerer's plain text into escaped paragraph HTML: blank lines separate paragraphs,
 * single line breaks become <br>, and each [N] citing existing evidence becomes a superscript
 * link. A marker citing evidence that does not exist is dropped.
 */
export function renderAnswer(answer: string, evidenceCount: number): RenderedAnswer {
  const cited: number[] = [];
  const renderParagraph = (paragraph: string): string => {
    let html = '';
    let last = 0;
    for (const match of paragraph.matchAll(MARKER)) {
      let before = paragraph.slice(last, match.index);
      const numbers = match[1]
        .split(',')
        .map((n) => Number(n.trim()))
        .filter((n) => Number.isInteger(n) && n >= 1 && n <= evidenceCount);
      // A dropped marker takes the space before it along, so no gap is left before the full stop.
      if (numbers.length === 0) before = before.replace(/[ \t]+$/, '');
      html += escapeHtml(before).replace(/\n/g, '<br>');
      for (const n of numbers) {
        if (!cited.includes(n)) cited.push(n);
        html += citationLink(n);
      }
      last = (match.index ?? 0) + match[0].length;
    }
    html += escapeHtml(paragraph.slice(last)).replace(/\n/g, '<br>');
    return `<p>${html}</p>`;
  };
  const paragraphs = answer
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  return { html: paragraphs.map(renderParagraph).join(''), cited };
}
