"""The map viewer in headless Chromium, by feature: its search box and "nearest" buttons
(issue 47). The viewer's older modules (tests/e2e/test_viewer_*.py and viewer_site.py,
which these share) may join them here: tests/e2e/ holds at most 16 modules."""
