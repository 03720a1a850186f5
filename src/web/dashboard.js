// hintgate dashboard: a few enhancements over server-rendered pages. Everything works
// without this file (forms post and the server redirects); with it, the approval queue is
// live (server-sent events), decisions are sent without leaving the page, and the time left
// of each pending call counts down.
'use strict';

(() => {
  const live = document.getElementById('live');

  /** Says something to screen readers and shows it briefly. */
  function announce(text, kind = 'ok') {
    if (live === null) return;
    live.textContent = text;
    live.className = `toast show ${kind}`;
    clearTimeout(announce.timer);
    announce.timer = setTimeout(() => {
      live.className = 'toast';
    }, 4000);
  }

  /** "1:05 left", "expired". */
  function timeLeft(iso) {
    const ms = Date.parse(iso) - Date.now();
    if (!(ms > 0)) return { text: 'expired', soon: true };
    const seconds = Math.ceil(ms / 1000);
    const minutes = Math.floor(seconds / 60);
    const text =
      minutes >= 60
        ? `${Math.floor(minutes / 60)} h ${minutes % 60} min left`
        : `${minutes}:${String(seconds % 60).padStart(2, '0')} left`;
    return { text, soon: seconds <= 30 };
  }

  function tick() {
    for (const element of document.querySelectorAll('[data-expires]')) {
      const left = timeLeft(element.getAttribute('data-expires'));
      if (element.textContent !== left.text) element.textContent = left.text;
      element.classList.toggle('soon', left.soon);
    }
  }

  const queue = document.getElementById('approval-queue');
  let known = new Set();

  function pendingIds() {
    return new Set(
      [...document.querySelectorAll('[data-approval]')].map((el) => el.dataset.approval),
    );
  }

  let refreshing = Promise.resolve();
  /** Reads the queue again from the server and puts it in place (one refresh at a time). */
  function refreshQueue() {
    if (queue === null) return Promise.resolve();
    refreshing = refreshing
      .then(async () => {
        const response = await fetch(queue.dataset.fragment, {
          headers: { accept: 'text/html' },
          credentials: 'same-origin',
        });
        if (response.status === 401 || response.redirected) {
          announce('Signed out: reload the page to sign in again.', 'error');
          return;
        }
        if (!response.ok) throw new Error(`the queue could not be read (${response.status})`);
        const html = await response.text();
        const hadFocus = queue.contains(document.activeElement);
        queue.innerHTML = html;
        const count = document.getElementById('pending-count');
        if (count !== null) count.textContent = response.headers.get('x-pending-count') ?? '';
        const now = pendingIds();
        const added = [...now].filter((id) => !known.has(id));
        if (added.length > 0) {
          const tools = added.map(
            (id) => queue.querySelector(`[data-approval="${id}"] .tool`)?.textContent ?? id,
          );
          announce(`Waiting for approval: ${tools.join(', ')}`, 'warn');
        }
        known = now;
        if (hadFocus) (queue.querySelector('button') ?? queue).focus();
        tick();
      })
      .catch((error) => announce(String(error.message ?? error), 'error'));
    return refreshing;
  }

  if (queue !== null) {
    known = pendingIds();
    queue.tabIndex = -1;
    const events = new EventSource(queue.dataset.live);
    events.addEventListener('ready', () => {
      queue.dataset.connected = 'true';
      void refreshQueue();
    });
    events.addEventListener('approval', () => void refreshQueue());
    events.addEventListener('error', () => {
      queue.dataset.connected = 'false';
    });
  }

  // Decisions without leaving the page.
  document.addEventListener('submit', async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-enhance')) return;
    event.preventDefault();
    const data = new FormData(form, event.submitter ?? undefined);
    const buttons = form.querySelectorAll('button');
    for (const button of buttons) button.disabled = true;
    try {
      const response = await fetch(form.action, {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'x-csrf-token': String(data.get('_csrf') ?? ''),
        },
        body: new URLSearchParams(data),
        credentials: 'same-origin',
      });
      const body = await response.json().catch(() => ({}));
      if (!response.ok) {
        announce(body.error?.message ?? `refused (${response.status})`, 'error');
      } else {
        announce(`${body.status === 'approved' ? 'Approved' : 'Denied'}: ${body.tool}`);
      }
    } catch (error) {
      announce(`Not sent: ${error.message}`, 'error');
    } finally {
      for (const button of buttons) button.disabled = false;
      void refreshQueue();
    }
  });

  // Buttons that ask first.
  document.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('[data-confirm]') : null;
    if (button !== null && !window.confirm(button.getAttribute('data-confirm'))) {
      event.preventDefault();
    }
  });

  tick();
  setInterval(tick, 1000);
})();
