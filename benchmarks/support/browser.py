"""Headless Debian Chromium through Playwright.

`playwright install` cannot download browsers on our machines, so tests drive Debian's
`chromium` package (`apt-get install chromium`; `make test` installs it).
"""

import contextlib
from typing import Any, Iterator, List, Optional, Tuple

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Counts script side effects of an injected payload (alert, onerror on an <img>).
TRAP_SCRIPT = """
window.__alerts = [];
window.alert = (m) => { window.__alerts.push(String(m)); };
window.__errors = [];
window.addEventListener('error', (e) => window.__errors.push(String(e.message || e.type)), true);
"""


# WebGL in headless Chromium without a GPU: SwiftShader, software rendering (Model Explorer
# draws its graph with WebGL). In place of --disable-gpu.
WEBGL_ARGS = [a for a in CHROMIUM_ARGS if a != "--disable-gpu"] + [
    "--use-gl=angle",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
    "--ignore-gpu-blocklist",
]


@contextlib.contextmanager
def chromium(args: Optional[List[str]] = None) -> Iterator[Any]:
    """Debian's Chromium, headless, with ``args`` (default :data:`CHROMIUM_ARGS`)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS if args is None else args
        )
        try:
            yield browser
        finally:
            browser.close()


def block_network(context: Any, allow: Tuple[str, ...] = ("file:",)) -> list:
    """Abort every request whose URL does not start with one of ``allow`` (file: by default),
    data: or blob:; return the list of attempts."""
    attempts: list = []
    allowed = tuple(allow) + ("data:", "blob:")

    def handle(route: Any) -> None:
        url = route.request.url
        if url.startswith(allowed):
            route.continue_()
        else:
            attempts.append(url)
            route.abort()

    context.route("**/*", handle)
    return attempts


def open_offline(browser: Any, url: str, **context_options: Any) -> Tuple[Any, Any, list, list]:
    """A new context (network blocked but for file:, data: and blob:) and page with the
    trap script, at ``url``: (context, page, blocked attempts, page errors). Close the
    context when done."""
    context = browser.new_context(**context_options)
    attempts = block_network(context)
    page = context.new_page()
    page.add_init_script(TRAP_SCRIPT)
    errors: list = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    return context, page, attempts, errors
