// The first paint's theme: the tj_theme cookie (light, dark or system; the
// api sets it at sign-in and when the user picks one, and keeps it after a
// sign-out) applied before the app's scripts run. A file, not an inline
// script: the Content-Security-Policy allows only the app's own scripts.
(function () {
  var m = /(?:^|;\s*)tj_theme=(light|dark)(?:;|$)/.exec(document.cookie);
  if (m) document.documentElement.setAttribute('data-theme', m[1]);
})();
