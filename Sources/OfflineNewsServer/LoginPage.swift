import Foundation
import OfflineNewsHTTP

/// The front door's sign-in page at `/login`: a plain HTML form (user, password, the page to go back to) with its
/// style inline and no script or external asset, so that it works with no network; a dark scheme follows the
/// browser's preference.
enum LoginPage {
  /// The page, with "wrong user or password" when `failed`.
  static func html(next: String, failed: Bool) -> String {
    let message = failed ? #"<p class="error" role="alert">Wrong user or password.</p>"# : ""
    return """
      <!doctype html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <meta name="color-scheme" content="light dark">
      <title>Sign in · news</title>
      <style>
      body { font: 16px/1.5 system-ui, sans-serif; max-width: 22rem; margin: 4rem auto; padding: 0 1rem; }
      label { display: block; margin-top: 1rem; }
      input { width: 100%; box-sizing: border-box; font: inherit; padding: .4rem; }
      button { margin-top: 1.5rem; font: inherit; padding: .4rem 1.2rem; }
      .error { color: #b00020; }
      @media (prefers-color-scheme: dark) { .error { color: #ff8a80; } }
      </style>
      </head>
      <body>
      <h1>news</h1>
      \(message)
      <form method="post" action="/login">
      <input type="hidden" name="next" value="\(ArticleHTMLSanitizer.escapeAttribute(next))">
      <label for="user">User</label>
      <input id="user" name="user" autocomplete="username" required autofocus>
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required>
      <button type="submit">Sign in</button>
      </form>
      </body>
      </html>

      """
  }

  /// The page as a response of `status`, with a Content-Security-Policy that allows only its inline style and a
  /// form posted to this server.
  static func response(next: String, failed: Bool, status: Int) -> ServerResponse {
    ServerResponse(
      status: status, type: "text/html; charset=utf-8", data: Data(html(next: next, failed: failed).utf8),
      headers: [
        (
          name: "Content-Security-Policy",
          value: "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"
        ),
        (name: "Cache-Control", value: "no-store"),
      ])
  }

}
