// hintgate dashboard: a few enhancements over server-rendered pages. Everything works
// without this file (forms post and the server redirects); with it, the approval queue and
// the pins waiting for a decision are live (server-sent events), decisions are sent without
// leaving the page, and the time left of each pending call counts down.
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

  /** Sets a count of the navigation, hidden at zero. */
  function setCount(name, value) {
    if (name === undefined || value === null) return;
    for (const badge of document.querySelectorAll(`[data-count="${name}"]`)) {
      const text = value === '0' ? '' : value;
      const first = badge.firstChild;
      if (first !== null && first.nodeType === Node.TEXT_NODE) first.textContent = text;
      else badge.prepend(text);
      badge.hidden = value === '0';
    }
  }

  /** What tells a control apart from the others of its item, across a refresh. */
  function keyOf(element) {
    return `${element.tagName} ${element.getAttribute('name') ?? ''}=${
      element.getAttribute('value') ?? element.getAttribute('href') ?? element.textContent
    }`;
  }

  /**
   * A live region: a fragment of the page (`data-fragment`) read again from the server when
   * one of its events (`data-events`) arrives, one refresh at a time. A refresh waits while
   * someone is typing in the region, so nothing typed is lost.
   */
  function liveRegion(region) {
    const itemsIn = () =>
      new Map([...region.querySelectorAll('[data-item]')].map((el) => [el.dataset.item, el]));
    let known = new Set(itemsIn().keys());
    let shown;
    let refreshing = Promise.resolve();
    let deferred = false;

    const typing = () => {
      const active = document.activeElement;
      return (
        region.contains(active) &&
        (active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement) &&
        active.value !== ''
      );
    };

    function refresh() {
      if (typing()) {
        deferred = true;
        return refreshing;
      }
      deferred = false;
      refreshing = refreshing
        .then(async () => {
          const response = await fetch(region.dataset.fragment, {
            headers: { accept: 'text/html' },
            credentials: 'same-origin',
          });
          if (response.status === 401 || response.redirected) {
            announce('Signed out: reload the page to sign in again.', 'error');
            return;
          }
          if (!response.ok) throw new Error(`the page could not be read (${response.status})`);
          const html = await response.text();
          const count = response.headers.get('x-pending-count');
          setCount(region.dataset.countName, count);
          const own = document.getElementById('pending-count');
          if (own !== null && count !== null) own.textContent = count;
          if (html === shown) return;
          // Focus stays where it was, as far as the same element is still there.
          const focused = region.contains(document.activeElement) ? document.activeElement : null;
          const focusItem = focused?.closest('[data-item]')?.dataset.item;
          const focusKey = focused === null ? undefined : keyOf(focused);
          region.innerHTML = html;
          shown = html;
          const now = itemsIn();
          const added = [...now.keys()].filter((id) => !known.has(id));
          if (added.length > 0) {
            const labels = added.map((id) => now.get(id)?.dataset.label ?? id);
            announce(`${region.dataset.announce ?? 'New'}: ${labels.join(', ')}`, 'warn');
          }
          known = new Set(now.keys());
          if (focused !== null) {
            const item = focusItem === undefined ? region : now.get(focusItem);
            const again = [...(item ?? region).querySelectorAll('button, input, a')].find(
              (el) => keyOf(el) === focusKey,
            );
            (again ?? item?.querySelector('button') ?? region).focus();
          }
          tick();
        })
        .catch((error) => announce(String(error.message ?? error), 'error'));
      return refreshing;
    }

    region.tabIndex = -1;
    region.addEventListener('focusout', () => {
      // Refreshed once the person has left the field they were typing in.
      setTimeout(() => {
        if (deferred && !typing()) void refresh();
      }, 0);
    });
    return { region, refresh, events: (region.dataset.events ?? '').split(' ') };
  }

  const regions = [...document.querySelectorAll('.live[data-fragment]')].map(liveRegion);
  if (regions.length > 0) {
    const events = new EventSource('/ui/events');
    const refreshAll = () => regions.forEach((item) => void item.refresh());
    events.addEventListener('ready', () => {
      for (const item of regions) item.region.dataset.connected = 'true';
      // Whatever happened while the stream was down.
      refreshAll();
    });
    events.addEventListener('resync', refreshAll);
    for (const name of new Set(regions.flatMap((item) => item.events))) {
      events.addEventListener(name, () => {
        for (const item of regions) if (item.events.includes(name)) void item.refresh();
      });
    }
    events.addEventListener('error', () => {
      for (const item of regions) item.region.dataset.connected = 'false';
    });
  }

  // Decisions in a live region without leaving the page (elsewhere the form posts).
  document.addEventListener('submit', async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-enhance')) return;
    const owner = regions.find((item) => item.region.contains(form));
    if (owner === undefined) return;
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
        announce(body.message ?? 'Done.');
      }
    } catch (error) {
      announce(`Not sent: ${error.message}`, 'error');
    } finally {
      for (const button of buttons) button.disabled = false;
      // A decided item leaves the region; focus then goes to the next one, or the region.
      void owner.refresh();
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
