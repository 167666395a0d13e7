/// The browser test's driver: a Python program (standard library only) that runs headless Chromium and talks to it
/// over the DevTools protocol on a pipe (`--remote-debugging-pipe`: JSON messages ended by NUL on file descriptors
/// 3 and 4, so no WebSocket client is needed), written to a temporary file by the test.
///
/// `python3 driver.py CHROMIUM BASE_URL SCREENSHOT PROFILE_DIR LOG` loads the reader, checks the sources, lists the
/// articles, searches with the `/` shortcut, opens the first hit with `o`, checks its offline image was loaded,
/// marks it read with `m` (the script's `fetch` with `X-CSRF-Token`), stars it with JavaScript off (the form's
/// `POST` with its `csrf` field, and the redirect back), checks the page at a phone's width and in the dark and
/// light schemes, and
/// saves a screenshot of the list. It writes one JSON line per step to LOG (then `done`) and exits non-zero at the first failure, or
/// when the page logged an error or a Content-Security-Policy violation.
enum WebBrowserDriver {
  static let source = #"""
    import base64, json, os, signal, subprocess, sys, time

    chromium, base, screenshot, profile, log_path = sys.argv[1:6]
    log = open(log_path, "w", buffering=1)

    def stop(signum, frame):
        raise SystemExit("stopped by signal %d" % signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGALRM, stop)
    signal.alarm(100)

    to_child_r, to_child_w = os.pipe()
    from_child_r, from_child_w = os.pipe()

    def wire():
        os.dup2(to_child_r, 3)
        os.dup2(from_child_w, 4)

    browser = subprocess.Popen(
        [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile,
         "--remote-debugging-pipe", "--window-size=1100,1000", "about:blank"],
        preexec_fn=wire, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(to_child_r)
    os.close(from_child_w)
    writer = os.fdopen(to_child_w, "wb", buffering=0)
    reader = os.fdopen(from_child_r, "rb", buffering=0)

    buffer = b""
    events = []
    next_id = [0]
    problems = []

    def receive():
        global buffer
        while b"\0" not in buffer:
            chunk = reader.read(65536)
            if not chunk:
                raise RuntimeError("the browser closed the pipe")
            buffer += chunk
        message, buffer = buffer.split(b"\0", 1)
        return json.loads(message)

    def note(message):
        method = message.get("method", "")
        params = message.get("params", {})
        if method == "Runtime.exceptionThrown":
            problems.append("exception: " + json.dumps(params.get("exceptionDetails", {}))[:400])
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            if entry.get("level") == "error":
                problems.append("log: " + entry.get("text", "")[:400] + " " + entry.get("url", "")[:200])
        elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            problems.append("console: " + json.dumps(params.get("args", []))[:400])
        events.append(message)

    def send(method, params=None, session=None, timeout=30):
        next_id[0] += 1
        number = next_id[0]
        message = {"id": number, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        writer.write(json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while time.time() < deadline:
            answer = receive()
            if answer.get("id") == number:
                if "error" in answer:
                    raise RuntimeError(method + ": " + json.dumps(answer["error"]))
                return answer.get("result", {})
            note(answer)
        raise RuntimeError(method + " timed out")

    def step(name, ok, detail=""):
        log.write(json.dumps({"step": name, "ok": bool(ok), "detail": str(detail)}) + "\n")
        if not ok:
            raise SystemExit(1)

    try:
        target = send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ["Page", "Runtime", "Log"]:
            send(domain + ".enable", session=session)

        def evaluate(expression):
            result = send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True}, session=session)
            if "exceptionDetails" in result:
                raise RuntimeError("evaluate: " + json.dumps(result["exceptionDetails"])[:400])
            return result.get("result", {}).get("value")

        def wait_for(expression, timeout=15):
            deadline = time.time() + timeout
            while time.time() < deadline:
                try:
                    if evaluate(expression):
                        return True
                except RuntimeError:
                    pass  # the page is navigating
                time.sleep(0.05)
            return False

        def ready(path_part):
            return wait_for("document.readyState === 'complete' && location.href.indexOf(%s) >= 0"
                            % json.dumps(path_part))

        def go(path):
            send("Page.navigate", {"url": base + path}, session=session)
            return ready(path)

        def key(character):
            send("Input.dispatchKeyEvent", {"type": "keyDown", "key": character, "text": character,
                                            "unmodifiedText": character}, session=session)
            send("Input.dispatchKeyEvent", {"type": "keyUp", "key": character}, session=session)

        step("home", go("/") and evaluate(
            "Array.from(document.querySelectorAll('li.source')).map(e => e.textContent).join('|')"
            ".indexOf('harbour') >= 0"), evaluate("document.title"))
        step("styled", evaluate("getComputedStyle(document.querySelector('header.bar')).position") == "sticky")

        step("list", go("/articles") and evaluate("document.querySelectorAll('li.entry').length") == 4,
             str(evaluate("document.querySelectorAll('li.entry').length")))
        step("first selected", evaluate("document.querySelector('li.entry.current') !== null"))
        key("j")
        step("j moves down", evaluate(
            "document.querySelectorAll('li.entry')[1].classList.contains('current')"))

        key("/")
        step("slash focuses search", evaluate("document.activeElement.id") == "search")
        send("Input.insertText", {"text": "ribbon"}, session=session)
        send("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Enter", "code": "Enter",
                                        "windowsVirtualKeyCode": 13, "text": "\r"}, session=session)
        send("Input.dispatchKeyEvent", {"type": "keyUp", "key": "Enter", "code": "Enter",
                                        "windowsVirtualKeyCode": 13}, session=session)
        step("search", ready("/search?q=ribbon") and wait_for(
            "document.querySelectorAll('li.entry').length === 1 && document.querySelector('mark') !== null"),
            evaluate("document.querySelector('main').innerText.slice(0, 200)"))

        key("o")
        step("o opens", ready("/article/") and evaluate(
            "document.querySelector('article h1').textContent") == "Council opens the ferry terminal",
            evaluate("location.pathname"))
        step("offline image", wait_for(
            "(function(){var i=document.querySelector('.content img');"
            "return i!==null && i.complete && i.naturalWidth===8 && i.getAttribute('src').indexOf('/images/')===0})()"),
            evaluate("document.querySelector('.content').innerHTML.slice(0, 300)"))
        step("unread before", evaluate("document.querySelector('article.entry').classList.contains('unread')"))
        key("m")
        step("m marks read", wait_for(
            "document.body.getAttribute('data-last-change') === 'read' && "
            "!document.querySelector('article.entry').classList.contains('unread')"),
            evaluate("location.href") + " " + "; ".join(problems)[:1000])

        article = evaluate("location.pathname")
        send("Emulation.setScriptExecutionDisabled", {"value": True}, session=session)
        go(article)
        step("no script", wait_for("document.querySelector('form.star button') !== null") and evaluate(
            "document.querySelector('article.entry').classList.contains('starred')") is False)
        evaluate("window.beforeSubmit = true; document.querySelector('form.star button').click()")
        # A new page (the redirect back after the form's POST), not the script's change in place.
        step("star without JavaScript", wait_for(
            "typeof window.beforeSubmit === 'undefined' && document.readyState === 'complete' && "
            "document.body.getAttribute('data-last-change') === null && "
            "document.querySelector('article.entry.starred') !== null && "
            "document.querySelector('form.star button').textContent === 'Unstar'"),
            evaluate("location.href") + " " + "; ".join(problems)[:1000])
        send("Emulation.setScriptExecutionDisabled", {"value": False}, session=session)

        send("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1,
                                                    "mobile": True}, session=session)
        step("phone width", go("/articles") and evaluate(
            "document.documentElement.scrollWidth <= window.innerWidth + 1"),
            str(evaluate("[document.documentElement.scrollWidth, window.innerWidth]")))
        send("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]},
             session=session)
        step("dark scheme", evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(22, 23, 26)",
             evaluate("getComputedStyle(document.body).backgroundColor"))
        send("Emulation.setEmulatedMedia", {"features": []}, session=session)
        step("light scheme", evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(253, 253, 251)",
             evaluate("getComputedStyle(document.body).backgroundColor"))
        send("Emulation.clearDeviceMetricsOverride", session=session)
        send("Emulation.setDeviceMetricsOverride", {"width": 1000, "height": 760, "deviceScaleFactor": 1,
                                                    "mobile": False}, session=session)
        go("/articles")
        key("j")
        shot = send("Page.captureScreenshot", {"format": "png"}, session=session)
        with open(screenshot, "wb") as out:
            out.write(base64.b64decode(shot["data"]))
        step("screenshot", os.path.getsize(screenshot) > 10000, screenshot)
        # Events that came in after the last command.
        evaluate("1")
        step("no errors or CSP violations", not problems, "; ".join(problems)[:2000])
        log.write("done\n")
    except Exception as error:
        log.write(json.dumps({"step": "driver", "ok": False, "detail": repr(error)[:2000]}) + "\n")
        raise SystemExit(1)
    finally:
        try:
            send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            browser.wait(timeout=10)
        except Exception:
            browser.kill()
    """#
}
