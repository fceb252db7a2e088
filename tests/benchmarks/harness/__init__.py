"""What every benchmark shares: its database, the servers it starts (ours, and the minimal
Starlette + PyMongo + orjson one it is measured against) and its report.
"""
