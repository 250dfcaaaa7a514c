// The table page's few lines of script: the turn countdown and the clock on the seat to act, the
// raise slider and quick buttons, keyboard shortcuts (and their switch), keeping the focus across
// the swaps, the connection status, asking for the whole table after a version gap, the turn alert
// while the tab is hidden, and the motion of cards and chips. Everything else is htmx: the ws
// extension sends forms and swaps the regions the server renders.
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
    // The seat's clock runs down by CSS alone (static/css/table.css); each new one is told once
    // how much of the turn is left (the pot's countdown has the deadline and the turn's length):
    // the bar's width and the time it takes to empty.
    var turn = document.querySelector("#table-pot .turn-clock[data-deadline]");
    document.querySelectorAll(".seat-clock:not([style])").forEach(function (el) {
      if (!turn || !skews.has(turn)) return;
      var left = Math.max(0, parseFloat(turn.dataset.deadline) - (nowClient + skews.get(turn)));
      var total = parseFloat(turn.dataset.seconds) || left || 1;
      el.style.setProperty("--left", left.toFixed(2) + "s");
      el.style.setProperty("--from", Math.min(1, left / total).toFixed(3));
      el.style.setProperty("--urgent-in", Math.max(0, left - 5).toFixed(2) + "s");
    });
  }
  setInterval(tick, 250);
  document.addEventListener("DOMContentLoaded", tick);
  document.addEventListener("htmx:wsAfterMessage", tick);

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

  // ---- keys: f fold/pass, c call, r raise amount, d dark, n no dark, j join, s skip. Matched on the
  // physical key (event.code), so they are the same keys on a Cyrillic layout. Never while typing in
  // a field, nor with the focus on a link or a button outside the moves (Enter or a letter there
  // means that control), and not at all when the player switched them off (remembered here).
  var KEYS_KEY = "svara.shortcuts";
  var CODES = { KeyF: "f", KeyC: "c", KeyR: "r", KeyD: "d", KeyN: "n", KeyJ: "j", KeyS: "s" };
  function shortcutsOn() {
    try {
      return window.localStorage.getItem(KEYS_KEY) !== "off";
    } catch (err) {
      return true;
    }
  }
  function showKeysSwitch() {
    var on = shortcutsOn();
    var button = document.getElementById("keys-switch");
    if (button) button.setAttribute("aria-pressed", on ? "true" : "false");
    document.documentElement.classList.toggle("keys-off", !on);
  }
  document.addEventListener("DOMContentLoaded", showKeysSwitch);
  document.addEventListener("click", function (e) {
    if (!e.target.closest("#keys-switch")) return;
    try {
      window.localStorage.setItem(KEYS_KEY, shortcutsOn() ? "off" : "on");
    } catch (err) {
      /* storage refused: the switch stays as it was */
    }
    showKeysSwitch();
  });
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat || !shortcutsOn()) return;
    var key = CODES[e.code];
    if (!key) return;
    var t = e.target;
    if (t.closest) {
      if (t.closest("input, textarea, select, [contenteditable]")) return;
      if (t.closest("a, button, summary, [role=button]") && !t.closest("#table-actions .moves")) return;
    }
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

  // ---- focus: the regions are replaced whole, so whatever had the focus is gone after a frame.
  // It goes back to the same control in the new regions (the same id, or the same field of the
  // same move's form); when that control is gone (the move was made), to the actions; when the
  // turn comes, to CALL or the turn's heading. After a refused command the field of the form sent gets it,
  // marked invalid and described by the reason.
  function formVerb(form) {
    var verb = form && form.elements ? form.elements.verb : null;
    return verb ? verb.value : "";
  }
  function focusKey(el) {
    var live = document.querySelector(".table-live");
    if (!el || !live || el === document.body || !live.contains(el)) return null;
    var form = el.form || (el.closest && el.closest("form"));
    var region = el.closest("[id^='table-']");
    return {
      id: el.id || "",
      region: region ? region.id : "",
      tag: el.tagName.toLowerCase(),
      verb: formVerb(form),
      position: form && form.elements.position ? form.elements.position.value : "",
      name: el.name || "",
      type: el.type || "",
      amount: el.dataset ? el.dataset.amount || "" : "",
      // What the player typed there (a frame would put the field back as the server wrote it).
      typed: el.tagName === "INPUT" && el.type !== "range" && el.value !== el.defaultValue ? el.value : null,
    };
  }
  function findByKey(key) {
    if (!key) return null;
    if (key.id) return document.getElementById(key.id);
    var region = document.getElementById(key.region);
    if (!region) return null;
    var found = null;
    region.querySelectorAll(key.tag).forEach(function (el) {
      if (found || el.type === "hidden") return;
      var form = el.form || el.closest("form");
      var position = form && form.elements.position ? form.elements.position.value : "";
      if (
        formVerb(form) === key.verb &&
        position === key.position &&
        (el.name || "") === key.name &&
        (el.type || "") === key.type &&
        (el.dataset.amount || "") === key.amount
      ) {
        found = el;
      }
    });
    return found;
  }
  function usable(el) {
    return el && !el.disabled && el.getClientRects().length > 0;
  }
  function refocus(el, key) {
    if (key.typed !== null && el.tagName === "INPUT") {
      el.value = key.typed;
      var slider = el.form && el.form.querySelector(".raise-slider");
      if (slider && el.name === "amount") slider.value = key.typed;
    }
    el.focus({ preventScroll: true });
  }
  function focusLost() {
    var el = document.activeElement;
    return !el || el === document.body || !el.isConnected;
  }
  // The player was typing (a client seed, chips to add): the turn does not take the focus from there.
  function typingIn(key) {
    if (!key) {
      var el = document.activeElement;
      return !!el && !!el.closest && !!el.closest("input:not([type=hidden]), textarea, select, [contenteditable]");
    }
    if (key.tag === "textarea" || key.tag === "select") return true;
    return key.tag === "input" && ["range", "submit", "button", "checkbox", "radio"].indexOf(key.type) < 0;
  }
  var focused = null; // the focus key before the frame
  var sent = null; // the first field of the form last sent: where a refusal puts the focus
  var sentAt = 0; // when (a refusal answers within a moment; other frames may come in between)
  var turnShown = false;
  document.addEventListener(
    "submit",
    function (e) {
      var field = e.target.querySelector("input:not([type=hidden]), select, textarea");
      sent = field ? focusKey(field) : null;
      sentAt = Date.now();
    },
    true
  );
  document.addEventListener("htmx:wsBeforeMessage", function () {
    focused = focusKey(document.activeElement);
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    var error = document.querySelector("#table-notice .error");
    var turn = !!document.querySelector("#table-actions .moves");
    var came = turn && !turnShown;
    turnShown = turn;
    if (error && sent && Date.now() - sentAt < 5000) {
      var field = findByKey(sent);
      if (usable(field)) {
        field.setAttribute("aria-invalid", "true");
        field.setAttribute("aria-describedby", "table-notice");
        refocus(field, sent);
        sent = null;
        return;
      }
    }
    // On your turn a safe place takes the focus when the turn comes: CALL when there is something
    // to call, else the turn's heading (which says the turn and its price); never FOLD or PASS, so
    // a reflex Enter does not throw the hand away. Also on a later frame of the same turn if the
    // focus is then nowhere or only on the actions' section (the turn's first frame may have come
    // while the moves could not take it).
    var idle = focusLost() || document.activeElement === document.getElementById("table-actions");
    if ((came || (turn && idle)) && !typingIn(focused)) {
      var safe = document.querySelector("#table-actions .moves .verb-call");
      if (!usable(safe)) safe = document.getElementById("turn-heading");
      if (usable(safe)) {
        // The layout keeps the moves in sight (table.css), so the page does not jump on the turn;
        // only where it could not (a narrow window, many seats) is the least scrolled to show it.
        safe.focus({ preventScroll: true });
        var box = safe.getBoundingClientRect();
        if (box.top < 0 || box.bottom > window.innerHeight) safe.scrollIntoView({ block: "nearest" });
        return;
      }
    }
    if (!focusLost() || !focused) return;
    var again = findByKey(focused);
    if (usable(again)) {
      refocus(again, focused);
    } else if (["table-actions", "table-seats", "table-pot"].indexOf(focused.region) >= 0) {
      var actions = document.getElementById("table-actions");
      if (actions) actions.focus({ preventScroll: true });
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
  // is sent whole on connect, and the player decides again on what it shows. A click before the
  // first connection (the page just served, a slow network) is sent: it was made on what the
  // server had just rendered, and dropping it lost a "Sit here" without a word.
  var everOpen = false;
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
    if (everOpen && queue && queue.length) queue.length = 0;
    everOpen = true;
  });
  document.addEventListener("htmx:wsClose", function (e) {
    // The extension reconnects by itself only after these codes; others mean "reload".
    var code = e.detail && e.detail.event ? e.detail.event.code : 0;
    if ([1006, 1011, 1012, 1013].indexOf(code) >= 0) status("lost", "lost");
    else if (code === 4429) status("toomany", "lost"); // this account's or address's limit of table pages
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
  // Whether the viewer sits here is read from the page as served (this script is deferred), not
  // from the socket's first frame: on a slow connection a sit could be applied before that frame
  // came, and the sit was then never seen as a change (the wallet stayed stale for 30 s).
  var seen = {
    seated: !!document.querySelector("#table-seats .seat.me .seat-chips .amount"),
    chips: null,
    played: false,
  };
  document.addEventListener("htmx:wsAfterMessage", function () {
    var mine = document.querySelector("#table-seats .seat.me .seat-chips .amount");
    var pot = document.getElementById("table-pot");
    var inHand = !!pot && ["over", "waiting"].indexOf(pot.dataset.phase) < 0;
    var changed = !!mine !== seen.seated;
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

  // ---- the turn alert: when the player's turn comes while the tab is hidden, the title says so,
  // a short beep sounds (unless switched off: remembered in localStorage) and, if the player
  // allowed notifications, one pops up. Back in sight, the title is the page's again.
  var SOUND_KEY = "svara.turnSound";
  var pageTitle = document.title;
  var myTurn = null;
  var notice = null;
  var audio = null;
  function soundOn() {
    try {
      return window.localStorage.getItem(SOUND_KEY) !== "off";
    } catch (err) {
      return true;
    }
  }
  function showSoundSwitch() {
    var button = document.getElementById("sound-switch");
    if (button) button.setAttribute("aria-pressed", soundOn() ? "true" : "false");
  }
  function audioContext() {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!audio && Context) audio = new Context();
    return audio;
  }
  // Browsers let a page play sound only after the player has used it: the first click or key
  // unlocks the beep for later, when the tab may be hidden.
  function unlockAudio() {
    if (!soundOn()) return;
    var context = audioContext();
    if (context && context.state === "suspended") context.resume();
  }
  document.addEventListener("pointerdown", unlockAudio, { passive: true });
  document.addEventListener("keydown", unlockAudio);
  function beep() {
    if (!soundOn()) return false;
    var context = audioContext();
    if (!context) return false;
    if (context.state === "suspended") context.resume();
    var start = context.currentTime + 0.01;
    var tone = context.createOscillator();
    var gain = context.createGain();
    tone.frequency.value = 880;
    gain.gain.setValueAtTime(0.0001, start);
    gain.gain.exponentialRampToValueAtTime(0.25, start + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.3);
    tone.connect(gain);
    gain.connect(context.destination);
    tone.start(start);
    tone.stop(start + 0.32);
    return true;
  }
  function notify(words) {
    if (!("Notification" in window) || Notification.permission !== "granted") return false;
    try {
      notice = new Notification(words.dataset.title, { body: words.dataset.body, tag: "svara-turn" });
      notice.onclick = function () {
        window.focus();
        notice.close();
      };
      return true;
    } catch (err) {
      return false; // some browsers allow notifications only from a service worker
    }
  }
  function turnCame() {
    var words = document.getElementById("turn-alerts");
    if (!words || document.visibilityState !== "hidden") return;
    document.title = words.dataset.title + " · " + pageTitle;
    var detail = { title: document.title, sound: beep(), notified: notify(words) };
    document.dispatchEvent(new CustomEvent("svara:turn-alert", { detail: detail }));
  }
  function turnSeen() {
    document.title = pageTitle;
    if (notice) notice.close();
    notice = null;
  }
  function followTurn() {
    var now = !!document.querySelector("#table-actions .moves");
    if (now && myTurn === false) turnCame();
    if (!now) turnSeen();
    myTurn = now;
  }
  document.addEventListener("DOMContentLoaded", function () {
    myTurn = !!document.querySelector("#table-actions .moves"); // the page's first paint: no alert
    showSoundSwitch();
    var notifySwitch = document.getElementById("notify-switch");
    if (notifySwitch && "Notification" in window && Notification.permission === "default") {
      notifySwitch.hidden = false;
    }
  });
  document.addEventListener("htmx:wsAfterMessage", followTurn);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") turnSeen();
  });
  document.addEventListener("click", function (e) {
    if (e.target.closest("#sound-switch")) {
      try {
        window.localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on");
      } catch (err) {
        /* storage refused: the switch stays as it was */
      }
      showSoundSwitch();
      unlockAudio();
    } else if (e.target.closest("#notify-switch")) {
      var button = e.target.closest("#notify-switch");
      Notification.requestPermission().then(function () {
        button.hidden = Notification.permission !== "default";
      });
    }
  });

  // ---- motion: the cards of a new deal come one at a time in dealing order, a bet's chips fly
  // from the seat to the pot, the pot to the winner. Short, and none when the player asked for
  // less motion. The server's regions stay as they are: this only animates what arrived.
  var still = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : { matches: false };
  var dealt = null; // "hand-deal" of the cards last dealt on screen
  var before = null; // each seat's bet and box, and the pot's, before a frame is swapped in
  function dealKey() {
    var pot = document.getElementById("table-pot");
    if (!pot || pot.dataset.phase === "svara" || !pot.dataset.hand) return null;
    return pot.dataset.hand + "-" + pot.dataset.deal;
  }
  function animateDeal() {
    var seats = [].slice.call(document.querySelectorAll("#table-seats .seat:not(.empty)"));
    var dealer = document.querySelector("#table-seats .seat:has(.dealer)");
    var n = document.querySelectorAll("#table-seats .seat").length || 1;
    var from = dealer ? parseInt(dealer.dataset.position, 10) : 0;
    var withCards = seats.filter(function (seat) {
      return seat.querySelector(".seat-cards .card");
    });
    withCards.sort(function (a, b) {
      return ((a.dataset.position - from - 1 + n) % n) - ((b.dataset.position - from - 1 + n) % n);
    });
    withCards.forEach(function (seat, order) {
      seat.querySelectorAll(".seat-cards .card").forEach(function (card, round) {
        card.style.animationDelay = (round * withCards.length + order) * 110 + "ms";
        card.classList.add("deal");
      });
    });
  }
  function centre(rect) {
    return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
  }
  function fly(from, to, count) {
    for (var i = 0; i < count; i++) {
      var chip = document.createElement("span");
      chip.className = "chip-fly";
      chip.setAttribute("aria-hidden", "true");
      chip.style.left = from.x + "px";
      chip.style.top = from.y + "px";
      chip.style.transitionDelay = i * 60 + "ms";
      document.body.appendChild(chip);
      chip.getBoundingClientRect(); // start from here: the move below is a transition
      chip.style.transform = "translate(" + (to.x - from.x) + "px, " + (to.y - from.y) + "px)";
      chip.addEventListener("transitionend", chip.remove.bind(chip));
      setTimeout(chip.remove.bind(chip), 1500);
    }
  }
  // ---- moments: what the table's big moments sound like (short tones made here with WebAudio, no
  // files; only while the sound switch is on) and the win's "+chips" rising from the winner's seat.
  // Each moment is also told to the page as svara:moment (the browser tests listen to it).
  function tone(freq, at, length, peak, type) {
    var context = audioContext();
    if (!context) return;
    var start = context.currentTime + 0.01 + at;
    var osc = context.createOscillator();
    var gain = context.createGain();
    osc.type = type || "sine";
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, start);
    gain.gain.exponentialRampToValueAtTime(peak, start + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + length);
    osc.connect(gain);
    gain.connect(context.destination);
    osc.start(start);
    osc.stop(start + length + 0.02);
  }
  var SOUNDS = {
    deal: function (count) {
      for (var i = 0; i < Math.min(count, 9); i++) tone(1400, i * 0.11, 0.04, 0.05, "triangle");
    },
    chips: function () {
      tone(2300, 0, 0.03, 0.06, "square");
      tone(2700, 0.06, 0.03, 0.05, "square");
    },
    win: function (mine) {
      (mine ? [523, 659, 784, 1047] : [659]).forEach(function (f, i) {
        tone(f, i * 0.09, 0.25, 0.09, "sine");
      });
    },
    svara: function () {
      tone(440, 0, 0.35, 0.1, "sine");
      tone(660, 0.18, 0.5, 0.1, "sine");
    },
  };
  function moment(kind, arg) {
    var sound = soundOn() && document.visibilityState !== "hidden" && !!audioContext();
    if (sound) SOUNDS[kind](arg);
    document.dispatchEvent(new CustomEvent("svara:moment", { detail: { kind: kind, sound: sound } }));
  }
  function chipsOf(seat) {
    var amount = seat.querySelector(".seat-chips .amount");
    return amount ? parseInt(amount.textContent.replace(/\D/g, ""), 10) || 0 : 0;
  }
  function winRise(seat, amount) {
    var box = seat.getBoundingClientRect();
    var label = document.createElement("span");
    label.className = "win-rise";
    label.setAttribute("aria-hidden", "true"); // the result line says it to everyone
    label.textContent = "+" + amount.toLocaleString(document.documentElement.lang || undefined);
    label.style.left = box.left + box.width / 2 + "px";
    label.style.top = box.top + box.height / 3 + "px";
    document.body.appendChild(label);
    label.addEventListener("animationend", label.remove.bind(label));
    setTimeout(label.remove.bind(label), 2500);
  }
  function betOf(seat) {
    var bet = seat.querySelector(".seat-bet");
    return bet ? parseInt(bet.dataset.bet, 10) || 0 : 0;
  }
  function snapshot() {
    var seats = {};
    document.querySelectorAll("#table-seats .seat:not(.empty)").forEach(function (seat) {
      seats[seat.dataset.position] = { bet: betOf(seat), chips: chipsOf(seat), box: seat.getBoundingClientRect() };
    });
    var pot = document.querySelector("#table-pot .pot-amount") || document.getElementById("table-pot");
    var phase = document.getElementById("table-pot");
    return { seats: seats, pot: pot ? pot.getBoundingClientRect() : null, phase: phase ? phase.dataset.phase : "" };
  }
  // The fair-deck badge stays open across the swaps while the player reads it.
  var badgeOpen = false;
  document.addEventListener("htmx:wsBeforeMessage", function () {
    before = snapshot(); // the moments' sounds need it under reduced motion too
    badgeOpen = !!document.querySelector("#table-pot .fair-badge[open]");
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    var badge = document.querySelector("#table-pot .fair-badge");
    if (badge && badgeOpen) badge.open = true;
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    var key = dealKey();
    var cards = document.querySelector("#table-seats .seat-cards .card");
    if (key && cards && key !== dealt) {
      if (dealt !== null) {
        if (!still.matches) animateDeal();
        moment("deal", document.querySelectorAll("#table-seats .seat-cards .card").length);
      }
      dealt = key;
    }
    if (!before || !before.pot) return;
    var moving = !still.matches;
    var pot = document.getElementById("table-pot");
    var potBox = (document.querySelector("#table-pot .pot-amount") || pot).getBoundingClientRect();
    var bet = false;
    document.querySelectorAll("#table-seats .seat:not(.empty)").forEach(function (seat) {
      var was = before.seats[seat.dataset.position];
      if (was && betOf(seat) > was.bet) {
        bet = true;
        if (moving) fly(centre(was.box), centre(potBox), 3);
      }
    });
    if (bet) moment("chips");
    var phase = pot ? pot.dataset.phase : "";
    if ((phase === "svara" || phase === "join") && before.phase !== "svara" && before.phase !== "join") {
      moment("svara");
    }
    var winner = document.querySelector("#table-seats .seat.won");
    if (winner && phase === "over" && before.phase !== "over") {
      var was = before.seats[winner.dataset.position];
      var gain = was ? chipsOf(winner) - was.chips : 0; // the pot coming to the stack
      if (moving) {
        fly(centre(before.pot), centre(winner.getBoundingClientRect()), 5);
        if (gain > 0) winRise(winner, gain);
      }
      moment("win", winner.classList.contains("me"));
    }
  });
  document.addEventListener("DOMContentLoaded", function () {
    if (document.querySelector("#table-seats .seat-cards .card")) dealt = dealKey();
    else dealt = "";
  });
  // ---- chat: the box folds on a phone until opened; a sent line empties the input (a refusal
  // says why in #chat-notice); the newest line stays in sight (the log scrolls from the bottom).
  document.addEventListener("DOMContentLoaded", function () {
    var box = document.getElementById("chat-box");
    if (box && window.matchMedia("(max-width: 640px)").matches) box.open = false;
  });
  // A long evening's chat keeps the last 100 lines on the page (the server sends 50 on opening).
  document.addEventListener("htmx:wsAfterMessage", function () {
    var list = document.getElementById("chat-lines");
    while (list && list.children.length > 100) list.removeChild(list.firstElementChild);
  });
  // A refused line (a tag in it, too fast) comes back to the input to mend: the line is cleared
  // when sent and put back if the answer within a few seconds is a refusal.
  var unsent = null;
  document.addEventListener("htmx:wsAfterSend", function (e) {
    var form = e.target;
    if (form && form.id === "chat-form") {
      var input = form.querySelector("#chat-text");
      if (input) {
        unsent = { text: input.value, at: Date.now() };
        input.value = "";
      }
    }
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    if (!unsent) return;
    var refused = document.querySelector("#chat-notice.error");
    var input = document.getElementById("chat-text");
    if (refused && input && !input.value && Date.now() - unsent.at < 5000) input.value = unsent.text;
    if (refused || Date.now() - unsent.at >= 5000) unsent = null;
  });
})();
