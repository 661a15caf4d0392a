import t from 'tap';
import { renderAnswer } from '../../../queries/chatbot/answer-html.js';

const sup = (n: number) => `<sup><a href="#chatbot-source-${n}" class="chatbot-citation">${n}</a></sup>`;

t.test('markers become superscript links; cited in order of first appearance', async (t) => {
  const { html, cited } = renderAnswer('Maps came first [2]. Then violins [1]. Maps again [2].', 3);
  t.equal(html, `<p>Maps came first ${sup(2)}. Then violins ${sup(1)}. Maps again ${sup(2)}.</p>`);
  t.same(cited, [2, 1]);
});

t.test('text is escaped, markers are not', async (t) => {
  const { html } = renderAnswer('Use <script>alert("x")</script> & more [1]', 1);
  t.equal(html, `<p>Use &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more ${sup(1)}</p>`);
});

t.test('markers citing missing evidence are dropped', async (t) => {
  const { html, cited } = renderAnswer('Real [1]. Invented [7]. Zero [0].', 2);
  t.equal(html, `<p>Real ${sup(1)}. Invented. Zero.</p>`);
  t.same(cited, [1]);
});

t.test('a list marker cites each number', async (t) => {
  const { html, cited } = renderAnswer('Both [2, 1].', 2);
  t.equal(html, `<p>Both ${sup(2)}${sup(1)}.</p>`);
  t.same(cited, [2, 1]);
});

t.test('paragraphs and line breaks', async (t) => {
  t.equal(renderAnswer('One\r\n\r\nTwo\nlines\n\n\n', 0).html, '<p>One</p><p>Two<br>lines</p>');
  t.equal(renderAnswer('', 0).html, '');
});
