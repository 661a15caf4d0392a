/*
 * Collection chat panel. Embed with:
 *   <div data-collection-chat data-site-slug="main"></div>
 *   <script src="{base_url}/chat-widget.js" defer></script>
 * Optional container attributes: data-site-slug (source URLs become /s/{slug}/...), data-site-id
 * (only that site's resources), data-item-set-ids (comma-separated item set ids).
 *
 * Plain browser JavaScript, no framework, and no request to any server but the one that served
 * this file (POST /chatbot/api/chat there). Each panel lives in its own shadow root, so the host
 * page's CSS cannot reach it and its CSS cannot reach the host page; several panels on one page
 * are independent. The server's answer_html is the only HTML shown, and only its paragraphs,
 * line breaks and citation links are kept; titles, snippets and messages are inserted as text.
 */
(function () {
  'use strict';

  var script = document.currentScript || document.querySelector('script[src*="chat-widget.js"]');
  if (!script || !script.src) return;
  var API_BASE = script.src.replace(/\/chat-widget\.js(?:[?#].*)?$/, '');
  var QUESTION_MAX = 1000;
  var TIMEOUT_MS = 60000;
  var TYPE_LABELS = { item: 'Item', media: 'Media', blog_post: 'Blog post', site_page: 'Page' };
  var CITATION_HREF = /^#chatbot-source-(\d+)$/;
  var READING_NOTICE = 'Still reading the collection: answers may miss some items.';

  // Sizes are in em, not rem: rem follows the host page's root font size, which is the host's to set.
  var STYLE = [
    ':host{all:initial;display:block}',
    '.cc{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:16px;line-height:1.5;color:#1f2328;background:#fff;box-sizing:border-box;border:1px solid #d0d7de;border-radius:6px;padding:1em}',
    '.cc *{box-sizing:border-box;font:inherit;color:inherit}',
    '.cc-form{display:flex;flex-wrap:wrap;gap:.5em;align-items:flex-end;margin:0}',
    '.cc-field{display:flex;flex-direction:column;gap:.25em;flex:1 1 16em;min-width:0}',
    '.cc-field label{font-size:.9em;font-weight:600}',
    '.cc-input{padding:.45em .6em;border:1px solid #8c959f;border-radius:4px;background:#fff;width:100%}',
    '.cc-submit{padding:.45em 1em;border:1px solid #0b5394;border-radius:4px;background:#0b5394;color:#fff;font-weight:600;cursor:pointer}',
    '.cc-submit[aria-disabled="true"]{opacity:.6;cursor:progress}',
    '.cc input:focus,.cc button:focus,.cc a:focus,.cc-source:focus{outline:3px solid #0b5394;outline-offset:2px}',
    '.cc-answer{margin:1em 0 0}',
    '.cc-draft{margin:1em 0 0;white-space:pre-wrap}',
    '.cc-draft:empty{display:none}',
    '.cc-answer:empty{display:none}',
    '.cc-answer p{margin:0 0 .6em}',
    '.cc-answer sup{font-size:.75em;line-height:0;vertical-align:super}',
    '.cc-answer a,.cc-source a{color:#0b5394;text-decoration:underline}',
    '.cc-status{font-size:.9em;color:#57606a;margin:.75em 0 0}',
    '.cc-status:empty{display:none}',
    '.cc-error{color:#8b0000;background:#fff5f5;border:1px solid #d1242f;border-radius:4px;padding:.6em .8em;margin:.75em 0 0}',
    '.cc-error:empty{display:none}',
    '.cc-sources-title{font-size:1em;font-weight:600;margin:1em 0 .4em}',
    '.cc-sources{margin:0;padding:0 0 0 1.5em}',
    '.cc-source{margin:0 0 .6em;padding:.25em .4em;border-radius:4px}',
    '.cc-source-current{background:#fff8c5}',
    '.cc-type{display:inline-block;font-size:.75em;color:#57606a;border:1px solid #d0d7de;border-radius:999px;padding:0 .45em;margin-left:.4em;vertical-align:middle}',
    '.cc-snippet{margin:.2em 0 0;font-size:.9em;color:#57606a}',
    '.cc-notice{font-size:.9em;color:#57606a;background:#f6f8fa;border-left:3px solid #d0d7de;padding:.4em .6em;margin:.6em 0 0}',
    '.cc-hidden{display:none}',
  ].join('\n');

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        node.setAttribute(key, attrs[key]);
      });
    }
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function ApiError(status, message, retryAfter) {
    this.status = status;
    this.message = message;
    this.retryAfter = retryAfter;
  }

  /** The request body from the container's attributes; a malformed site id is sent as it is, so the server's message says what is wrong. */
  function requestBody(host, question) {
    var body = { question: question };
    var slug = (host.getAttribute('data-site-slug') || '').trim();
    if (slug) body.site_slug = slug;
    var siteId = (host.getAttribute('data-site-id') || '').trim();
    if (siteId) body.site_id = /^\d+$/.test(siteId) ? Number(siteId) : siteId;
    var sets = (host.getAttribute('data-item-set-ids') || '')
      .split(',')
      .map(function (s) {
        return s.trim();
      })
      .filter(function (s) {
        return /^\d+$/.test(s);
      })
      .map(Number);
    if (sets.length) body.item_set_ids = sets;
    return body;
  }

  /** Splits complete Server-Sent Events off the front of a buffer: {events, rest}. Data lines are JSON. */
  function takeEvents(buffer) {
    var events = [];
    var end;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      var block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      var name = 'message';
      var data = '';
      block.split('\n').forEach(function (line) {
        if (line.indexOf('event:') === 0) name = line.slice(6).trim();
        else if (line.indexOf('data:') === 0) data += line.slice(5).trim();
      });
      try {
        events.push({ name: name, data: JSON.parse(data) });
      } catch {
        // A line no JSON parser reads is not one of the chatbot's events.
      }
    }
    return { events: events, rest: buffer };
  }

  /**
   * Reads the answer's event stream: onText gets each piece of text as it arrives; resolves with
   * the end event's answer (the same as the JSON answer), rejects on an error event or a stream
   * that stops before its end.
   */
  function readStream(response, onText) {
    var reader = response.body.getReader();
    var decoder = new window.TextDecoder();
    var buffer = '';
    function pump() {
      return reader.read().then(function (chunk) {
        if (chunk.value) buffer += decoder.decode(chunk.value, { stream: true });
        var taken = takeEvents(buffer.replace(/\r\n?/g, '\n'));
        buffer = taken.rest;
        for (var i = 0; i < taken.events.length; i++) {
          var event = taken.events[i];
          if (event.name === 'text' && event.data && typeof event.data.text === 'string') onText(event.data.text);
          else if (event.name === 'error')
            throw new ApiError(500, event.data && typeof event.data.error === 'string' ? event.data.error : '', null);
          else if (event.name === 'end') {
            if (!event.data || typeof event.data.answer_html !== 'string') throw new ApiError(502, '', null);
            reader.cancel().catch(function () {});
            return event.data;
          }
        }
        if (chunk.done) throw new ApiError(502, '', null);
        return pump();
      });
    }
    return pump();
  }

  function readJson(response) {
    return response
      .json()
      .catch(function () {
        return {};
      })
      .then(function (data) {
        if (!response.ok) {
          var message = data && typeof data.error === 'string' ? data.error : '';
          throw new ApiError(response.status, message, response.headers.get('Retry-After'));
        }
        // Something other than the chatbot answered (a proxy's page, say): not an empty answer.
        if (!data || typeof data.answer_html !== 'string') throw new ApiError(502, '', null);
        return data;
      });
  }

  /**
   * Asks for the streamed answer; errors before the stream are JSON with their status, as is
   * the whole answer from a server (or proxy) that does not stream.
   */
  function ask(body, onText) {
    var controller = typeof window.AbortController === 'function' ? new window.AbortController() : null;
    var timer = controller
      ? window.setTimeout(function () {
          controller.abort();
        }, TIMEOUT_MS)
      : null;
    function done() {
      if (timer) window.clearTimeout(timer);
    }
    var streams = typeof window.TextDecoder === 'function';
    return fetch(API_BASE + '/chatbot/api/chat', {
      method: 'POST',
      credentials: 'omit',
      headers: {
        'Content-Type': 'application/json',
        Accept: streams ? 'text/event-stream, application/json;q=0.5' : 'application/json',
      },
      body: JSON.stringify(body),
      signal: controller ? controller.signal : undefined,
    })
      .then(
        function (response) {
          var type = response.headers.get('Content-Type') || '';
          if (response.ok && response.body && /^text\/event-stream/i.test(type)) return readStream(response, onText);
          return readJson(response);
        },
        function (error) {
          // A refused origin gets no CORS headers, so the browser reports a network error too.
          throw new ApiError(error && error.name === 'AbortError' ? -1 : 0, '', null);
        },
      )
      .then(
        function (data) {
          done();
          return data;
        },
        function (error) {
          done();
          if (error instanceof ApiError) throw error;
          // The connection broke mid-stream, or the time ran out while reading it.
          throw new ApiError(error && error.name === 'AbortError' ? -1 : 0, '', null);
        },
      );
  }

  function waitText(retryAfter) {
    var seconds = parseInt(retryAfter || '', 10);
    if (!(seconds > 0)) return 'in a minute';
    if (seconds === 1) return 'in 1 second';
    if (seconds < 120) return 'in ' + seconds + ' seconds';
    return 'in ' + Math.ceil(seconds / 60) + ' minutes';
  }

  function errorMessage(error) {
    if (error instanceof ApiError) {
      if (error.status === 429)
        return (
          'Too many questions were asked from your connection. Please try again ' + waitText(error.retryAfter) + '.'
        );
      if (error.status === 503) return 'The collection assistant is unavailable right now. Please try again later.';
      if (error.status === 400 && error.message) return error.message;
      if (error.status === -1) return 'The answer took too long. Please try again.';
      if (error.status === 0) return 'The collection assistant could not be reached from this page.';
    }
    return 'Something went wrong while answering. Please try again.';
  }

  /**
   * Copies the server's answer_html into the panel keeping only paragraphs, line breaks,
   * superscripts and citation links to #chatbot-source-N; everything else becomes its text.
   * The HTML is parsed in an inert template, so nothing in it runs or loads.
   */
  function answerFragment(html) {
    var template = document.createElement('template');
    template.innerHTML = typeof html === 'string' ? html : '';
    var out = document.createDocumentFragment();
    function copy(from, to) {
      for (var node = from.firstChild; node; node = node.nextSibling) {
        if (node.nodeType === 3) {
          to.appendChild(document.createTextNode(node.nodeValue));
        } else if (node.nodeType === 1) {
          var tag = node.tagName.toLowerCase();
          var href = node.getAttribute('href') || '';
          var target;
          if (tag === 'p' || tag === 'sup') target = el(tag);
          else if (tag === 'br') target = el('br');
          else if (tag === 'a' && CITATION_HREF.test(href)) target = el('a', { href: href, class: 'chatbot-citation' });
          else target = null;
          if (target) {
            to.appendChild(target);
            copy(node, target);
          } else {
            copy(node, to);
          }
        }
      }
    }
    copy(template.content, out);
    return out;
  }

  /** A source's URL as a link target: a path on the embedding site or an http(s) address, never a script. */
  function safeHref(url) {
    if (typeof url !== 'string') return null;
    if (/^\/(?!\/)/.test(url)) return url;
    return /^https?:\/\//i.test(url) ? url : null;
  }

  function renderSource(source) {
    var n = Number(source.citation_num);
    // The list shows each source under its citation's number, which need not run from 1.
    var item =
      n > 0 && Math.floor(n) === n
        ? el('li', { class: 'cc-source', id: 'chatbot-source-' + n, tabindex: '-1', value: String(n) })
        : el('li', { class: 'cc-source' });
    var title = String(source.title || 'Untitled');
    var href = safeHref(source.url);
    item.appendChild(href ? el('a', { href: href }, title) : el('span', null, title));
    item.appendChild(
      el('span', { class: 'cc-type' }, TYPE_LABELS[source.resource_type] || String(source.resource_type || '')),
    );
    if (source.snippet) item.appendChild(el('p', { class: 'cc-snippet' }, String(source.snippet)));
    return item;
  }

  function mount(host) {
    if (host.getAttribute('data-collection-chat-ready') === 'true') return;
    host.setAttribute('data-collection-chat-ready', 'true');
    var inputId = 'cc-question';

    var root = host.shadowRoot || host.attachShadow({ mode: 'open' });
    clear(root);
    root.appendChild(el('style', null, STYLE));
    var container = el('section', { class: 'cc', 'aria-label': 'Ask the collection' });
    root.appendChild(container);

    var form = el('form', { class: 'cc-form', novalidate: '' });
    var field = el('div', { class: 'cc-field' });
    field.appendChild(el('label', { for: inputId }, 'Ask a question about the collection'));
    var input = el('input', {
      id: inputId,
      name: 'question',
      type: 'text',
      class: 'cc-input',
      maxlength: String(QUESTION_MAX),
      autocomplete: 'off',
      'aria-describedby': 'cc-error',
    });
    field.appendChild(input);
    form.appendChild(field);
    var button = el('button', { type: 'submit', class: 'cc-submit' }, 'Ask');
    form.appendChild(button);
    container.appendChild(form);

    var status = el('p', { class: 'cc-status', role: 'status' });
    var error = el('p', { class: 'cc-error', id: 'cc-error', role: 'alert' });
    // The text as it streams in is shown here, outside the live region: announcing every piece
    // would read the answer in fragments. The live region gets the finished answer, once.
    var draft = el('div', { class: 'cc-draft', 'aria-hidden': 'true' });
    var answer = el('div', { class: 'cc-answer', 'aria-live': 'polite', 'aria-busy': 'false' });
    var sourcesTitle = el('h3', { class: 'cc-sources-title cc-hidden', id: 'cc-sources-title' }, 'Sources');
    var sources = el('ol', { class: 'cc-sources cc-hidden', 'aria-labelledby': 'cc-sources-title' });
    container.appendChild(status);
    container.appendChild(error);
    container.appendChild(draft);
    container.appendChild(answer);
    container.appendChild(sourcesTitle);
    container.appendChild(sources);

    var busy = false;

    function setBusy(value) {
      busy = value;
      answer.setAttribute('aria-busy', value ? 'true' : 'false');
      container.setAttribute('aria-busy', value ? 'true' : 'false');
      button.setAttribute('aria-disabled', value ? 'true' : 'false');
      button.textContent = value ? 'Asking…' : 'Ask';
      status.textContent = value ? 'Looking for an answer in the collection…' : '';
    }

    function showSources(list) {
      clear(sources);
      list.forEach(function (source) {
        sources.appendChild(renderSource(source));
      });
      sourcesTitle.classList.toggle('cc-hidden', list.length === 0);
      sources.classList.toggle('cc-hidden', list.length === 0);
    }

    function showError(message) {
      error.textContent = message;
    }

    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (busy) return;
      var question = input.value.trim();
      showError('');
      if (!question) {
        showError('Please type a question first.');
        input.focus();
        return;
      }
      setBusy(true);
      clear(answer);
      clear(draft);
      showSources([]);
      ask(requestBody(host, question), function (text) {
        // Text, never HTML: the pieces are the answer's plain text.
        draft.appendChild(document.createTextNode(text));
      })
        .then(function (data) {
          clear(draft);
          setBusy(false);
          answer.appendChild(answerFragment(data.answer_html));
          // In the live region, after the answer: announced with it, once.
          if (data.still_reading === true) answer.appendChild(el('p', { class: 'cc-notice' }, READING_NOTICE));
          showSources(Array.isArray(data.sources) ? data.sources : []);
        })
        .catch(function (failure) {
          clear(draft);
          setBusy(false);
          clear(answer);
          showSources([]);
          showError(errorMessage(failure));
        });
    });

    // In a shadow root a #fragment link finds nothing in the document: move to the source here.
    container.addEventListener('click', function (event) {
      var link = event.target && event.target.closest ? event.target.closest('a') : null;
      if (!link || !container.contains(link)) return;
      var match = CITATION_HREF.exec(link.getAttribute('href') || '');
      if (!match) return;
      event.preventDefault();
      var source = root.getElementById('chatbot-source-' + match[1]);
      if (!source) return;
      Array.prototype.forEach.call(sources.querySelectorAll('.cc-source-current'), function (node) {
        node.classList.remove('cc-source-current');
      });
      source.classList.add('cc-source-current');
      source.scrollIntoView({ block: 'nearest' });
      source.focus({ preventScroll: true });
    });
  }

  function init() {
    var hosts = document.querySelectorAll('[data-collection-chat]');
    for (var i = 0; i < hosts.length; i++) mount(hosts[i]);
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
