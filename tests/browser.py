"""Headless Chromium driven over the DevTools protocol on a pipe (standard library only).

``render(path)`` opens a local HTML file in a fresh headless Chromium, waits for it to load and
returns what a reviewer of a report needs to know: console errors and uncaught exceptions, every
network request the page made, the visible text, and a full-page PNG screenshot (and a PDF of
the printed page). Chromium is Debian's (`apt-get install chromium`), started with the flags that
keep it off the network.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--mute-audio",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)


AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
# axe-core 4.14.1 from npm (tests/vendor/axe-core/README.md): a file that differs is not run
AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"
# Every rule axe has (WCAG 2.0/2.1/2.2 A and AA, and its best practices), on the page with every
# <details> opened, so folded output and hints are checked too.
AXE_RUN = """
(async () => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const result = await axe.run(document, {resultTypes: ['violations']});
  return JSON.stringify(result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target, summary: n.failureSummary}))
  })));
})()
"""


SETTLED = """
document.fonts.ready.then(() => new Promise(
  done => requestAnimationFrame(() => requestAnimationFrame(() => done(true)))))
"""


def axe_source() -> str:
    data = AXE.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != AXE_SHA256:
        raise RuntimeError(f"{AXE} is not the vendored axe-core (sha256 {digest})")
    return data.decode("utf-8")


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclass
class Page:
    url: str
    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    text: str = ""
    values: dict[str, object] = field(default_factory=dict)
    screenshot: bytes = b""
    pdf: bytes = b""
    violations: list[dict] = field(default_factory=list)  # axe-core's, when asked for

    @property
    def external_requests(self) -> list[str]:
        local = ("file:", "data:", "about:", "chrome:", "chrome-error:")
        return [u for u in self.requests if not u.startswith(local)]


class _Browser:
    def __init__(self, binary: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="grader-chromium-")
        cmd_r, self._cmd_w = os.pipe()
        self._resp_r, resp_w = os.pipe()

        # Chromium reads commands on fd 3 and answers on fd 4: bash wires our pipes there.
        env = dict(os.environ, GRADER_CDP_IN=str(cmd_r), GRADER_CDP_OUT=str(resp_w))
        self.proc = subprocess.Popen(
            [
                "bash",
                "-c",
                'exec "$@" 3<&"$GRADER_CDP_IN" 4>&"$GRADER_CDP_OUT"',
                "chromium",
                binary,
                *FLAGS,
                f"--user-data-dir={self.profile}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(cmd_r, resp_w),
            env=env,
        )
        os.close(cmd_r)
        os.close(resp_w)
        self._next = 0
        self._buffer = b""
        self.events: list[dict] = []

    def send(
        self,
        method: str,
        params: dict | None = None,
        session: str | None = None,
        timeout: float = 30,
    ) -> dict:
        self._next += 1
        message = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._cmd_w, json.dumps(message).encode() + b"\0")
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for reply in self._read(end - time.monotonic()):
                if reply.get("id") == self._next:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply.get("result", {})
                self.events.append(reply)
        raise TimeoutError(method)

    def wait_for(self, method: str, timeout: float = 30) -> dict:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for event in self.events:
                if event.get("method") == method:
                    return event
            self.events += self._read(end - time.monotonic())
        raise TimeoutError(method)

    def _read(self, timeout: float) -> list[dict]:
        import select

        ready, _, _ = select.select([self._resp_r], [], [], max(timeout, 0))
        if not ready:
            return []
        chunk = os.read(self._resp_r, 1 << 20)
        if not chunk:
            raise RuntimeError("Chromium exited")
        self._buffer += chunk
        *messages, self._buffer = self._buffer.split(b"\0")
        return [json.loads(m) for m in messages if m]

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._cmd_w)
        os.close(self._resp_r)
        shutil.rmtree(self.profile, ignore_errors=True)


def _started(binary: str, attempts: int = 2) -> tuple[_Browser, str]:
    """A fresh Chromium and its first tab. On a loaded machine Chromium now and then never
    answers its first command (it hangs while it starts, before any page is involved): that
    browser is replaced once by another, with a profile of its own."""
    for attempt in range(attempts):
        browser = _Browser(binary)
        try:
            reply = browser.send("Target.createTarget", {"url": "about:blank"}, timeout=20)
            return browser, reply["targetId"]
        except TimeoutError:
            browser.close()
            if attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")


def render(
    path: Path,
    *,
    width: int = 1100,
    pdf: bool = False,
    evaluate: tuple[str, ...] = (),
    axe: bool = False,
) -> Page:
    """Load a local file in headless Chromium and report on it; ``axe``: also run axe-core's
    accessibility rules on it (after the screenshot, with every <details> opened)."""
    binary = find_chromium()
    if binary is None:
        raise FileNotFoundError("Chromium is not installed (apt-get install chromium)")
    browser, target = _started(binary)
    try:
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log", "Network"):
            browser.send(f"{domain}.enable", session=session)
        browser.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": 800, "deviceScaleFactor": 1, "mobile": False},
            session=session,
        )
        url = path.resolve().as_uri()
        browser.send("Page.navigate", {"url": url}, session=session)
        browser.wait_for("Page.loadEventFired")
        # settled: its fonts loaded and two frames drawn since the load, as the page's own
        # promise says; the events sent before the answer are gathered on the way to it
        browser.send(
            "Runtime.evaluate",
            {"expression": SETTLED, "awaitPromise": True, "returnByValue": True},
            session=session,
        )
        page = Page(url=url)
        text = browser.send(
            "Runtime.evaluate",
            {"expression": "document.body.innerText", "returnByValue": True},
            session=session,
        )
        page.text = str(text.get("result", {}).get("value", ""))
        for expression in evaluate:
            answer = browser.send(
                "Runtime.evaluate",
                {"expression": expression, "returnByValue": True},
                session=session,
            )
            page.values[expression] = answer.get("result", {}).get("value")
        metrics = browser.send("Page.getLayoutMetrics", session=session)
        size = metrics.get("cssContentSize") or metrics.get("contentSize")
        shot = browser.send(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": {
                    "x": 0,
                    "y": 0,
                    "width": width,
                    "height": min(size["height"], 16000),
                    "scale": 1,
                },
            },
            session=session,
        )
        page.screenshot = base64.b64decode(shot["data"])
        if pdf:
            page.pdf = base64.b64decode(
                browser.send("Page.printToPDF", {"printBackground": True}, session=session)["data"]
            )
        if axe:
            # DevTools evaluation is not the page's script: the report's CSP still forbids any
            browser.send(
                "Runtime.evaluate", {"expression": axe_source()}, session=session, timeout=60
            )
            answer = browser.send(
                "Runtime.evaluate",
                {"expression": AXE_RUN, "awaitPromise": True, "returnByValue": True},
                session=session,
                timeout=120,
            )
            value = answer.get("result", {}).get("value")
            if not isinstance(value, str):
                raise RuntimeError(f"axe-core did not run: {answer}")
            page.violations = json.loads(value)
        for event in browser.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Network.requestWillBeSent":
                page.requests.append(params.get("request", {}).get("url", ""))
            elif method == "Runtime.exceptionThrown":
                page.console_errors.append(json.dumps(params.get("exceptionDetails", {}))[:500])
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                page.console_errors.append(json.dumps(params.get("args", []))[:500])
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                page.console_errors.append(params["entry"].get("text", "")[:500])
        return page
    finally:
        browser.close()
