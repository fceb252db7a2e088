"""Who may ask and how often: the access check, API keys, permission and flag names, asset scope
and rate limits.
"""
