"""The map viewer in headless Chromium (rest/pages/static/viewer/), by feature: the
page and its map, labels and icons, directions, live changes, group paint, search and
"nearest" buttons, on our buildings and on real ones; `viewer_site.py` serves them."""
