extension WebAssets {
  /// The script: keyboard shortcuts (j/k next/previous, o open, m read/unread, s star, / search) and the read and
  /// star buttons sent with `fetch` and the `X-CSRF-Token` header, the page changed in place. The pages work
  /// without it.
  static let script = #"""
    "use strict";
    (function () {
      var meta = document.querySelector('meta[name="csrf-token"]');
      var token = meta ? meta.getAttribute("content") : "";
      var kind = document.body.className;

      function entries() { return Array.prototype.slice.call(document.querySelectorAll("li.entry")); }
      function current() {
        if (kind === "article") { return document.querySelector("article.entry"); }
        return document.querySelector("li.entry.current");
      }
      function select(entry) {
        var old = document.querySelector("li.entry.current");
        if (old) { old.classList.remove("current"); }
        if (!entry) { return; }
        entry.classList.add("current");
        entry.scrollIntoView({ block: "nearest" });
      }
      function move(step) {
        if (kind === "article") {
          var link = document.querySelector(step > 0 ? 'a[rel="next"]' : 'a[rel="prev"]');
          if (link) { window.location.href = link.href; }
          return;
        }
        var list = entries();
        if (list.length === 0) { return; }
        var index = list.indexOf(current());
        var next = index < 0 ? 0 : Math.min(list.length - 1, Math.max(0, index + step));
        select(list[next]);
      }
      function apply(entry, state) {
        entry.classList.toggle("unread", !state.read);
        entry.classList.toggle("starred", state.starred);
        var read = entry.querySelector("form.read");
        if (read) {
          read.querySelector('input[name="read"]').value = state.read ? "0" : "1";
          read.querySelector("button").textContent = state.read ? "Mark unread" : "Mark read";
        }
        var star = entry.querySelector("form.star");
        if (star) {
          star.querySelector('input[name="star"]').value = state.starred ? "0" : "1";
          star.querySelector("button").textContent = state.starred ? "Unstar" : "Star";
        }
      }
      function notice(text) {
        var shown = document.getElementById("notice");
        if (!shown) {
          shown = document.createElement("p");
          shown.id = "notice";
          shown.setAttribute("role", "status");
          var main = document.querySelector("main") || document.body;
          main.insertBefore(shown, main.firstChild);
        }
        shown.textContent = text;
      }
      function send(form) {
        var entry = form.closest(".entry");
        var body = new URLSearchParams(new FormData(form));
        return fetch(form.action, {
          method: "POST", credentials: "same-origin",
          headers: { "X-CSRF-Token": token, "Accept": "application/json",
            "Content-Type": "application/x-www-form-urlencoded" },
          body: body.toString()
        }).then(function (response) {
          if (response.status === 503) {
            // The store is busy (another program writes to it) or cannot be written (read-only): the form would meet
            // the same; nothing changed. The server's text says which.
            return response.text().then(function (text) {
              notice("Not saved: " + text.replace(/^could not save: /, ""));
              throw new Error("unavailable");
            });
          }
          if (!response.ok) { throw new Error("HTTP " + response.status); }
          return response.json();
        }).then(function (state) {
          if (entry) { apply(entry, state); }
          document.body.setAttribute("data-last-change", form.classList.contains("read") ? "read" : "star");
        }).catch(function (error) {
          console.error("could not send the change: " + error);
          if (error.message !== "unavailable") { form.submit(); }
          throw error;
        });
      }
      document.addEventListener("submit", function (event) {
        var form = event.target;
        if (!form.classList || !form.classList.contains("toggle") || !window.fetch) { return; }
        event.preventDefault();
        send(form).catch(function () {});
      });
      document.addEventListener("keydown", function (event) {
        if (event.ctrlKey || event.metaKey || event.altKey) { return; }
        var target = event.target;
        if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.isContentEditable)) {
          if (event.key === "Escape") { target.blur(); }
          return;
        }
        // Enter on a focused link or button is the browser's (follow it, press it).
        if (event.key === "Enter" && target && (target.tagName === "A" || target.tagName === "BUTTON")) { return; }
        var entry = current();
        switch (event.key) {
          case "j": move(1); break;
          case "k": move(-1); break;
          case "o": case "Enter":
            if (kind === "article") {
              var original = document.getElementById("original");
              if (original) { window.open(original.href, "_blank", "noopener,noreferrer"); }
            } else if (entry) {
              var title = entry.querySelector("a.title");
              if (title) { window.location.href = title.href; }
            } else { return; }
            break;
          case "m": case "s":
            if (!entry) { return; }
            var form = entry.querySelector(event.key === "m" ? "form.read" : "form.star");
            if (form) { send(form).catch(function () {}); }
            break;
          case "/":
            var search = document.getElementById("search");
            if (search) { search.focus(); search.select(); }
            break;
          default: return;
        }
        event.preventDefault();
      });
      if (kind !== "article") {
        var first = document.querySelector("li.entry");
        if (first) { select(first); }
      }
    })();
    """#
}
