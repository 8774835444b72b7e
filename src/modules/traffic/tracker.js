// The AI-traffic tracking script (GET /v1/ai-traffic/t.js). Dependency-free, minified at start-up;
// the server replaces "__COLLECT__" with the collect URL relative to the path it serves this at.
(function (w, d) {
  try {
    var script = d.currentScript;
    var siteKey = script && script.getAttribute("data-site");
    var loc = w.location;
    var nav = w.navigator;
    var hist = w.history;
    if (!siteKey) return;
    // automation and local development are not visits, unless the tag opts in (tests do)
    if (
      !script.hasAttribute("data-allow-local") &&
      (nav.webdriver || /^(localhost|127(\.\d+){3}|\[::1\]|0\.0\.0\.0)$|\.localhost$/.test(loc.hostname) || loc.protocol == "file:")
    ) return;
    try {
      // a site owner excludes their own browser with localStorage.aivis_ignore = "1"
      if (w.localStorage.getItem("aivis_ignore")) return;
    } catch (e) {}

    var endpoint = new URL("__COLLECT__", script.src).href;
    var sessionId;
    var store;
    try {
      store = w.sessionStorage;
      sessionId = store.getItem("aivis_sid");
    } catch (e) {}
    if (!sessionId) {
      // time first: ids sort by creation, so the server's session index grows at its end
      sessionId = Date.now().toString(36) + Math.random().toString(36).slice(2);
      try {
        store.setItem("aivis_sid", sessionId);
      } catch (e) {}
    }

    var currentPath = null; // path of the last page view sent
    var engagedMs = 0; // engaged time on the current page view
    var engagedSince = 0; // start of the running engaged stretch, 0 when not engaged
    var maxScroll = 0; // deepest scroll on the current page view, % of page height
    var sentMs = 0;
    var sentScroll = 0;

    var safe = function (fn) {
      return function (event) {
        try {
          fn(event);
        } catch (e) {}
      };
    };

    var send = function (data) {
      data.siteKey = siteKey;
      data.sessionId = sessionId;
      var body = JSON.stringify(data);
      // a string body goes as text/plain: a "simple" request, so no CORS preflight
      try {
        fetch(endpoint, { method: "POST", body: body, keepalive: true, credentials: "omit" })["catch"](function () {});
      } catch (e) {
        nav.sendBeacon && nav.sendBeacon(endpoint, body);
      }
    };

    // engaged time counts only while the tab is visible and focused
    var updateEngaged = function () {
      var now = Date.now();
      if (engagedSince) engagedMs += now - engagedSince;
      engagedSince = d.visibilityState == "visible" && d.hasFocus() ? now : 0;
    };

    var measureScroll = function () {
      var root = d.documentElement;
      var body = d.body;
      var height = Math.max(root.scrollHeight, body ? body.scrollHeight : 0);
      var seen = (w.scrollY || root.scrollTop) + w.innerHeight;
      var depth = height > 0 ? Math.min(100, Math.round((seen / height) * 100)) : 100;
      if (depth > maxScroll) maxScroll = depth;
    };

    // sent on hide, blur and before the next SPA page view, and only when something grew
    var sendEngagement = function () {
      if (currentPath === null) return;
      updateEngaged();
      measureScroll();
      if (engagedMs > sentMs || maxScroll > sentScroll) {
        sentMs = engagedMs;
        sentScroll = maxScroll;
        send({ path: currentPath, sessionDurationMs: engagedMs, scrollDepth: maxScroll });
      }
    };

    var pageview = function () {
      var path = loc.pathname.slice(0, 1024);
      if (path === currentPath) return; // replaceState or popstate that kept the path
      sendEngagement();
      currentPath = path;
      engagedMs = sentMs = maxScroll = sentScroll = engagedSince = 0;
      updateEngaged();
      var data = {
        path: path,
        referrer: d.referrer.slice(0, 2048),
        title: d.title.slice(0, 512),
        userAgent: nav.userAgent.slice(0, 512),
      };
      var query = new URLSearchParams(loc.search);
      var tags = { utmSource: "utm_source", utmMedium: "utm_medium", utmCampaign: "utm_campaign" };
      for (var key in tags) {
        var value = query.get(tags[key]);
        if (value) data[key] = value.slice(0, 256);
      }
      send(data);
      measureScroll();
    };

    var hook = function (name) {
      var original = hist[name];
      if (original) {
        hist[name] = function () {
          var result = original.apply(this, arguments);
          safe(pageview)();
          return result;
        };
      }
    };
    hook("pushState");
    hook("replaceState");

    var on = function (target, type, fn) {
      target.addEventListener(type, safe(fn), { passive: true });
    };
    on(w, "popstate", pageview);
    on(w, "scroll", measureScroll);
    on(w, "focus", updateEngaged);
    on(w, "blur", sendEngagement);
    on(w, "pagehide", sendEngagement);
    on(d, "visibilitychange", function () {
      d.visibilityState == "hidden" ? sendEngagement() : updateEngaged();
    });
    // a page restored from the back/forward cache is a new page view of the same path
    on(w, "pageshow", function (e) {
      if (e.persisted) {
        currentPath = null;
        pageview();
      }
    });
    if (d.prerendering) on(d, "prerenderingchange", pageview);
    else pageview();
  } catch (e) {}
})(window, document);
