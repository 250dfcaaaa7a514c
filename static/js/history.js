// Hand replay keys: ← / → step back and forward, Home / End jump to the start and the end.
// Each key clicks the matching step link, so htmx (or, without it, the plain link) does the rest.
(function () {
  "use strict";
  var KEYS = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };
  document.addEventListener("keydown", function (event) {
    var nav = KEYS[event.key];
    if (!nav || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    var link = document.querySelector('#replay [data-step-nav="' + nav + '"]');
    if (!link) return;
    event.preventDefault();
    link.click();
  });
  // The step links are replaced with each step: keep the focus on the one that was used.
  document.addEventListener("htmx:afterSwap", function (event) {
    if (!event.detail || !event.detail.elt) return;
    var used = event.detail.requestConfig && event.detail.requestConfig.elt;
    var nav = used && used.getAttribute && used.getAttribute("data-step-nav");
    if (!nav) return;
    var again = document.querySelector('#replay [data-step-nav="' + nav + '"]') ||
      document.querySelector("#replay [data-step-nav]");
    if (again) again.focus();
  });
})();
