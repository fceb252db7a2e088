"""Buildings the tests import and route through, each built from a seed or converted
from real data: IMDF venues of our own (`imdf_venues.py`, `imdf_shared_ordinals.py`),
Quayside House and the viewer's venue (`viewer_buildings.py`), a bilingual clinic
(`bilingual_clinic.py`), a railway station in OpenStreetMap's Simple Indoor Tagging
(`osm_station.py`), and Westport House, Dundee, as an IMDF archive (`westport_imdf.py`;
CC BY 4.0, its attribution there)."""
