// The table page's few lines of script: the turn countdown, the raise slider and quick buttons,
// keyboard shortcuts, the connection status, and asking for the whole table after a version gap.
// Everything else is htmx: the ws extension sends forms and swaps the regions the server renders.
(function () {
  "use strict";

  // ---- countdown: data-deadline is a unix time; data-server-now (when rendered) corrects a skewed
  // client clock. The server's clock decides; this only shows it.
  var skews = new WeakMap();
  function tick() {
    var nowClient = Date.now() / 1000;
    document.querySelectorAll(".countdown[data-deadline]").forEach(function (el) {
      if (!skews.has(el)) {
        var serverNow = parseFloat(el.dataset.serverNow);
        var skew = isNaN(serverNow) ? 0 : serverNow - nowClient;
        skews.set(el, Math.abs(skew) > 2 ? skew : 0); // within rendering delay: trust the client clock
      }
      var left = Math.max(0, Math.ceil(parseFloat(el.dataset.deadline) - (nowClient + skews.get(el))));
      var out = el.querySelector(".seconds");
      if (out && out.textContent !== String(left)) out.textContent = String(left);
      if (el.classList.contains("turn-clock")) el.classList.toggle("urgent", left <= 5);
    });
  }
  setInterval(tick, 250);
  document.addEventListener("DOMContentLoaded", tick);

  // ---- raise: the number field, the slider and the quick buttons show one amount.
  document.addEventListener("input", function (e) {
    var form = e.target.form;
    if (!form || !form.classList.contains("raise-form")) return;
    if (e.target.classList.contains("raise-slider")) form.elements.amount.value = e.target.value;
    else if (e.target.name === "amount") form.querySelector(".raise-slider").value = e.target.value;
  });
  document.addEventListener("click", function (e) {
    var button = e.target.closest(".quick-raise");
    if (!button) return;
    var form = button.form;
    form.elements.amount.value = button.dataset.amount;
    form.querySelector(".raise-slider").value = button.dataset.amount;
    form.elements.amount.focus();
  });

  // ---- keys: f fold/pass, c call, r raise amount, d dark, n no dark, j join, s skip (not while typing).
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target;
    if (t.matches && t.matches("input, textarea, select, [contenteditable]")) return;
    var key = e.key.toLowerCase();
    var button = document.querySelector('#table-actions button[data-key="' + key + '"]');
    if (!button) return;
    e.preventDefault();
    if (key === "r") {
      var amount = button.form.elements.amount;
      amount.focus();
      amount.select();
    } else {
      button.click();
    }
  });

  // ---- versions: drop a frame older than what is shown (same epoch), and ask for the whole
  // table when one or more versions were skipped (a dropped broadcast, a slow socket).
  var VERSION_RE = /id="table-version"[^>]*data-version="(\d+)"[^>]*data-epoch="([0-9a-f]*)"/;
  var needSync = false;
  function shown() {
    var el = document.getElementById("table-version");
    return el ? { version: parseInt(el.dataset.version, 10) || 0, epoch: el.dataset.epoch || "" } : null;
  }
  document.addEventListener("htmx:wsBeforeMessage", function (e) {
    var m = VERSION_RE.exec(e.detail.message);
    var now = shown();
    if (!m || !now || !now.version) return;
    var version = parseInt(m[1], 10);
    if (m[2] !== now.epoch) return; // the table was rebuilt: its versions start again
    if (version < now.version) {
      e.preventDefault(); // an older frame overtaken by a newer one
    } else if (version > now.version + 1) {
      needSync = true;
    }
  });
  document.addEventListener("htmx:wsAfterMessage", function (e) {
    if (!needSync) return;
    needSync = false;
    e.detail.socketWrapper.send(JSON.stringify({ verb: "sync" }));
  });

  // ---- connection status.
  // The words come from the page (data-* attributes), already in the player's language.
  function status(key, cls) {
    var el = document.getElementById("table-connection");
    if (!el) return;
    el.textContent = el.dataset[key] || key;
    el.className = "connection " + cls;
  }
  // While the socket is down nothing the player clicks could reach the table: the moves and seat
  // controls are disabled and the page says why. Whatever the extension queued meanwhile (a click
  // in the moment before the drop was noticed) is dropped on reconnect, not sent late: the table
  // is sent whole on connect, and the player decides again on what it shows.
  function offline(down) {
    var live = document.querySelector(".table-live");
    if (live) live.classList.toggle("offline", down);
    var note = document.getElementById("table-offline");
    if (note) note.hidden = !down;
    document.querySelectorAll("#table-actions button, #table-actions input").forEach(function (el) {
      el.disabled = down;
    });
  }
  document.addEventListener("htmx:wsOpen", function (e) {
    status("connected", "live");
    offline(false);
    var queue = e.detail && e.detail.socketWrapper ? e.detail.socketWrapper.queue : null;
    if (queue && queue.length) queue.length = 0;
  });
  document.addEventListener("htmx:wsClose", function (e) {
    // The extension reconnects by itself only after these codes; others mean "reload".
    var code = e.detail && e.detail.event ? e.detail.event.code : 0;
    if ([1006, 1011, 1012, 1013].indexOf(code) >= 0) status("lost", "lost");
    else status("closed", "lost");
    offline(true);
  });
  // Reconnect within a second while the page is in sight (the extension's default backs off to a
  // minute); a hidden page backs off as before.
  if (window.htmx) {
    htmx.config.wsReconnectDelay = function (retries) {
      if (document.visibilityState === "visible") return 300 + Math.random() * 500;
      return 1000 * Math.pow(2, Math.min(retries, 6)) * Math.random();
    };
  }

  // ---- leaving mid-hand folds the hand: the form says so (data-confirm) and asks first.
  document.addEventListener(
    "submit",
    function (e) {
      var form = e.target;
      if (form.dataset && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
        e.preventDefault();
        e.stopImmediatePropagation();
      }
    },
    true
  );

  // ---- the header's wallet: refreshed when this viewer sits down or their seat is freed (a
  // buy-in, a cash-out), or adds chips between hands; a hand's result moves chips between seats,
  // not the wallet, so it asks for nothing.
  var seen = { seated: null, chips: null, played: false };
  document.addEventListener("htmx:wsAfterMessage", function () {
    var mine = document.querySelector("#table-seats .seat.me .seat-chips .amount");
    var pot = document.getElementById("table-pot");
    var inHand = !!pot && ["over", "waiting"].indexOf(pot.dataset.phase) < 0;
    var changed = seen.seated !== null && !!mine !== seen.seated;
    seen.seated = !!mine;
    if (!mine) {
      seen.chips = null;
    } else if (inHand) {
      seen.played = true;
    } else {
      if (seen.chips !== null && mine.textContent !== seen.chips && !seen.played) changed = true;
      seen.chips = mine.textContent;
      seen.played = false;
    }
    if (changed) document.body.dispatchEvent(new Event("svara:wallet"));
  });
})();
