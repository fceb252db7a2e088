"""What a browser opens: the landing page, the API reference, the map viewer, stored files and the
vendored static assets.
"""
