// Every page of a signed-in player: invitations from friends and requests waiting, asked for every
// 15 s (games/players/friends.py, notices), shown in a corner; a new invitation also as a browser
// notification when the player allowed them (asked only on the friends page's button, on a click).
(function () {
  "use strict";
  var region = document.getElementById("friend-notices");
  if (!region || !window.fetch) return;
  var hasApi = "Notification" in window;
  var told = {};
  try { told = JSON.parse(sessionStorage.getItem("svara-told") || "{}"); } catch (e) { told = {}; }
  var last = null;

  function tell(items) {
    if (!hasApi || Notification.permission !== "granted") return;
    items.forEach(function (item) {
      if (told[item.id]) return;
      told[item.id] = 1;
      var note = new Notification(item.text, { tag: "svara-invitation-" + item.id });
      note.onclick = function () { window.focus(); window.location.assign(item.url); };
    });
    try { sessionStorage.setItem("svara-told", JSON.stringify(told)); } catch (e) { /* private mode */ }
  }

  function poll() {
    fetch(region.dataset.url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) {
        if (!data) return;
        if (data.html !== last) { region.innerHTML = data.html; last = data.html; }
        tell(data.invitations);
      })
      .catch(function () { /* offline for now: the next call tries again */ });
  }

  region.addEventListener("submit", function (event) {
    var form = event.target.closest("form.friend-dismiss");
    if (!form) return;
    event.preventDefault();
    fetch(form.action, { method: "POST", body: new FormData(form), credentials: "same-origin" }).then(poll);
  });

  var row = document.getElementById("notify-row");
  var ask = document.getElementById("notify-permission");
  var state = document.getElementById("notify-state");
  if (row && ask && hasApi && Notification.permission === "default") {
    row.hidden = false;
    ask.addEventListener("click", function () {
      Notification.requestPermission().then(function (answer) {
        row.hidden = answer === "granted" || answer === "denied";
        if (state) state.textContent = answer === "granted" ? ask.dataset.granted : ask.dataset.denied;
      });
    });
  }

  poll();
  setInterval(poll, 15000);
})();
