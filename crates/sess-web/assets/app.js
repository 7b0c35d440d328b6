// sess: the local history browser. Hand-written, no framework, nothing loaded
// from the network. Every piece of session text reaches the DOM through
// textContent or createTextNode (the `el` helper below), never innerHTML —
// but for one place: the Markdown of a message's text, which the server
// renders with sess_export::to_html (see `markdownBlock`).
// A module: the usage view is in usage.js.
//
// Routes (location.hash):
//   #/?source=&project=&q=&machine=   home: projects and sessions
//   #/s/{id}?leaf=&entry=&q=          one session (at a leaf; scrolled to an entry)
//   #/search?q=&source=&machine=&mode=      search hits (mode: lexical, semantic, hybrid)
//   #/usage?period=&split=&source=&project=&machine=   tokens and cost (usage.js)
//
// data-testid attributes, for end-to-end tests:
//   app, home-link, search-form, search-input   the frame (index.html)
//   sessions-link, usage-link (aria-current="page" on the one whose view is shown: usage-link on #/usage)
//   error                                        an error banner
//   project-list, project-row (data-cwd; data-selected), project-all
//   source-filter (select: "" and every agent of the registry), text-filter (input)
//   machine-filter (select: "" and every machine of the archive; only when it holds several)
//   session-pane (the scrolling pane of the list), session-list, session-row (data-id, data-source; data-original,
//   data-machine when archived), session-count (how many the filters select in all: "5,000 sessions")
//   list-sentinel (the last row of a list loaded a page at a time, while more may come: in view, it loads the next)
//   session-machine (the machine an archived session came from), deleted-mark (its agent deleted it)
//   session-state (a badge: working, waiting, idle or stale; in a session row and in session-meta)
//   session-view (data-render-ms: build and layout time), session-title, session-meta, session-usage (usage.js),
//   export-bar: export-html, export-md (buttons), export-redact (checkbox, ticked), export-note (what was saved),
//   truncated-note, resume (the command that resumes the session in its agent: resume-command, resume-copy),
//   deleted-note (its agent deleted it), archived-note (it is read from the archive)
//   message (data-role, data-entry-id; data-highlighted when scrolled to)
//   message-role, message-time, text-block (a user's or assistant's: rendered Markdown, class markdown), thinking (details)
//   tool-call (details; data-status), tool-name, tool-status, tool-duration,
//   tool-input-preview, tool-input, tool-result
//   tool-diffs (an edit call's unified diff, after the call), diff (pre), diff-line (data-kind: file, note,
//   hunk, context, add, remove), diff-more (details: the lines past the first 40)
//   error-block, context-block (details), summary-block, image, image-link,
//   unknown-block (details), subagent (a tool call's subagent turns)
//   fork-button, fork-result (fork-command, fork-session-id, fork-path, fork-close)
//   tree-panel, tree-node (data-id, data-on-branch, data-leaf), tree-label
//   search-view, hit-list, search-hit (a link; data-id, data-entry-id), search-snippet,
//   search-count ("50+ hits" until the last page is in, then "123 hits"), search-mode (a select, with an
//   embedding model), hit-by-meaning (a hit no word matched)
//   usage-view and what is in it: see usage.js

import { sessionUsage, showUsage } from './usage.js';

(() => {
  const TOKEN = document.querySelector('meta[name="sess-token"]')?.content ?? '';
  // The agents of the registry: [{name, agent}].
  const AGENTS = JSON.parse(document.querySelector('meta[name="sess-sources"]')?.content || '[]');
  const SOURCES = AGENTS.map((a) => a.name);
  const app = document.getElementById('app');
  const searchForm = document.querySelector('[data-testid="search-form"]');
  const searchInput = document.querySelector('[data-testid="search-input"]');

  // ---- DOM helpers -------------------------------------------------------

  /// Builds an element. `props`: `class`, `testid`, `text`, `dataset` (object),
  /// `on` (object of listeners), any other key as an attribute. Children:
  /// nodes, or strings (as text nodes), null/false skipped.
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    if (props) {
      for (const [key, value] of Object.entries(props)) {
        if (value === undefined || value === null || value === false) continue;
        if (key === 'class') node.className = value;
        else if (key === 'testid') node.dataset.testid = value;
        else if (key === 'text') node.textContent = value;
        else if (key === 'dataset') Object.assign(node.dataset, value);
        else if (key === 'on') for (const [ev, fn] of Object.entries(value)) node.addEventListener(ev, fn);
        else node.setAttribute(key, value === true ? '' : String(value));
      }
    }
    append(node, children);
    return node;
  }

  function append(node, children) {
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      if (Array.isArray(child)) append(node, child);
      else node.append(typeof child === 'string' ? document.createTextNode(child) : child);
    }
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function errorBanner(message) {
    return el('div', { class: 'banner error', testid: 'error', role: 'alert' }, message);
  }

  // ---- API ---------------------------------------------------------------

  async function api(path, options) {
    const response = await fetch(path, options);
    let body = null;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    if (!response.ok) {
      const message = body && typeof body.error === 'string' ? body.error : `HTTP ${response.status}`;
      throw new Error(message);
    }
    return body;
  }

  /// A page of a listing: `{ items, total }`, `total` from the `X-Sess-Total` header (null when absent).
  async function apiPage(path) {
    const response = await fetch(path);
    let body = null;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    if (!response.ok || !Array.isArray(body)) {
      const message = body && typeof body.error === 'string' ? body.error : `HTTP ${response.status}`;
      throw new Error(message);
    }
    const total = Number.parseInt(response.headers.get('X-Sess-Total') ?? '', 10);
    return { items: body, total: Number.isFinite(total) ? total : null };
  }

  function query(params) {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) {
      if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
    }
    const text = search.toString();
    return text ? `?${text}` : '';
  }

  // ---- Formatting --------------------------------------------------------

  const pad = (n) => String(n).padStart(2, '0');

  /// `2026-08-21 14:05` in local time, or the text as given when it is not a date.
  function formatTime(iso) {
    if (!iso) return '';
    const date = new Date(iso);
    if (Number.isNaN(date.getTime())) return String(iso);
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
  }

  function relativeTime(ms) {
    if (!ms) return '';
    const seconds = Math.round((Date.now() - ms) / 1000);
    if (seconds < 60) return 'just now';
    const minutes = Math.round(seconds / 60);
    if (minutes < 60) return `${minutes} min ago`;
    const hours = Math.round(minutes / 60);
    if (hours < 24) return `${hours} h ago`;
    const days = Math.round(hours / 24);
    if (days < 30) return `${days} d ago`;
    return formatTime(new Date(ms).toISOString());
  }

  function duration(startedAt, endedAt) {
    if (!startedAt || !endedAt) return '';
    const ms = Date.parse(endedAt) - Date.parse(startedAt);
    if (!Number.isFinite(ms) || ms < 0) return '';
    if (ms < 1000) return `${ms} ms`;
    if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
    const minutes = Math.floor(ms / 60000);
    return `${minutes}m ${pad(Math.round((ms % 60000) / 1000))}s`;
  }

  function oneLine(text, max) {
    const line = String(text).replace(/\s+/g, ' ').trim();
    return line.length > max ? `${line.slice(0, max - 1)}…` : line;
  }

  /// The argument that says what a call does (a command, a path, a query), or its input as JSON.
  function inputPreview(input) {
    if (input && typeof input === 'object' && !Array.isArray(input)) {
      for (const key of ['command', 'cmd', 'file_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt']) {
        const value = input[key];
        if (typeof value === 'string') return value;
        if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(' ');
      }
      if (Object.keys(input).length === 0) return '';
    }
    if (input === null || input === undefined) return '';
    return typeof input === 'string' ? input : JSON.stringify(input);
  }

  function basename(path) {
    const parts = String(path).split(/[\\/]/).filter(Boolean);
    return parts.length ? parts[parts.length - 1] : String(path);
  }

  function sessionTitle(card) {
    return card.title && card.title.trim() ? card.title : '(untitled)';
  }

  function sourceBadge(source) {
    return el('span', { class: `badge source-${SOURCES.includes(source) ? source : 'other'}` }, String(source));
  }

  const DELETED = 'deleted by its agent — kept in the archive';

  const STATES = {
    working: 'its agent is at work: a reply or a tool call is in progress',
    waiting: 'its agent asked a question and waits for the answer',
    idle: 'its agent answered: the turn is over',
    stale: 'a turn is open, but its agent has not written for ten minutes',
  };

  /// A session's state (a session written in the last day has one), as a badge; null without one.
  function stateBadge(state) {
    if (!state) return null;
    return el('span', { class: `badge state state-${state}`, testid: 'session-state', title: STATES[state] ?? '' },
      String(state));
  }

  /// What an archived session's card adds: its machine, and a mark when its agent deleted it.
  function archiveMarks(card) {
    return [
      card.original === 'deleted'
        ? el('span', { class: 'badge deleted', testid: 'deleted-mark', title: DELETED }, 'deleted')
        : null,
      card.machine
        ? el('span', { class: 'machine', testid: 'session-machine', title: 'the machine it was archived from' },
          `on ${card.machine}`)
        : null,
    ];
  }

  /// The card's data attributes: its id and source, and what an archive says of it.
  function cardData(card) {
    const data = { id: card.id, source: card.source };
    if (card.machine) data.machine = card.machine;
    if (card.original) data.original = card.original;
    return data;
  }

  // ---- Paging ------------------------------------------------------------

  const SESSION_PAGE = 100;
  const HIT_PAGE = 50;
  /// The pagers of the view shown: a new route stops them.
  const pagers = new Set();

  /// `5,000`.
  const formatCount = (n) => n.toLocaleString('en-US');

  /// Fills `list` a page at a time: the first page now, the next one each time the sentinel row at
  /// its end comes near the bottom of the scrolling `root`. `fetchPage(offset, limit)` resolves with
  /// `{ items, total }`; `row(item)` builds an item's row and `key(item)` names it (an item already
  /// shown, which a list that changed between two pages can repeat, is skipped); `onPage({ shown,
  /// total, more })` hears after each page; `onError(error)` when one fails. One page is asked for at
  /// a time, and once `stop()` is called (a filter changed, or the route: a new pager takes over) the
  /// answers still on their way are dropped. `start()` resolves once the first page is drawn.
  function pager({ list, root, limit, fetchPage, row, key, onPage, onError }) {
    const seen = new Set();
    const sentinel = el('li', { class: 'sentinel', testid: 'list-sentinel', 'aria-hidden': 'true' });
    let offset = 0;
    let more = true;
    let busy = false;
    let stopped = false;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) next();
    }, { root, rootMargin: '0px 0px 600px 0px' });

    function finish() {
      more = false;
      observer.disconnect();
      sentinel.remove();
    }

    async function next() {
      if (busy || !more || stopped) return;
      busy = true;
      let page;
      try {
        page = await fetchPage(offset, limit);
      } catch (error) {
        if (!stopped) {
          finish();
          onError(error);
        }
        return;
      } finally {
        busy = false;
      }
      if (stopped) return;
      offset += page.items.length;
      const rows = document.createDocumentFragment();
      for (const item of page.items) {
        const id = key(item);
        if (seen.has(id)) continue;
        seen.add(id);
        rows.append(row(item));
      }
      sentinel.before(rows);
      more = page.items.length === limit && (page.total === null || offset < page.total);
      onPage({ shown: seen.size, total: page.total, more });
      if (!more) {
        finish();
        return;
      }
      // Observing again reports at once whether the sentinel is still near: a tall window takes several pages.
      observer.unobserve(sentinel);
      observer.observe(sentinel);
    }

    const self = {
      async start() {
        pagers.add(self);
        list.append(sentinel);
        await next();
      },
      stop() {
        stopped = true;
        observer.disconnect();
        pagers.delete(self);
      },
    };
    return self;
  }

  // ---- Routing -----------------------------------------------------------

  function parseHash() {
    const hash = location.hash.replace(/^#/, '') || '/';
    const at = hash.indexOf('?');
    const path = at < 0 ? hash : hash.slice(0, at);
    const params = new URLSearchParams(at < 0 ? '' : hash.slice(at + 1));
    return { path, params };
  }

  function sessionHref(id, params) {
    return `#/s/${encodeURIComponent(id)}${query(params || {})}`;
  }

  // ---- Live --------------------------------------------------------------

  /// The change feed (`/api/events`, server-sent events): the view shown hears of each session that appeared,
  /// was written or went (`{kind, session, from, messages, new}`), and of `{kind: 'reset'}` when changes were
  /// missed. The browser reconnects by itself and the server goes on after the last event it saw. A page over an
  /// archive has nothing to follow: the server refuses, and the page stops asking.
  const live = (() => {
    let listener = null;
    let source = null;
    function connect() {
      if (source || typeof EventSource === 'undefined') return;
      source = new EventSource('/api/events');
      const hear = (message) => {
        let event;
        try { event = JSON.parse(message.data); } catch { return; }
        listener?.(event);
      };
      for (const kind of ['appeared', 'changed', 'gone']) source.addEventListener(kind, hear);
      source.addEventListener('reset', () => listener?.({ kind: 'reset' }));
      source.addEventListener('open', () => { document.body.dataset.live = 'on'; });
    }
    return {
      /// `fn` hears the changes until the next view listens (or `stop`).
      listen(fn) { connect(); listener = fn; },
      stop() { listener = null; },
    };
  })();

  let generation = 0; // a newer route makes older responses stale

  /// Marks the header's link to the view shown.
  function markTab(path) {
    const shown = path === '/usage' ? 'usage-link' : 'sessions-link';
    for (const link of document.querySelectorAll('.tabs a')) {
      if (link.dataset.testid === shown) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
  }

  async function route() {
    const current = ++generation;
    for (const running of pagers) running.stop();
    live.stop();
    const { path, params } = parseHash();
    const stale = () => current !== generation;
    markTab(path);
    try {
      if (path.startsWith('/s/')) {
        await showSession(decodeURIComponent(path.slice(3)), params, stale);
      } else if (path === '/search') {
        await showSearch(params, stale);
      } else if (path === '/usage') {
        await showUsage(params, stale, {
          app, el, api, query, clear, errorBanner, agentSelect, machineSelect, machineList, agentName,
        });
      } else {
        await showHome(params, stale);
      }
    } catch (error) {
      if (stale()) return;
      clear(app);
      app.append(errorBanner(error.message), el('p', null, el('a', { href: '#/' }, 'Back to the sessions')));
    }
  }

  searchForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const q = searchInput.value.trim();
    if (q) location.hash = `#/search${query({ q })}`;
  });

  window.addEventListener('hashchange', route);

  // ---- Home --------------------------------------------------------------

  /// The machines of the archive (`[{name, sessions}]`); none when there is no archive or it cannot be read.
  async function machineList() {
    try {
      const machines = await api('/api/machines');
      return Array.isArray(machines) ? machines : [];
    } catch {
      return [];
    }
  }

  /// The machine filter of the home and search views: only when the archive holds several machines
  /// (or the route names one).
  function machineSelect(machines, value) {
    if (machines.length < 2 && !value) return null;
    const names = machines.map((m) => m.name);
    if (value && !names.includes(value)) names.push(value);
    const select = el('select', { testid: 'machine-filter', 'aria-label': 'Machine' },
      el('option', { value: '' }, 'All machines'),
      names.map((name) => el('option', { value: name }, name)));
    select.value = value;
    return select;
  }

  /// The agent's name (`Claude Code`) of a source's (`claude`).
  function agentName(source) {
    return AGENTS.find((a) => a.name === source)?.agent ?? String(source);
  }

  /** The agent filter of the home and search views. */
  function agentSelect() {
    return el(
      'select',
      { testid: 'source-filter', 'aria-label': 'Agent' },
      el('option', { value: '' }, 'All agents'),
      AGENTS.map((a) => el('option', { value: a.name }, a.agent)),
    );
  }

  async function showHome(params, stale) {
    const state = {
      source: params.get('source') || '', project: params.get('project') || '', q: params.get('q') || '',
      machine: params.get('machine') || '',
    };
    let [projects, machines] = await Promise.all([api('/api/projects'), machineList()]);
    if (stale()) return;
    document.title = 'sess';

    const projectList = el('nav', { class: 'pane side', testid: 'project-list', 'aria-label': 'Projects' });
    const sessionList = el('ol', { class: 'session-list', testid: 'session-list' });
    const count = el('span', { class: 'muted', testid: 'session-count' });
    const sourceFilter = agentSelect();
    sourceFilter.value = state.source;
    const machineFilter = machineSelect(machines, state.machine);
    const textFilter = el('input', {
      type: 'search', placeholder: 'Filter by title or folder', testid: 'text-filter', 'aria-label': 'Filter sessions',
    });
    textFilter.value = state.q;

    function renderProjects() {
      clear(projectList);
      projectList.append(el('h2', null, 'Projects'));
      const all = el('button', {
        class: `project-row${state.project ? '' : ' selected'}`, type: 'button', testid: 'project-all',
        on: { click: () => { state.project = ''; changed(); } },
      }, el('span', { class: 'project-name' }, 'All projects'));
      projectList.append(all);
      const list = document.createDocumentFragment();
      for (const project of projects) {
        const selected = project.cwd === state.project;
        list.append(el('button', {
          class: `project-row${selected ? ' selected' : ''}`, type: 'button', testid: 'project-row',
          title: project.cwd, dataset: { cwd: project.cwd, selected: selected ? 'true' : 'false' },
          on: { click: () => { state.project = project.cwd; changed(); } },
        },
        el('span', { class: 'project-name' }, basename(project.cwd)),
        el('span', { class: 'project-path muted' }, project.cwd),
        el('span', { class: 'project-meta muted' },
          `${formatCount(project.sessions)} session${project.sessions === 1 ? '' : 's'} · ${relativeTime(project.lastModifiedMs)} `,
          project.sources.map(sourceBadge))));
      }
      if (!projects.length) list.append(el('p', { class: 'empty' }, 'No projects yet.'));
      projectList.append(list);
    }

    function sessionRow(card) {
      return el('li', null, el('a', {
        class: 'session-row', href: sessionHref(card.id), testid: 'session-row',
        dataset: cardData(card),
      },
      el('span', { class: 'session-row-title' }, oneLine(sessionTitle(card), 160)),
      el('span', { class: 'session-row-meta muted' },
        sourceBadge(card.source),
        stateBadge(card.state),
        archiveMarks(card),
        card.cwd ? el('span', { class: 'path', title: card.cwd }, card.cwd) : null,
        el('span', null, `${card.messageCount} message${card.messageCount === 1 ? '' : 's'}`),
        el('time', { title: card.created ? formatTime(card.created) : '' }, relativeTime(card.modifiedMs)))));
    }

    // The sessions the filters select, a page at a time; a change of filter starts over.
    let sessions = null;
    function loadSessions() {
      sessions?.stop();
      clear(sessionList);
      count.textContent = '';
      const filters = { source: state.source, project: state.project, q: state.q, machine: state.machine };
      const mine = pager({
        list: sessionList,
        root: main,
        limit: SESSION_PAGE,
        fetchPage: (offset, limit) => apiPage(`/api/sessions${query({ ...filters, limit, offset })}`),
        row: sessionRow,
        key: (card) => card.id,
        onPage({ shown, total }) {
          if (stale()) return;
          const all = total ?? shown;
          count.textContent = `${formatCount(all)} session${all === 1 ? '' : 's'}`;
          if (!shown) sessionList.prepend(el('li', { class: 'empty' }, 'No sessions match.'));
        },
        onError(error) {
          if (stale()) return;
          sessionList.append(el('li', null, errorBanner(error.message)));
        },
      });
      sessions = mine;
      return mine.start();
    }

    // Filters live in the hash (so back and reload keep them) without a re-render.
    function changed() {
      history.replaceState(null, '', `#/${query(state)}`);
      renderProjects();
      loadSessions();
    }

    sourceFilter.addEventListener('change', () => { state.source = sourceFilter.value; changed(); });
    machineFilter?.addEventListener('change', () => { state.machine = machineFilter.value; changed(); });
    let timer = 0;
    textFilter.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => { state.q = textFilter.value.trim(); changed(); }, 200);
    });

    // Sessions written, made or gone while the list is shown: a written one moves to the top, a new one that the
    // filters take comes in at the top, a gone one goes; the projects are read again.
    function takes(card) {
      const text = state.q.toLowerCase();
      return (!state.source || card.source === state.source) && (!state.project || card.cwd === state.project)
        && !state.machine
        && (!text || [card.title, card.cwd, card.sessionId].some((v) => String(v ?? '').toLowerCase().includes(text)));
    }
    let projectsTimer = 0;
    live.listen((event) => {
      if (stale()) return;
      if (event.kind === 'reset') { changed(); return; }
      const card = event.session;
      const row = sessionList.querySelector(`[data-testid="session-row"][data-id="${CSS.escape(card.id)}"]`)?.parentElement;
      const shown = Number(String(count.textContent).replace(/[^0-9]/g, '')) || 0;
      const counted = (n) => { count.textContent = `${formatCount(n)} session${n === 1 ? '' : 's'}`; };
      if (event.kind === 'gone') {
        if (row) { row.remove(); counted(Math.max(0, shown - 1)); }
      } else if (takes(card)) {
        row?.remove();
        sessionList.querySelector('li.empty')?.remove();
        sessionList.prepend(sessionRow(card));
        if (!row) counted(shown + 1);
      }
      if (event.kind !== 'changed') {
        clearTimeout(projectsTimer);
        projectsTimer = setTimeout(async () => {
          const fresh = await api('/api/projects').catch(() => null);
          if (fresh && !stale()) { projects = fresh; renderProjects(); }
        }, 300);
      }
    });

    renderProjects();
    const main = el('section', { class: 'pane main', testid: 'session-pane' },
      el('div', { class: 'toolbar' }, el('h2', null, 'Sessions'), sourceFilter, machineFilter, textFilter, count),
      sessionList);
    clear(app);
    app.className = 'layout';
    app.append(projectList, main);
    await loadSessions();
  }

  // ---- Session -----------------------------------------------------------

  async function showSession(id, params, stale) {
    const leaf = params.get('leaf') || '';
    const entry = params.get('entry') || '';
    const q = params.get('q') || '';
    clear(app);
    app.className = 'layout';
    app.append(el('p', { class: 'empty' }, 'Loading…'));
    const page = await api(`/api/sessions/${encodeURIComponent(id)}${query({ leaf })}`);
    if (stale()) return;
    // An entry on another branch (a search hit on an abandoned one): show the branch that ends at it.
    if (entry && leaf !== entry && !page.transcript.messages.some((m) => m.id === entry)
        && (page.tree || []).some((n) => n.id === entry)) {
      const atEntry = new URLSearchParams(params);
      atEntry.set('leaf', entry);
      history.replaceState(null, '', sessionHref(id, Object.fromEntries(atEntry)));
      await showSession(id, atEntry, stale);
      return;
    }
    const started = performance.now();
    const { session, transcript, tree } = page;
    document.title = `${oneLine(sessionTitle(session), 60)} · sess`;

    const view = el('section', { class: 'pane main transcript', testid: 'session-view' });
    const meta = el('p', { class: 'muted session-meta', testid: 'session-meta' },
      sourceBadge(session.source), ' ', stateBadge(session.state), session.state ? ' ' : null,
      session.cwd ? el('span', { class: 'path' }, session.cwd) : null,
      session.created ? el('span', null, ` · started ${formatTime(session.created)}`) : null,
      el('span', null, ` · ${session.sessionId}`),
      session.machine ? el('span', { testid: 'session-machine' }, ` · archived from ${session.machine}`) : null);
    view.append(el('h1', { testid: 'session-title' }, sessionTitle(session)), meta, exportBar(session, page.leaf));
    const usage = sessionUsage(page.usage, el);
    if (usage) view.append(usage);
    if (session.original === 'deleted') {
      view.append(el('p', { class: 'banner note deleted', testid: 'deleted-note' },
        el('span', { class: 'badge deleted' }, 'deleted'), ` ${DELETED[0].toUpperCase()}${DELETED.slice(1)}.`));
    }
    if (page.resume) {
      const copy = el('button', {
        type: 'button', class: 'resume-copy', testid: 'resume-copy',
        on: { click: () => navigator.clipboard?.writeText(page.resume).then(() => { copy.textContent = 'Copied'; }) },
      }, 'Copy');
      view.append(el('p', { class: 'resume', testid: 'resume' },
        el('span', { class: 'muted' }, 'Resume in its agent: '), el('code', { testid: 'resume-command' }, page.resume), copy));
    }
    if (session.restoreCommand) {
      view.append(el('p', { class: 'banner note', testid: 'archived-note' },
        'Read from the archive. To fork or resume it, write it back first: ',
        el('code', null, session.restoreCommand)));
    }
    if (transcript.truncated > 0) {
      const n = transcript.truncated;
      view.append(el('p', { class: 'banner note', testid: 'truncated-note' },
        `${n} older message${n === 1 ? '' : 's'} not shown`));
    }
    const forkable = Boolean(session.forkable);
    const messages = document.createDocumentFragment();
    // The messages shown, and their nodes: what a change is laid against.
    let shown = transcript.messages.slice();
    let nodes = shown.map((message) => renderMessage(message, session, forkable));
    messages.append(...nodes);
    const none = transcript.messages.length ? null : el('p', { class: 'empty' }, '(no messages)');
    if (none) messages.append(none);
    view.append(messages);
    follow(id, leaf, view, session, forkable, stale, () => ({ shown, nodes, truncated: transcript.truncated }),
      (next) => { ({ shown, nodes } = next); none?.remove(); });

    clear(app);
    if (tree && tree.length) {
      app.className = 'layout';
      app.append(renderTree(tree, session, page.leaf), view);
    } else {
      app.className = 'layout single';
      app.append(view);
    }
    focusEntry(view, entry, q);
    // How long building and laying out the transcript took, for performance tests.
    void view.offsetHeight;
    view.dataset.renderMs = (performance.now() - started).toFixed(1);
  }

  /// Shows the messages the session's agent writes while it is open: its page is read again (a burst of changes
  /// once), the last message shown is drawn again when it changed (a reply that grew), and the new ones are added
  /// after it. The reader's place is kept, unless they were at the bottom: then the view follows the new messages.
  function follow(id, leaf, view, session, forkable, stale, now, done) {
    let timer = 0;
    let reading = false;
    let again = false;
    async function read() {
      if (reading) { again = true; return; }
      reading = true;
      try {
        const page = await api(`/api/sessions/${encodeURIComponent(id)}${query({ leaf })}`);
        if (stale()) return;
        const { shown, nodes, truncated } = now();
        const fresh = page.transcript.messages;
        const last = shown[shown.length - 1];
        // Where the last message shown is now: by its id, else by its place.
        let at = last?.id ? fresh.findLastIndex((m) => m.id === last.id) : -1;
        if (at < 0 && last) at = shown.length - 1 - ((page.transcript.truncated || 0) - (truncated || 0));
        if (at >= fresh.length) return;
        const bottom = view.scrollHeight - view.scrollTop - view.clientHeight < 48;
        const nextShown = shown.slice();
        const nextNodes = nodes.slice();
        if (last && at >= 0 && JSON.stringify(fresh[at]) !== JSON.stringify(last)) {
          const node = renderMessage(fresh[at], session, forkable);
          nodes[nodes.length - 1].replaceWith(node);
          nextNodes[nextNodes.length - 1] = node;
          nextShown[nextShown.length - 1] = fresh[at];
        }
        for (const message of fresh.slice(Math.max(at + 1, 0))) {
          const node = renderMessage(message, session, forkable);
          view.append(node);
          nextNodes.push(node);
          nextShown.push(message);
        }
        done({ shown: nextShown, nodes: nextNodes });
        if (bottom) view.scrollTop = view.scrollHeight;
      } catch {
        // The next change tries again.
      } finally {
        reading = false;
        if (again && !stale()) { again = false; read(); }
      }
    }
    live.listen((event) => {
      if (stale()) return;
      if (event.kind === 'reset' || (event.kind === 'changed' && event.session.id === session.id)) {
        clearTimeout(timer);
        timer = setTimeout(read, 50);
      }
      if (event.kind === 'changed' && event.session.id === session.id && event.session.state) {
        const badge = stateBadge(event.session.state);
        const shown = view.querySelector('[data-testid="session-meta"] [data-testid="session-state"]');
        if (shown) shown.replaceWith(badge);
        else view.querySelector('[data-testid="session-meta"]')?.append(' ', badge);
      }
    });
  }

  // ---- Export ------------------------------------------------------------

  /// The Export control: the session (at the leaf shown) as an HTML or Markdown file, secrets masked unless the
  /// box is unticked.
  function exportBar(session, leaf) {
    const redact = el('input', { type: 'checkbox', testid: 'export-redact', checked: true });
    const note = el('span', { class: 'muted export-note', testid: 'export-note', role: 'status' });
    const button = (format, label) => el('button', {
      type: 'button', testid: `export-${format}`, title: `Download the session as ${label}`,
      on: { click: (event) => download(session, leaf, format, redact.checked, event.currentTarget, note) },
    }, label);
    return el('div', { class: 'export-bar', testid: 'export-bar' },
      el('span', { class: 'muted' }, 'Export'), button('html', 'HTML'), button('md', 'Markdown'),
      el('label', null, redact, ' redact secrets'), note);
  }

  async function download(session, leaf, format, redact, button, note) {
    button.disabled = true;
    note.textContent = '';
    try {
      const url = `/api/sessions/${encodeURIComponent(session.id)}/export${query({ format, redact: redact ? 1 : 0, leaf })}`;
      const response = await fetch(url);
      if (!response.ok) {
        let message = `HTTP ${response.status}`;
        try {
          const body = await response.json();
          if (typeof body.error === 'string') message = body.error;
        } catch {
          // not JSON: the status says it
        }
        throw new Error(message);
      }
      const name = /filename="([^"]+)"/.exec(response.headers.get('Content-Disposition') || '')?.[1]
        || `sess-${session.sessionId}.${format}`;
      const blob = await response.blob();
      const link = el('a', { href: URL.createObjectURL(blob), download: name });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
      const masked = response.headers.get('X-Sess-Masked');
      note.textContent = masked === null ? `Saved ${name}`
        : `Saved ${name}: ${masked} secret${masked === '1' ? '' : 's'} masked`;
    } catch (error) {
      note.replaceChildren(errorBanner(`Export failed: ${error.message}`));
    } finally {
      button.disabled = false;
    }
  }

  function renderMessage(message, session, forkable) {
    const role = String(message.role);
    const header = el('header', { class: 'message-head' },
      el('span', { class: `role role-${role}`, testid: 'message-role' }, role),
      message.timestamp
        ? el('time', { class: 'muted', datetime: message.timestamp, title: message.timestamp, testid: 'message-time' },
          formatTime(message.timestamp))
        : null);
    if (forkable && message.id) {
      header.append(el('button', {
        class: 'fork-button', type: 'button', testid: 'fork-button',
        title: 'Write a new session that branches here',
        on: { click: (event) => fork(session, message.id, event.currentTarget) },
      }, 'Fork from here'));
    }
    const node = el('article', {
      class: `message message-${role}`, testid: 'message',
      dataset: { role, entryId: message.id || '' },
    }, header);
    for (const block of message.blocks || []) node.append(renderBlock(block));
    return node;
  }

  /// A text block whose Markdown the server rendered (`html`, from sess_export::to_html).
  function markdownBlock(block) {
    const node = el('div', { class: 'text markdown', testid: 'text-block' });
    // The one innerHTML of the page. The HTML is to_html's: every piece of the message's text is escaped (raw
    // HTML in a message stays text), links are only http(s)/mailto with rel="noopener noreferrer", images are never
    // loaded, and it has no script, event handler, style or id attribute. The page's CSP (script-src 'self') would
    // stop an inline script or handler even if one got through.
    node.innerHTML = block.html;
    return node;
  }

  function renderBlock(block) {
    switch (block.type) {
      case 'text':
        if (typeof block.html === 'string') return markdownBlock(block);
        return el('div', { class: 'text', testid: 'text-block' }, block.text);
      case 'thinking':
        return el('details', { class: 'thinking', testid: 'thinking' },
          el('summary', null, 'Thinking ', el('span', { class: 'muted' }, oneLine(block.text, 100))),
          el('div', { class: 'text' }, block.text));
      case 'tool_call':
        return renderToolCall(block);
      case 'error':
        return el('div', { class: 'error-block', testid: 'error-block', role: 'note' },
          el('strong', null, 'Error: '), block.text);
      case 'context':
        return el('details', { class: 'context', testid: 'context-block' },
          el('summary', null, block.title || 'Context'),
          el('pre', null, block.text));
      case 'summary':
        return el('div', { class: 'summary', testid: 'summary-block' },
          el('div', { class: 'summary-title muted' }, 'Summary of the earlier conversation'),
          el('div', { class: 'text' }, block.text));
      case 'image':
        return renderImage(block);
      case 'unknown':
        return el('details', { class: 'unknown', testid: 'unknown-block' },
          el('summary', { class: 'muted' }, `Not understood: ${String(block.what)}`),
          el('pre', null, JSON.stringify(block.raw, null, 2) ?? 'null'));
      default:
        return el('pre', { class: 'unknown muted' }, JSON.stringify(block, null, 2));
    }
  }

  const STATUS_MARK = { succeeded: '✓', failed: '✗', running: '…', pending: '?' };

  function renderToolCall(call) {
    const status = String(call.status || 'pending');
    const took = duration(call.startedAt, call.endedAt);
    const preview = oneLine(inputPreview(call.input), 160);
    const summary = el('summary', null,
      el('span', { class: `status status-${status}`, testid: 'tool-status', title: status },
        `${STATUS_MARK[status] || '?'} ${status}`),
      el('span', { class: 'tool-name', testid: 'tool-name' }, String(call.name)),
      took ? el('span', { class: 'muted tool-duration', testid: 'tool-duration' }, took) : null,
      preview ? el('code', { class: 'tool-preview', testid: 'tool-input-preview' }, preview) : null);
    const body = el('div', { class: 'tool-body' },
      el('div', { class: 'label muted' }, 'Input'),
      el('pre', { testid: 'tool-input' }, JSON.stringify(call.input, null, 2) ?? 'null'));
    if (call.result !== undefined && call.result !== null) {
      body.append(el('div', { class: 'label muted' }, 'Result'),
        el('pre', { class: status === 'failed' ? 'failed' : '', testid: 'tool-result' }, call.result));
    } else if (status === 'pending') {
      body.append(el('p', { class: 'muted' }, 'No result: the session ended before it came.'));
    }
    if (Array.isArray(call.subagent) && call.subagent.length > 0) {
      // The subagent's own turns: not the session's messages, so no fork button.
      const turns = el('div', { class: 'subagent', testid: 'subagent' });
      for (const message of call.subagent) turns.append(renderMessage(message, null, false));
      body.append(el('div', { class: 'label muted' }, `Subagent (${call.subagent.length} messages)`), turns);
    }
    const details = el('details', { class: `tool-call tool-${status}`, testid: 'tool-call', dataset: { status } },
      summary, body);
    if (!Array.isArray(call.diffs) || call.diffs.length === 0) return details;
    // What the call changed stays in view under it; its input and result fold.
    const edit = document.createDocumentFragment();
    edit.append(details, renderDiffs(call.diffs));
    return edit;
  }

  const DIFF_MARKS = { context: ' ', add: '+', remove: '-' };
  /// Lines of an edit call's diff shown before the rest folds.
  const DIFF_LINES = 40;

  /// The files an edit call changed as one unified diff: each file's ---/+++ header, then its hunks.
  function renderDiffs(diffs) {
    const rows = [];
    for (const diff of diffs) {
      const path = String(diff.path ?? '');
      const [from, to] = path.includes(' → ') ? path.split(' → ', 2) : [path, path];
      const side = (prefix, name) => prefix + name.replace(/^\//, '');
      const hunks = Array.isArray(diff.hunks) ? diff.hunks : [];
      const deleted = !diff.newFile && hunks.length === 0;
      rows.push(['file', `--- ${side('a/', from)}`], ['file', `+++ ${deleted ? '/dev/null' : side('b/', to)}`]);
      if (diff.newFile) rows.push(['note', 'whole file written']);
      else if (deleted) rows.push(['note', 'file deleted']);
      for (const hunk of hunks) {
        const n = (value) => Number(value) || 0;
        rows.push(['hunk', `@@ -${n(hunk.oldStart)},${n(hunk.oldLines)} +${n(hunk.newStart)},${n(hunk.newLines)} @@`]);
        for (const line of Array.isArray(hunk.lines) ? hunk.lines : []) {
          const kind = Object.hasOwn(DIFF_MARKS, line.kind) ? line.kind : 'context';
          rows.push([kind, DIFF_MARKS[kind] + String(line.text ?? '')]);
        }
      }
    }
    const lines = (part) => el('pre', { class: 'diff', testid: 'diff' },
      part.map(([kind, text]) => el('span', { class: `diff-line diff-${kind}`, testid: 'diff-line', dataset: { kind } }, text)));
    const shown = rows.length > DIFF_LINES + 1 ? DIFF_LINES : rows.length;
    const block = el('div', { class: 'tool-diffs', testid: 'tool-diffs' }, lines(rows.slice(0, shown)));
    if (rows.length > shown) {
      const more = rows.length - shown;
      block.append(el('details', { class: 'diff-more', testid: 'diff-more' },
        el('summary', { class: 'muted' }, `show ${more} more line${more === 1 ? '' : 's'}`),
        lines(rows.slice(shown))));
    }
    return block;
  }

  function renderImage(image) {
    const type = /^image\/[a-z0-9.+-]+$/i.test(image.mediaType || '') ? image.mediaType : 'image/png';
    if (image.data && /^[A-Za-z0-9+/=\s]+$/.test(image.data)) {
      const img = el('img', { class: 'image', testid: 'image', alt: `${type} image`, loading: 'lazy' });
      img.src = `data:${type};base64,${image.data.replace(/\s+/g, '')}`;
      return img;
    }
    if (image.url) {
      // Never loaded: a URL in a session could point anywhere.
      return el('div', { class: 'image-link muted', testid: 'image-link' }, `[image: ${image.url}]`);
    }
    return el('div', { class: 'image-link muted', testid: 'image-link' }, `[${type}]`);
  }

  /// The words and phrases of a search query as they appear in the text: no
  /// quotes, no `OR` / `NOT` nor the term after `NOT`, no trailing `*`.
  function searchTerms(q) {
    const terms = [];
    let negated = false;
    for (const match of String(q).matchAll(/"([^"]*)"?|[^\s"]+/g)) {
      const quoted = match[1] !== undefined;
      const word = quoted ? match[1] : match[0];
      if (!quoted && (word === 'OR' || word === 'NOT')) {
        negated = word === 'NOT';
        continue;
      }
      const term = (quoted ? word : word.replace(/\*+$/, '')).replace(/\s+/g, ' ').trim();
      if (term && !negated) terms.push(term);
      negated = false;
    }
    return terms;
  }

  /// Scrolls to the message whose id is `entry`, else to the first one containing a term of `q`.
  function focusEntry(view, entry, q) {
    const messages = view.querySelectorAll('[data-testid="message"]');
    const terms = searchTerms(q).map((t) => t.toLowerCase());
    let target = null;
    if (entry) target = Array.from(messages).find((m) => m.dataset.entryId === entry) || null;
    if (!target && terms.length) {
      target = Array.from(messages).find((m) => {
        const text = m.textContent.toLowerCase();
        return terms.some((t) => text.includes(t));
      }) || null;
    }
    if (!target) return;
    // A subagent's message is inside its tool call: open the calls around it.
    for (let up = target.parentElement?.closest('details'); up; up = up.parentElement?.closest('details')) up.open = true;
    target.classList.add('highlight');
    target.dataset.highlighted = 'true';
    for (const term of terms) {
      for (const details of target.querySelectorAll('details')) {
        if (details.textContent.toLowerCase().includes(term)) details.open = true;
      }
      markText(target, term);
    }
    target.scrollIntoView({ block: 'center' });
  }

  /// Wraps each occurrence of `q` in the text under `root` in <mark>, splitting text nodes (no HTML parsing).
  function markText(root, q) {
    const needle = q.toLowerCase();
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const nodes = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.nodeValue.toLowerCase().includes(needle)) nodes.push(node);
    }
    for (const node of nodes) {
      const text = node.nodeValue;
      const lower = text.toLowerCase();
      if (lower.length !== text.length) continue; // case folding moved the offsets
      const pieces = document.createDocumentFragment();
      let from = 0;
      for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + needle.length)) {
        pieces.append(document.createTextNode(text.slice(from, at)),
          el('mark', null, text.slice(at, at + needle.length)));
        from = at + needle.length;
      }
      pieces.append(document.createTextNode(text.slice(from)));
      node.replaceWith(pieces);
    }
  }

  // ---- Tree --------------------------------------------------------------

  /// The entry tree, indented only where it branches (a long chain stays flat).
  function renderTree(tree, session, leaf) {
    const byId = new Map(tree.map((n) => [n.id, n]));
    const children = new Map();
    const roots = [];
    for (const node of tree) {
      if (node.parentId && byId.has(node.parentId)) {
        if (!children.has(node.parentId)) children.set(node.parentId, []);
        children.get(node.parentId).push(node);
      } else {
        roots.push(node);
      }
    }
    const panel = el('nav', { class: 'pane side tree', testid: 'tree-panel', 'aria-label': 'Branches' },
      el('h2', null, 'Tree'));
    const list = document.createDocumentFragment();
    // Depth-first without recursion: sessions can be thousands of entries deep.
    const stack = roots.slice().reverse().map((node) => ({ node, depth: roots.length > 1 ? 1 : 0 }));
    while (stack.length) {
      const { node, depth } = stack.pop();
      const kids = children.get(node.id) || [];
      const isLeaf = node.id === leaf;
      const kind = String(node.role || node.kind);
      // The preview starts with the kind (`user: hello`), which the row shows already.
      const said = `${kind.replace(/_/g, ' ')}: `;
      let preview = String(node.preview || '');
      if (preview.startsWith(said)) preview = preview.slice(said.length);
      const row = el('a', {
        class: `tree-node${node.onBranch ? ' on-branch' : ''}${isLeaf ? ' leaf' : ''}`,
        href: sessionHref(session.id, { leaf: node.id }),
        testid: 'tree-node',
        title: node.timestamp ? formatTime(node.timestamp) : null,
        'aria-current': isLeaf ? 'true' : null,
        dataset: { id: node.id, onBranch: node.onBranch ? 'true' : 'false', leaf: isLeaf ? 'true' : 'false' },
      },
      el('span', { class: `tree-kind role-${kind}` }, kind.replace(/_/g, ' ')),
      node.label ? el('span', { class: 'tree-label', testid: 'tree-label' }, node.label) : null,
      el('span', { class: 'tree-preview' }, oneLine(preview, 90)));
      row.style.setProperty('--depth', String(Math.min(depth, 12)));
      list.append(row);
      const childDepth = kids.length > 1 ? depth + 1 : depth;
      for (let i = kids.length - 1; i >= 0; i -= 1) stack.push({ node: kids[i], depth: childDepth });
    }
    panel.append(list);
    return panel;
  }

  // ---- Fork --------------------------------------------------------------

  async function fork(session, entryId, button) {
    button.disabled = true;
    document.querySelector('[data-testid="fork-result"]')?.remove();
    let box;
    try {
      const forked = await api(`/api/sessions/${encodeURIComponent(session.id)}/fork`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Sess-Token': TOKEN },
        body: JSON.stringify({ entryId }),
      });
      const command = el('code', { testid: 'fork-command' }, forked.resumeCommand);
      const copy = el('button', {
        type: 'button',
        on: {
          click: () => navigator.clipboard?.writeText(forked.resumeCommand).then(() => { copy.textContent = 'Copied'; }),
        },
      }, 'Copy');
      box = el('div', { class: 'fork-result', testid: 'fork-result', role: 'dialog', 'aria-label': 'Forked session' },
        el('h2', null, 'Forked'),
        el('p', null, 'Resume it with:'),
        el('div', { class: 'command' }, command, copy),
        el('dl', null,
          el('dt', null, 'Session'), el('dd', { testid: 'fork-session-id' }, forked.sessionId),
          el('dt', null, 'File'), el('dd', { testid: 'fork-path' }, forked.path)));
    } catch (error) {
      box = el('div', { class: 'fork-result', testid: 'fork-result', role: 'dialog', 'aria-label': 'Fork failed' },
        el('h2', null, 'Fork failed'), errorBanner(error.message));
    } finally {
      button.disabled = false;
    }
    box.append(el('button', { type: 'button', testid: 'fork-close', on: { click: () => box.remove() } }, 'Close'));
    document.body.append(box);
  }

  // ---- Search ------------------------------------------------------------

  async function showSearch(params, stale) {
    const q = params.get('q') || '';
    const source = params.get('source') || '';
    const machine = params.get('machine') || '';
    const mode = params.get('mode') || '';
    searchInput.value = q;
    const [machines, modes] = await Promise.all([machineList(), searchModes()]);
    if (stale()) return;
    const view = el('section', { class: 'pane main', testid: 'search-view' });
    const sourceFilter = agentSelect();
    sourceFilter.value = source;
    sourceFilter.addEventListener('change', () => {
      location.hash = `#/search${query({ q, source: sourceFilter.value, machine, mode })}`;
    });
    const machineFilter = machineSelect(machines, machine);
    machineFilter?.addEventListener('change', () => {
      location.hash = `#/search${query({ q, source, machine: machineFilter.value, mode })}`;
    });
    const modeFilter = modeSelect(modes, mode);
    modeFilter?.addEventListener('change', () => {
      location.hash = `#/search${query({ q, source, machine, mode: modeFilter.value })}`;
    });
    view.append(el('div', { class: 'toolbar' }, el('h2', null, 'Search'), sourceFilter, machineFilter, modeFilter));
    clear(app);
    app.className = 'layout single';
    app.append(view);
    document.title = `${oneLine(q, 40)} · sess`;
    if (!q.trim()) {
      view.append(el('p', { class: 'empty' }, 'Type words to find in the search box above.'));
      return;
    }
    const counted = el('p', { class: 'muted', testid: 'search-count' });
    const list = el('ol', { class: 'hit-list', testid: 'hit-list' });
    view.append(counted, list);
    const hits = pager({
      list,
      root: view,
      limit: HIT_PAGE,
      fetchPage: (offset, limit) => apiPage(`/api/search${query({ q, source, machine, mode, limit, offset })}`),
      row: (hit) => hitRow(hit, q),
      key: (hit) => hit.session.id,
      onPage({ shown, more }) {
        if (stale()) return;
        // Search pages say no total: until the last page, the count is of those shown.
        counted.textContent = `${formatCount(shown)}${more ? '+' : ''} hit${shown === 1 && !more ? '' : 's'}`;
        if (!shown) list.append(el('li', { class: 'empty' }, 'Nothing found.'));
      },
      onError(error) {
        if (!stale()) list.append(el('li', null, errorBanner(error.message)));
      },
    });
    await hits.start();
  }

  /** How the server can rank a search, its default first: `["lexical"]` without an embedding model. */
  async function searchModes() {
    try {
      const modes = await api('/api/search/modes');
      return Array.isArray(modes) && modes.length ? modes : ['lexical'];
    } catch {
      return ['lexical'];
    }
  }

  const MODE_NAMES = { hybrid: 'Words and meaning', semantic: 'Meaning', lexical: 'Words' };

  /// The mode filter of the search view: only when the server can search by meaning (or the route names a mode).
  function modeSelect(modes, value) {
    if (modes.length < 2 && !value) return null;
    const select = el('select', { testid: 'search-mode', 'aria-label': 'Search by' },
      ...modes.map((mode) => el('option', { value: mode === modes[0] ? '' : mode }, MODE_NAMES[mode] || mode)));
    select.value = value === modes[0] ? '' : value;
    return select;
  }

  function hitRow(hit, q) {
    const snippet = el('p', { class: 'snippet', testid: 'search-snippet' });
    for (const part of hit.snippet || []) {
      snippet.append(part.hit ? el('mark', null, part.text) : document.createTextNode(part.text));
    }
    return el('li', null, el('a', {
      class: 'search-hit', testid: 'search-hit',
      href: sessionHref(hit.session.id, { entry: hit.entryId, q }),
      dataset: { ...cardData(hit.session), entryId: hit.entryId || '' },
    },
    el('span', { class: 'session-row-title' }, oneLine(sessionTitle(hit.session), 160)),
    el('span', { class: 'session-row-meta muted' },
      sourceBadge(hit.session.source),
      archiveMarks(hit.session),
      hit.role ? el('span', { class: `role role-${hit.role}` }, hit.role) : null,
      byMeaning(hit) ? el('span', { class: 'badge', testid: 'hit-by-meaning', title: 'Found by meaning: none of the words is in it' }, 'by meaning') : null,
      hit.session.cwd ? el('span', { class: 'path' }, hit.session.cwd) : null,
      el('time', null, relativeTime(hit.session.modifiedMs))),
    snippet));
  }

  /** Whether only the meaning found a hit (its snippet is where the message begins). */
  function byMeaning(hit) {
    return Array.isArray(hit.matched) && hit.matched.length === 1 && hit.matched[0] === 'meaning';
  }

  route();
})();
