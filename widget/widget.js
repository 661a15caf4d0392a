/*
 * Library database directory widget. Embed with:
 *   <div data-catalog-az data-token="API_TOKEN"></div>
 *   <script src="{base_url}/widget.js" defer></script>
 * Optional container attributes: data-subject (subject handle), data-list (list handle),
 * data-limit (maximum number of cards), data-hide-filters="true" (search box only).
 *
 * Plain browser JavaScript, no framework, and no request to any server but the one that served
 * this file. Each widget lives in its own shadow root, so the host page's CSS cannot reach it
 * and its CSS cannot reach the host page; several widgets on one page are independent.
 */
(function () {
  'use strict';

  var script = document.currentScript || document.querySelector('script[src*="widget.js"]');
  if (!script || !script.src) return;
  var API_BASE = script.src.replace(/\/widget\.js(?:[?#].*)?$/, '');
  var MAX_PAGES = 20;
  var ACCESS_LABELS = {
    open: 'Open access',
    subscription: 'Library subscription',
    trial: 'Trial access',
    restricted: 'Restricted access',
  };
  var DEFAULT_COLOR = '#0b5394';

  var STYLE = [
    ':host{all:initial;display:block}',
    '.caz{--caz-brand:' +
      DEFAULT_COLOR +
      ';font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:16px;line-height:1.45;color:#1f2328;box-sizing:border-box}',
    '.caz *{box-sizing:border-box}',
    '.caz-filters{display:flex;flex-wrap:wrap;gap:.75rem;margin:0 0 .75rem;padding:0;border:0}',
    '.caz-field{display:flex;flex-direction:column;gap:.2rem;min-width:10rem;flex:1 1 10rem}',
    '.caz-field label{font-size:.85rem;font-weight:600}',
    '.caz input,.caz select{font:inherit;padding:.4rem .5rem;border:1px solid #8c959f;border-radius:4px;background:#fff;color:#1f2328}',
    '.caz input:focus,.caz select:focus,.caz a:focus{outline:3px solid var(--caz-brand);outline-offset:2px}',
    '.caz-status{font-size:.9rem;color:#57606a;margin:.25rem 0 .5rem}',
    '.caz-error{color:#8b0000;background:#fff5f5;border:1px solid #d1242f;border-radius:4px;padding:.6rem .8rem;margin:0}',
    '.caz-cards{list-style:none;margin:0;padding:0;display:grid;gap:.75rem}',
    '.caz-card{border:1px solid #d0d7de;border-left:6px solid var(--caz-brand);border-radius:4px;padding:.75rem 1rem;background:#fff}',
    '.caz-card h3{margin:0 0 .25rem;font-size:1.1rem}',
    '.caz-card a{color:var(--caz-brand);text-decoration:underline}',
    '.caz-card p{margin:.25rem 0}',
    '.caz-meta{font-size:.85rem;color:#57606a}',
    '.caz-badge{display:inline-block;background:var(--caz-brand);color:#fff;border-radius:999px;padding:0 .5rem;font-size:.75rem;margin-left:.4rem;vertical-align:middle}',
    '.caz-hidden{display:none}',
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

  function ApiError(status, message) {
    this.status = status;
    this.message = message;
  }

  function apiGet(token, path, params) {
    var query = new URLSearchParams(params || {});
    query.set('token', token);
    return fetch(API_BASE + path + '?' + query.toString(), {
      credentials: 'omit',
      headers: { Accept: 'application/json' },
    }).then(
      function (response) {
        return response
          .json()
          .catch(function () {
            return {};
          })
          .then(function (body) {
            if (!response.ok)
              throw new ApiError(response.status, body && typeof body.error === 'string' ? body.error : '');
            return body;
          });
      },
      function () {
        // A refused origin gets no CORS headers, so the browser hides the answer: a network error.
        throw new ApiError(0, '');
      },
    );
  }

  function errorMessage(error) {
    if (error instanceof ApiError) {
      if (error.status === 401) return 'This directory could not be loaded: the access token is not valid.';
      if (error.status === 403)
        return 'This directory cannot be shown here: ' + (error.message || 'access was refused.');
      if (error.status === 404) return 'This directory could not be loaded: ' + (error.message || 'not found.');
      if (error.status === 429) return 'The directory is busy. Please try again in a minute.';
      if (error.status === 0) return 'This directory cannot be shown on this site.';
    }
    return 'The directory could not be loaded. Please try again later.';
  }

  function loadAllDatabases(token, subject) {
    var all = [];
    function page(n) {
      var params = { per_page: '100', page: String(n) };
      if (subject) params.subject = subject;
      return apiGet(token, '/api/v1/databases', params).then(function (body) {
        all = all.concat(body.data || []);
        var pages = (body.meta && body.meta.total_pages) || 1;
        return n < pages && n < MAX_PAGES ? page(n + 1) : all;
      });
    }
    return page(1);
  }

  function handlesOf(terms) {
    return (terms || []).map(function (t) {
      return t.handle;
    });
  }

  function matches(db, state) {
    if (state.subject && handlesOf(db.subjects).indexOf(state.subject) < 0) return false;
    if (state.type && handlesOf(db.types).indexOf(state.type) < 0) return false;
    if (state.access && db.access !== state.access) return false;
    var q = state.q.trim().toLowerCase();
    if (q && (db.name + '\n' + (db.description || '')).toLowerCase().indexOf(q) < 0) return false;
    return true;
  }

  function selectField(id, label, allLabel, options) {
    var field = el('div', { class: 'caz-field' });
    field.appendChild(el('label', { for: id }, label));
    var select = el('select', { id: id, name: id });
    select.appendChild(el('option', { value: '' }, allLabel));
    options.forEach(function (option) {
      select.appendChild(el('option', { value: option.value }, option.label));
    });
    field.appendChild(select);
    return { field: field, control: select };
  }

  function renderCard(db) {
    var card = el('li', { class: 'caz-card', 'data-handle': db.handle });
    var title = el('h3');
    var link = el('a', { href: db.links.open, class: 'caz-open' }, db.name);
    title.appendChild(link);
    if (db.featured) title.appendChild(el('span', { class: 'caz-badge' }, 'Featured'));
    card.appendChild(title);
    if (db.description) {
      var text =
        db.description.length > 300 ? db.description.slice(0, 297).replace(/\s+\S*$/, '') + '…' : db.description;
      card.appendChild(el('p', { class: 'caz-description' }, text));
    }
    var meta = [ACCESS_LABELS[db.access] || db.access];
    if (db.types && db.types.length)
      meta.push(
        db.types
          .map(function (t) {
            return t.name;
          })
          .join(', '),
      );
    if (db.subjects && db.subjects.length)
      meta.push(
        db.subjects
          .map(function (s) {
            return s.name;
          })
          .join(', '),
      );
    card.appendChild(el('p', { class: 'caz-meta' }, meta.join(' · ')));
    return card;
  }

  function mount(host) {
    if (host.getAttribute('data-catalog-az-ready') === 'true') return;
    host.setAttribute('data-catalog-az-ready', 'true');
    var token = host.getAttribute('data-token') || '';
    var lockedSubject = host.getAttribute('data-subject') || '';
    var listHandle = host.getAttribute('data-list') || '';
    var limit = parseInt(host.getAttribute('data-limit') || '', 10);
    if (!(limit > 0)) limit = 0;
    var hideFilters = (host.getAttribute('data-hide-filters') || '').toLowerCase() === 'true';

    var root = host.shadowRoot || host.attachShadow({ mode: 'open' });
    while (root.firstChild) root.removeChild(root.firstChild);
    root.appendChild(el('style', null, STYLE));
    var container = el('div', { class: 'caz', role: 'region', 'aria-label': 'Library databases' });
    root.appendChild(container);
    var status = el('p', { class: 'caz-status', role: 'status', 'aria-live': 'polite' }, 'Loading databases…');
    container.appendChild(status);

    function fail(error) {
      while (container.firstChild) container.removeChild(container.firstChild);
      container.appendChild(el('p', { class: 'caz-error', role: 'alert' }, errorMessage(error)));
    }

    if (!token) {
      fail(new ApiError(401, ''));
      return;
    }

    var databasesRequest = listHandle
      ? apiGet(token, '/api/v1/lists/' + encodeURIComponent(listHandle)).then(function (body) {
          return body.data.databases;
        })
      : loadAllDatabases(token, lockedSubject);

    Promise.all([
      apiGet(token, '/api/v1/library'),
      hideFilters || lockedSubject ? Promise.resolve({ data: [] }) : apiGet(token, '/api/v1/subjects'),
      hideFilters ? Promise.resolve({ data: [] }) : apiGet(token, '/api/v1/types'),
      databasesRequest,
    ]).then(function (results) {
      var library = results[0].data || {};
      if (/^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$/.test(library.brand_color || '')) {
        container.style.setProperty('--caz-brand', library.brand_color);
      }
      container.setAttribute('aria-label', (library.name ? library.name + ': ' : '') + 'databases');
      build(results[1].data || [], results[2].data || [], results[3] || []);
    }, fail);

    function build(subjects, types, databases) {
      var state = { q: '', subject: lockedSubject, type: '', access: '' };
      var form = el('form', { class: 'caz-filters', role: 'search', 'aria-label': 'Search databases' });
      form.addEventListener('submit', function (event) {
        event.preventDefault();
      });
      var searchField = el('div', { class: 'caz-field' });
      searchField.appendChild(el('label', { for: 'caz-q' }, 'Search databases'));
      var search = el('input', {
        id: 'caz-q',
        name: 'q',
        type: 'search',
        autocomplete: 'off',
        placeholder: 'Name or description',
      });
      searchField.appendChild(search);
      form.appendChild(searchField);
      search.addEventListener('input', function () {
        state.q = search.value;
        render();
      });

      function addFilter(key, id, label, allLabel, options) {
        if (options.length === 0) return;
        var filter = selectField(id, label, allLabel, options);
        filter.control.addEventListener('change', function () {
          state[key] = filter.control.value;
          render();
        });
        form.appendChild(filter.field);
      }
      if (!hideFilters) {
        if (!lockedSubject) {
          addFilter(
            'subject',
            'caz-subject',
            'Subject',
            'All subjects',
            subjects
              .filter(function (s) {
                return s.database_count > 0;
              })
              .map(function (s) {
                return { value: s.handle, label: s.name };
              }),
          );
        }
        addFilter(
          'type',
          'caz-type',
          'Type',
          'All types',
          types
            .filter(function (t) {
              return t.database_count > 0;
            })
            .map(function (t) {
              return { value: t.handle, label: t.name };
            }),
        );
        var present = {};
        databases.forEach(function (db) {
          present[db.access] = true;
        });
        addFilter(
          'access',
          'caz-access',
          'Access',
          'All access types',
          Object.keys(ACCESS_LABELS)
            .filter(function (a) {
              return present[a];
            })
            .map(function (a) {
              return { value: a, label: ACCESS_LABELS[a] };
            }),
        );
      }

      var list = el('ul', { class: 'caz-cards', 'aria-label': 'Databases' });
      container.insertBefore(form, status);
      container.appendChild(list);

      function render() {
        var shown = databases.filter(function (db) {
          return matches(db, state);
        });
        var total = shown.length;
        if (limit) shown = shown.slice(0, limit);
        while (list.firstChild) list.removeChild(list.firstChild);
        shown.forEach(function (db) {
          list.appendChild(renderCard(db));
        });
        status.textContent =
          total === 0
            ? 'No databases match your search.'
            : shown.length < total
              ? 'Showing ' + shown.length + ' of ' + total + ' databases.'
              : total + (total === 1 ? ' database.' : ' databases.');
      }
      render();
    }
  }

  function init() {
    var hosts = document.querySelectorAll('div[data-catalog-az]');
    for (var i = 0; i < hosts.length; i++) mount(hosts[i]);
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
