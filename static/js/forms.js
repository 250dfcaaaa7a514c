// Every page's forms: after a refused form (the page came back with its errors), the focus goes to
// the first field marked invalid (Django marks it aria-invalid and ties the error to it), so a
// keyboard or screen reader user starts where the form needs them rather than at the top.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var field = document.querySelector("main form [aria-invalid='true']");
    if (!field) {
      // An error of the whole form (a wrong password): its first field.
      var error = document.querySelector("main form .errorlist, main form .form-errors");
      field = error ? error.closest("form").querySelector("input:not([type=hidden]), select, textarea") : null;
    }
    var now = document.activeElement;
    if (field && (!now || now === document.body)) field.focus();
  });
})();
