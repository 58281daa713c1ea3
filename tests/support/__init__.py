"""Test infrastructure shared by the browser tests and benchmarks: a real JupyterLab server
and Debian's Chromium through Playwright."""
